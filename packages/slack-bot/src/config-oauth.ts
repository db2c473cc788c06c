import { z } from 'zod';
import { commaSeparated } from './config-lists.js';
import { allowedTeamsOf } from './config-tenants.js';
import type { OAuthSettings } from './services/installs/oauth-flow.js';

/** Slack: `botToken` for one workspace; `oauth` for installs in many, each with its own token. */
export type SlackConfig = {
  botToken?: string;
  signingSecret: string;
  appToken?: string;
  apiUrl?: string;
  oauth?: OAuthSettings;
};

/** The bot scopes an install asks for when SLACK_SCOPES is unset: manifest.yml's. */
export const DEFAULT_BOT_SCOPES = [
  'commands',
  'chat:write',
  'chat:write.public',
  'files:write',
  'users:read',
  'usergroups:read',
  'channels:history',
  'groups:history',
  'channels:read',
  'groups:read',
  'im:history',
  'im:write',
  'app_mentions:read',
  'reactions:write',
];

const optionalUrl = (name: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` }).optional(),
  );
const optionalText = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z.string().optional(),
);

/** OAuth installs for many workspaces: the variables, each problem named by its variable. */
export const oauthEnv = {
  SLACK_CLIENT_ID: optionalText,
  SLACK_CLIENT_SECRET: optionalText,
  SLACK_STATE_SECRET: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.string().min(16, 'SLACK_STATE_SECRET must be at least 16 characters').optional(),
  ),
  SLACK_SCOPES: optionalText,
  SLACK_REDIRECT_URI: optionalUrl('SLACK_REDIRECT_URI'),
  SLACK_AUTHORIZE_URL: optionalUrl('SLACK_AUTHORIZE_URL'),
};

type OAuthEnv = {
  SLACK_CLIENT_ID?: string | undefined;
  SLACK_CLIENT_SECRET?: string | undefined;
  SLACK_STATE_SECRET?: string | undefined;
  SLACK_SCOPES?: string | undefined;
  SLACK_REDIRECT_URI?: string | undefined;
  SLACK_AUTHORIZE_URL?: string | undefined;
  SLACK_BOT_TOKEN?: string | undefined;
  SLACK_SIGNING_SECRET?: string | undefined;
  SLACK_APP_TOKEN?: string | undefined;
  AGENT_KEY_ENCRYPTION_KEY?: string | undefined;
  SLACK_ALLOWED_TEAMS?: string | undefined;
};

/** Said when OAuth installs are configured without AGENT_KEY_ENCRYPTION_KEY (at load, and at start). */
export const NO_KEY_FOR_TOKENS =
  'AGENT_KEY_ENCRYPTION_KEY is required for OAuth installs: the Slack tokens of each workspace are stored encrypted with it (make one with `openssl rand -base64 32`)';

const OAUTH_NAMES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

export const isOAuth = (env: OAuthEnv): boolean => OAUTH_NAMES.some((name) => env[name] !== undefined);

/** What is wrong with the OAuth variables together, as [variable, message] pairs. */
export function oauthProblems(env: OAuthEnv): Array<[string, string]> {
  if (!isOAuth(env)) return [];
  const problems: Array<[string, string]> = OAUTH_NAMES.filter((name) => env[name] === undefined).map(
    (name) => [name, `${name} is required for OAuth installs (with ${OAUTH_NAMES.join(', ')})`],
  );
  if (env.SLACK_BOT_TOKEN)
    problems.push([
      'SLACK_BOT_TOKEN',
      'SLACK_BOT_TOKEN must be unset with SLACK_CLIENT_ID: OAuth installs keep a token per workspace',
    ]);
  if (env.SLACK_APP_TOKEN)
    problems.push([
      'SLACK_APP_TOKEN',
      'SLACK_APP_TOKEN must be unset with SLACK_CLIENT_ID: OAuth installs are served over HTTP, not Socket Mode',
    ]);
  if (!env.SLACK_SIGNING_SECRET)
    problems.push(['SLACK_SIGNING_SECRET', 'SLACK_SIGNING_SECRET is required for OAuth installs']);
  if (!env.AGENT_KEY_ENCRYPTION_KEY) problems.push(['AGENT_KEY_ENCRYPTION_KEY', NO_KEY_FOR_TOKENS]);
  return problems;
}

/** The OAuth settings, when the variables ask for OAuth installs (checked by oauthProblems first). */
export function oauthSettings(env: OAuthEnv, apiUrl: string | undefined): OAuthSettings | undefined {
  const {
    SLACK_CLIENT_ID: clientId,
    SLACK_CLIENT_SECRET: clientSecret,
    SLACK_STATE_SECRET: stateSecret,
  } = env;
  if (!clientId || !clientSecret || !stateSecret) return undefined;
  const scopes = commaSeparated(env.SLACK_SCOPES);
  return {
    clientId,
    clientSecret,
    stateSecret,
    scopes: scopes.length > 0 ? scopes : DEFAULT_BOT_SCOPES,
    allowedTeams: allowedTeamsOf(env),
    ...(env.SLACK_REDIRECT_URI ? { redirectUri: env.SLACK_REDIRECT_URI } : {}),
    ...(env.SLACK_AUTHORIZE_URL ? { authorizationUrl: env.SLACK_AUTHORIZE_URL } : {}),
    ...(apiUrl ? { apiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {}),
  };
}

/** OAuth mode's Slack settings: no bot token, a signing secret and the app's OAuth credentials. */
export function oauthSlack(
  env: OAuthEnv,
  signingSecret: string | undefined,
  apiUrl: string | undefined,
): { signingSecret: string; apiUrl?: string; oauth: OAuthSettings } | undefined {
  const oauth = oauthSettings(env, apiUrl);
  if (!oauth || !signingSecret) return undefined;
  return { signingSecret, ...(apiUrl ? { apiUrl } : {}), oauth };
}
