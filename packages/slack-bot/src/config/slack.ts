/**
 * Slack: one workspace's bot token, or OAuth installs for many, each workspace with its own token stored
 * encrypted; under OAuth, the workspaces admitted (`SLACK_ALLOWED_TEAMS`).
 */
import { z } from 'zod';
import type { OAuthSettings } from '../services/installs/oauth-flow.js';
import { blankAsUnset, commaSeparated, httpUrl, optionalText, type Problem } from './fields.js';
import { teamListOf, teamListProblems } from './team-list.js';

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

export const slackSchema = z.object({
  SLACK_BOT_TOKEN: z.string().startsWith('xoxb-', 'SLACK_BOT_TOKEN must be a bot token (xoxb-…)').optional(),
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
  SLACK_APP_TOKEN: z
    .string()
    .startsWith('xapp-', 'SLACK_APP_TOKEN must be an app-level token (xapp-…)')
    .optional(),
  SLACK_API_URL: httpUrl('SLACK_API_URL'),
  // OAuth installs for many workspaces.
  SLACK_CLIENT_ID: optionalText,
  SLACK_CLIENT_SECRET: optionalText,
  SLACK_STATE_SECRET: blankAsUnset(
    z.string().min(16, 'SLACK_STATE_SECRET must be at least 16 characters').optional(),
  ),
  SLACK_SCOPES: optionalText,
  SLACK_REDIRECT_URI: blankAsUnset(httpUrl('SLACK_REDIRECT_URI')),
  SLACK_AUTHORIZE_URL: blankAsUnset(httpUrl('SLACK_AUTHORIZE_URL')),
  // Required under OAuth: who may install the app and is served.
  SLACK_ALLOWED_TEAMS: optionalText,
});

type SlackEnv = z.output<typeof slackSchema> & {
  /** OAuth installs store each workspace's tokens encrypted with it (config/keys.ts). */
  AGENT_KEY_ENCRYPTION_KEY?: string | undefined;
};

/** Said when OAuth installs are configured without AGENT_KEY_ENCRYPTION_KEY (at load, and at start). */
export const NO_KEY_FOR_TOKENS =
  'AGENT_KEY_ENCRYPTION_KEY is required for OAuth installs: the Slack tokens of each workspace are stored encrypted with it (make one with `openssl rand -base64 32`)';

const OAUTH_NAMES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

export const isOAuth = (env: Pick<SlackEnv, (typeof OAUTH_NAMES)[number]>): boolean =>
  OAUTH_NAMES.some((name) => env[name] !== undefined);

/** What is wrong with the Slack variables together, as [variable, message] pairs. */
export function slackProblems(env: SlackEnv): Problem[] {
  const problems: Problem[] = [];
  if (env.SLACK_BOT_TOKEN && !env.SLACK_SIGNING_SECRET && !env.SLACK_APP_TOKEN)
    problems.push([
      'SLACK_SIGNING_SECRET',
      'SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode) is required with SLACK_BOT_TOKEN',
    ]);
  problems.push(...oauthProblems(env), ...admissionProblems(env));
  if ((env.SLACK_SIGNING_SECRET || env.SLACK_APP_TOKEN) && !env.SLACK_BOT_TOKEN && !isOAuth(env))
    problems.push(['SLACK_BOT_TOKEN', 'SLACK_BOT_TOKEN is required when Slack is configured']);
  return problems;
}

function oauthProblems(env: SlackEnv): Problem[] {
  if (!isOAuth(env)) return [];
  const problems = OAUTH_NAMES.filter((name) => env[name] === undefined).map(
    (name): Problem => [name, `${name} is required for OAuth installs (with ${OAUTH_NAMES.join(', ')})`],
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

/** SLACK_ALLOWED_TEAMS: required under OAuth, where any workspace could otherwise install the app. */
function admissionProblems(env: SlackEnv): Problem[] {
  const oauth = isOAuth(env);
  const problems: Problem[] = [];
  if (oauth && env.SLACK_ALLOWED_TEAMS === undefined)
    problems.push([
      'SLACK_ALLOWED_TEAMS',
      'SLACK_ALLOWED_TEAMS is required for OAuth installs: the team ids (T…) and organisation ids (E…) that may install and use the app, comma-separated, or * to admit every workspace',
    ]);
  const mode = { oauth, botToken: env.SLACK_BOT_TOKEN !== undefined };
  return [...problems, ...teamListProblems('SLACK_ALLOWED_TEAMS', env.SLACK_ALLOWED_TEAMS, mode)];
}

/** The OAuth settings, when the variables ask for OAuth installs (checked by slackProblems first). */
function oauthSettings(env: SlackEnv): OAuthSettings | undefined {
  const {
    SLACK_CLIENT_ID: clientId,
    SLACK_CLIENT_SECRET: clientSecret,
    SLACK_STATE_SECRET: stateSecret,
    SLACK_API_URL: apiUrl,
  } = env;
  if (!clientId || !clientSecret || !stateSecret) return undefined;
  const scopes = commaSeparated(env.SLACK_SCOPES);
  return {
    clientId,
    clientSecret,
    stateSecret,
    scopes: scopes.length > 0 ? scopes : DEFAULT_BOT_SCOPES,
    allowedTeams: teamListOf('SLACK_ALLOWED_TEAMS', env.SLACK_ALLOWED_TEAMS),
    ...(env.SLACK_REDIRECT_URI ? { redirectUri: env.SLACK_REDIRECT_URI } : {}),
    ...(env.SLACK_AUTHORIZE_URL ? { authorizationUrl: env.SLACK_AUTHORIZE_URL } : {}),
    ...(apiUrl ? { apiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {}),
  };
}

/**
 * Slack's settings (once slackProblems has passed): a bot token's, or OAuth's (no bot token, a signing
 * secret and the app's OAuth credentials); undefined when Slack is not configured.
 */
export function slackSettings(env: SlackEnv): SlackConfig | undefined {
  const { SLACK_SIGNING_SECRET: signingSecret, SLACK_API_URL: apiUrl } = env;
  if (env.SLACK_BOT_TOKEN)
    return {
      botToken: env.SLACK_BOT_TOKEN,
      signingSecret: signingSecret ?? '',
      ...(env.SLACK_APP_TOKEN ? { appToken: env.SLACK_APP_TOKEN } : {}),
      ...(apiUrl ? { apiUrl } : {}),
    };
  const oauth = oauthSettings(env);
  if (!oauth || !signingSecret) return undefined;
  return { signingSecret, ...(apiUrl ? { apiUrl } : {}), oauth };
}
