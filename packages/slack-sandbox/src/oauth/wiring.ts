/**
 * Wires a sandbox's workspaces and its OAuth app together: which workspace each token reaches, the
 * `oauth.v2.*` methods, and the options (and environment) that turn OAuth on.
 */

import type { TokenAuth, WebApiContext } from '../api/dispatch.js';
import type { Args } from '../api/types.js';
import { Interactions } from '../interactions.js';
import { RateLimiter, type RateLimitOptions } from '../limits/rate-limits.js';
import { Workspace, type WorkspaceSeed } from '../workspace.js';
import type { OAuthApp, OAuthOptions } from './app.js';
import type { Tenant, Tenants } from './tenants.js';
import { TokenEndpoint } from './token-endpoint.js';

/** What a user token may call: Slack refuses the bot's methods to it with `not_allowed_token_type`. */
const USER_TOKEN_METHODS = new Set(['auth.test', 'users.info']);

/** A workspace beside the default one, with its own trigger ids, response URLs and rate limits. */
export function otherTenant(
  seed: WorkspaceSeed,
  options: {
    baseUrl: () => string;
    triggerTtlMs?: number;
    waitTimeoutMs?: number;
    limits: RateLimitOptions | false;
    now?: () => number;
  },
): Tenant {
  const workspace = new Workspace(seed, { waitTimeoutMs: options.waitTimeoutMs });
  return {
    workspace,
    interactions: new Interactions(workspace, options.baseUrl, options.triggerTtlMs),
    rateLimiter: options.limits === false ? undefined : new RateLimiter(options.limits, options.now),
  };
}

/** Under OAuth, a bot or user token reaches the workspace it was issued for, and no other. */
export function oauthAuthenticator(
  app: OAuthApp,
  tenants: Tenants,
  appToken: string,
): (token: string, method: string, args: Args) => TokenAuth {
  return (token, method, args) => {
    if (method === 'apps.connections.open')
      return token === appToken ? { ok: true } : { ok: false, error: 'invalid_auth' };
    const checked = app.tokens.check(token);
    if (!checked.ok) return checked;
    const { grant, kind, userId } = checked.token;
    if (kind === 'user' && !USER_TOKEN_METHODS.has(method))
      return { ok: false, error: 'not_allowed_token_type' };
    const tenant = grant.isEnterpriseInstall
      ? orgTenant(tenants, grant.enterpriseId, args)
      : tenants.get(grant.teamId);
    if (tenant === 'not_granted') return { ok: false, error: 'team_access_not_granted' };
    if (!tenant) return { ok: false, error: 'invalid_auth' };
    const expiresIn = app.tokens.expiresIn(checked.token);
    const context: Partial<WebApiContext> = {
      workspace: tenant.workspace,
      interactions: tenant.interactions,
      rateLimiter: tenant.rateLimiter,
      caller: {
        kind,
        userId,
        isEnterpriseInstall: grant.isEnterpriseInstall,
        ...(grant.enterpriseId ? { enterpriseId: grant.enterpriseId } : {}),
        ...(expiresIn !== undefined ? { expiresIn } : {}),
      },
    };
    return { ok: true, context };
  };
}

/**
 * Which workspace an org-wide token's call acts on: the one `team_id` names (one of the organization's,
 * else Slack's `team_access_not_granted`), else the one holding the channel or user it names, else the
 * organization's first.
 */
function orgTenant(
  tenants: Tenants,
  enterpriseId: string | undefined,
  args: Args,
): Tenant | 'not_granted' | undefined {
  const org = tenants.all.filter(
    (t) => enterpriseId !== undefined && t.workspace.seed.enterprise?.id === enterpriseId,
  );
  const named = typeof args.team_id === 'string' && args.team_id !== '' ? args.team_id : undefined;
  if (named !== undefined) return org.find((t) => t.workspace.seed.teamId === named) ?? 'not_granted';
  const ids = [args.channel, args.channel_id, args.user, args.user_id].filter(
    (v): v is string => typeof v === 'string',
  );
  return (
    org.find((t) => ids.some((id) => t.workspace.channels.has(id) || t.workspace.users.has(id))) ?? org[0]
  );
}

/** `oauth.v2.access` and `oauth.v2.exchange`; other `oauth.*` methods are unknown here. */
export function oauthMethods(app: OAuthApp) {
  const endpoint = new TokenEndpoint(app);
  return (
    name: string,
    args: Args,
    authorization: string | undefined,
  ): Record<string, unknown> | undefined => {
    if (name === 'oauth.v2.access') return endpoint.access(args, authorization);
    if (name === 'oauth.v2.exchange') return endpoint.exchange(args, authorization);
    return undefined;
  };
}

const on = (v: string | undefined) => v !== undefined && ['1', 'on', 'true', 'yes'].includes(v.toLowerCase());

/**
 * The sandbox's OAuth options from the environment (its CLI and `npm start` use this): SANDBOX_OAUTH=on
 * turns OAuth on; SANDBOX_OAUTH_CLIENT_ID / _CLIENT_SECRET fix the credentials (default: random),
 * SANDBOX_OAUTH_REDIRECT_URLS (comma-separated) the Redirect URLs, SANDBOX_TOKEN_ROTATION=on rotation,
 * SANDBOX_TOKEN_LIFETIME its lifetime in seconds (default 43200). Undefined when OAuth is off.
 */
export function oauthOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): OAuthOptions | undefined {
  if (!on(env.SANDBOX_OAUTH)) return undefined;
  const lifetime = env.SANDBOX_TOKEN_LIFETIME;
  const seconds = lifetime === undefined || lifetime === '' ? undefined : Number(lifetime);
  if (seconds !== undefined && (!Number.isInteger(seconds) || seconds < 1))
    throw new Error(
      `SANDBOX_TOKEN_LIFETIME must be a whole number of seconds (at least 1), got "${lifetime}"`,
    );
  const urls = (env.SANDBOX_OAUTH_REDIRECT_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  return {
    ...(env.SANDBOX_OAUTH_CLIENT_ID ? { clientId: env.SANDBOX_OAUTH_CLIENT_ID } : {}),
    ...(env.SANDBOX_OAUTH_CLIENT_SECRET ? { clientSecret: env.SANDBOX_OAUTH_CLIENT_SECRET } : {}),
    ...(urls.length > 0 ? { redirectUrls: urls } : {}),
    ...(on(env.SANDBOX_TOKEN_ROTATION) ? { tokenRotation: true } : {}),
    ...(seconds !== undefined ? { tokenLifetimeSeconds: seconds } : {}),
  };
}
