/**
 * The sandbox's Slack app as one distributed with OAuth v2: its client id and secret, its Redirect URLs,
 * the "Add to Slack" requests waiting for a person's answer, the codes that answer turns into, the
 * installations (`oauth.v2.access` and `oauth.v2.exchange` are in ./token-endpoint.ts).
 */

import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Workspace } from '../workspace.js';
import { type Grant, TokenBook } from './tokens.js';

export interface OAuthOptions {
  /** Default: random, new at each start (like the sandbox's other secrets). */
  clientId?: string;
  /** Default: random, new at each start. Never logged. */
  clientSecret?: string;
  /** The app's Redirect URLs. A `redirect_uri` must be one of them, or a path below one (as on Slack). */
  redirectUrls?: string[];
  /** Token rotation (off by default, as for a new Slack app). */
  tokenRotation?: boolean;
  /** How long a rotating access token lives, in seconds (Slack: 43,200 = 12 hours). */
  tokenLifetimeSeconds?: number;
  /** How long a code from the redirect may be exchanged, in seconds (Slack: 600). */
  codeTtlSeconds?: number;
  /** The clock (epoch ms), for tests that move time themselves. */
  now?: () => number;
  /** The bot's own install page (e.g. `http://127.0.0.1:3000/slack/install`): the page links "Add to Slack" to it. */
  installUrl?: string;
}

/** Successful code exchanges (installs), rotations, rotations refused, and oauth.v2.exchange trades. */
export interface TokenEndpointCounts {
  installs: number;
  refreshes: number;
  refreshesRefused: number;
  exchanges: number;
}

/** An "Add to Slack" request, shown to a person who has not answered yet. */
export interface PendingAuthorization {
  id: string;
  botScopes: string[];
  userScopes: string[];
  /** Where the answer goes: the request's redirect_uri, or the app's first Redirect URL. */
  redirectUri: string;
  /** Whether the request named its redirect_uri (oauth.v2.access must then name the same). */
  redirectUriGiven: boolean;
  state: string | undefined;
  /** The workspace the install URL asked for (`team`), preselected on the page. */
  team: string | undefined;
}

interface Code {
  grant: Grant;
  redirectUri: string;
  redirectUriGiven: boolean;
}

/** Authorization requests, and codes, kept at most (the least recently used dropped first). */
const MAX_WAITING = 1_000;

const random = (bytes: number) => randomBytes(bytes).toString('hex');
const scopesOf = (raw: string | null | undefined) =>
  (raw ?? '')
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** Whether `uri` is `configured` or a path below it (same scheme, host and port). */
export function redirectMatches(uri: string, configured: string): boolean {
  let u: URL;
  let c: URL;
  try {
    u = new URL(uri);
    c = new URL(configured);
  } catch {
    return false;
  }
  if (u.origin !== c.origin) return false;
  const base = c.pathname.endsWith('/') ? c.pathname : `${c.pathname}/`;
  return u.pathname === c.pathname || u.pathname.startsWith(base);
}

export class OAuthApp {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tokens: TokenBook;
  readonly grants = new Map<string, Grant>();
  readonly codeTtlMs: number;
  redirectUrls: string[];
  installUrl: string | undefined;
  /** What the token endpoint did, for tests: e.g. that two replicas refreshed a token once. */
  readonly counts: TokenEndpointCounts = { installs: 0, refreshes: 0, refreshesRefused: 0, exchanges: 0 };
  /** Requests nobody answered yet and codes nobody redeemed yet, each dropped once `codeTtlMs` old. */
  readonly #pending: LRUCache<string, PendingAuthorization>;
  readonly #codes: LRUCache<string, Code>;
  readonly #now: () => number;

  constructor(
    options: OAuthOptions,
    readonly appId: string,
    readonly workspace: (teamId: string) => Workspace | undefined,
    /** The workspaces of an Enterprise Grid organization (none for an id that is no organization's). */
    readonly organization: (enterpriseId: string) => Workspace[] = () => [],
  ) {
    this.#now = options.now ?? Date.now;
    this.clientId = options.clientId ?? `${Math.floor(1e9 + Math.random() * 9e9)}.${random(6)}`;
    this.clientSecret = options.clientSecret ?? random(16);
    this.redirectUrls = [...(options.redirectUrls ?? [])];
    this.installUrl = options.installUrl;
    this.codeTtlMs = (options.codeTtlSeconds ?? 600) * 1000;
    // The sandbox's clock, read at every check (lru-cache's own would round it on a timer); a page opened
    // over and over keeps only the latest MAX_WAITING. lru-cache keeps an entry through its ttl's last
    // millisecond; a code is dead at its tenth minute, as Slack's.
    const ttl = this.codeTtlMs - 1;
    const kept = { max: MAX_WAITING, ttl, ttlResolution: 0, perf: { now: () => this.#now() } };
    this.#pending = new LRUCache(kept);
    this.#codes = new LRUCache(kept);
    const lifetime = options.tokenLifetimeSeconds ?? 43_200;
    if (!Number.isInteger(lifetime) || lifetime < 1)
      throw new Error(`tokenLifetimeSeconds must be a whole number of at least 1, got ${lifetime}`);
    this.tokens = new TokenBook(options.tokenRotation ?? false, lifetime, this.#now);
  }

  /**
   * `GET /oauth/v2/authorize`: checks the request as Slack does before it shows the page. A problem is
   * what Slack's error page says; nothing is redirected to a URL that isn't the app's.
   */
  request(
    params: URLSearchParams,
  ): { ok: true; pending: PendingAuthorization } | { ok: false; problem: string } {
    const clientId = params.get('client_id');
    if (!clientId || clientId !== this.clientId)
      return {
        ok: false,
        problem: `Invalid client_id parameter: "${clientId ?? ''}" is no app's client id.`,
      };
    const botScopes = scopesOf(params.get('scope'));
    const userScopes = scopesOf(params.get('user_scope'));
    if (botScopes.length === 0 && userScopes.length === 0)
      return { ok: false, problem: 'Invalid permissions requested: scope or user_scope must name a scope.' };
    const given = params.get('redirect_uri') ?? undefined;
    if (this.redirectUrls.length === 0)
      return { ok: false, problem: 'The app has no Redirect URL configured (OAuth & Permissions).' };
    if (given !== undefined && !this.redirectUrls.some((c) => redirectMatches(given, c)))
      return {
        ok: false,
        problem: `redirect_uri did not match any configured URIs. Passed URI: ${given}`,
      };
    const pending: PendingAuthorization = {
      id: random(16),
      botScopes,
      userScopes,
      redirectUri: given ?? (this.redirectUrls[0] as string),
      redirectUriGiven: given !== undefined,
      state: params.get('state') ?? undefined,
      team: params.get('team') ?? undefined,
    };
    this.#pending.set(pending.id, pending);
    return { ok: true, pending };
  }

  pending(id: string): PendingAuthorization | undefined {
    return this.#pending.get(id);
  }

  /**
   * The person's answer on the page: Allow gives the redirect a single-use code, Cancel gives it
   * `error=access_denied`. Returns where the browser goes next, or why the answer can't be taken.
   */
  decide(input: {
    request: string;
    team: string;
    user: string;
    allow: boolean;
  }): { ok: true; location: string } | { ok: false; problem: string } {
    const pending = this.pending(input.request);
    if (!pending) return { ok: false, problem: 'This request has expired or was already answered.' };
    const target = new URL(pending.redirectUri);
    const withState = () => {
      if (pending.state !== undefined) target.searchParams.set('state', pending.state);
      return { ok: true as const, location: target.toString() };
    };
    if (!input.allow) {
      this.#pending.delete(pending.id);
      target.searchParams.set('error', 'access_denied');
      return withState();
    }
    // An organization's id installs the app org-wide (every workspace of it); a team id, in that workspace.
    const org = this.organization(input.team);
    const workspace = this.workspace(input.team);
    if (!workspace && org.length === 0) return { ok: false, problem: `team: no workspace ${input.team}` };
    const places = workspace ? [workspace] : org;
    const person = places.map((w) => w.users.get(input.user)).find((u) => u !== undefined);
    if (!person || person.is_bot)
      return {
        ok: false,
        problem: `user: ${input.user} is no person of ${workspace?.seed.teamDomain ?? input.team}`,
      };
    this.#pending.delete(pending.id);
    const seed = (places[0] as Workspace).seed;
    const grant: Grant = {
      teamId: workspace ? seed.teamId : input.team,
      enterpriseId: seed.enterprise?.id,
      isEnterpriseInstall: !workspace,
      installerUserId: person.id,
      botUserId: seed.botUserId,
      botScopes: pending.botScopes,
      userScopes: pending.userScopes,
      active: false,
      installedAt: this.#now(),
    };
    const code = `${grant.teamId}.${random(20)}`;
    this.#codes.set(code, {
      grant,
      redirectUri: pending.redirectUri,
      redirectUriGiven: pending.redirectUriGiven,
    });
    target.searchParams.set('code', code);
    return withState();
  }

  /**
   * A code from the redirect, redeemed once by oauth.v2.access: the grant it stands for, or Slack's error.
   * `redirectUri` must be the one the authorize request named (when it named one).
   */
  redeem(
    value: string,
    redirectUri: string | undefined,
  ): { ok: true; grant: Grant } | { ok: false; error: string } {
    const code = this.#codes.get(value);
    if (!code) return { ok: false, error: 'invalid_code' };
    if (redirectUri !== undefined ? redirectUri !== code.redirectUri : code.redirectUriGiven)
      return { ok: false, error: 'bad_redirect_uri' };
    // Once only: a code redeemed again is as unknown as a made-up one.
    this.#codes.delete(value);
    return { ok: true, grant: code.grant };
  }

  /** The code is good: the app is installed (again) in the workspace; a reinstall replaces the old tokens. */
  activate(grant: Grant): void {
    const previous = this.grants.get(grant.teamId);
    if (previous) previous.active = false;
    grant.active = true;
    this.grants.set(grant.teamId, grant);
  }

  /**
   * The installation the app has in a workspace while it is installed there: its own, or its
   * organization's org-wide one. (An organization's id gives the org-wide installation.)
   */
  installation(teamId: string): Grant | undefined {
    const own = this.grants.get(teamId);
    if (own?.active) return own;
    const enterprise = this.workspace(teamId)?.seed.enterprise;
    const org = enterprise ? this.grants.get(enterprise.id) : undefined;
    return org?.active && org.isEnterpriseInstall ? org : undefined;
  }

  /**
   * The app is removed from a workspace: every token of its installation is revoked. Returns what the
   * `tokens_revoked` event lists (user ids, not tokens), or undefined when it was not installed.
   */
  uninstall(teamId: string): { bot: string[]; oauth: string[] } | undefined {
    const grant = this.grants.get(teamId);
    if (!grant?.active) return undefined;
    grant.active = false;
    return {
      bot: grant.botScopes.length > 0 ? [grant.botUserId] : [],
      oauth: grant.userScopes.length > 0 ? [grant.installerUserId] : [],
    };
  }
}
