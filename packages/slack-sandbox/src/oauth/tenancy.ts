/**
 * A sandbox's workspaces and, when asked for, its OAuth app, built together: the other workspaces beside
 * the default one, which workspace each token reaches, the drivers that play each workspace's people
 * (sending nothing to an app not installed there), and the page's choice of workspace.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import type { WebApiContext } from '../api/dispatch.js';
import { SlackDriver } from '../driver.js';
import type { Interactions } from '../interactions.js';
import type { RateLimiter, RateLimitOptions } from '../limits/rate-limits.js';
import { linkSharedChannels } from '../slack-connect.js';
import type { SocketModeHub } from '../socket-mode.js';
import { secondSeed, type Workspace, type WorkspaceSeed } from '../workspace.js';
import { OAuthApp, type OAuthOptions } from './app.js';
import { SandboxOAuth } from './sandbox-oauth.js';
import { type Tenant, Tenants } from './tenants.js';
import { oauthAuthenticator, oauthMethods, otherTenant } from './wiring.js';

export interface TenancyInput {
  workspace: Workspace;
  interactions: Interactions;
  rateLimiter: RateLimiter | undefined;
  limits: RateLimitOptions | false;
  baseUrl: () => string;
  appToken: string;
  signingSecret: string;
  eventAckTimeoutMs: number;
  socketMode: SocketModeHub;
}

/** The sandbox's options that shape its workspaces and OAuth app (see SandboxOptions). */
export interface TenancyOptions {
  oauth?: OAuthOptions | boolean;
  workspaces?: WorkspaceSeed[];
  triggerTtlMs?: number;
  waitTimeoutMs?: number;
  now?: () => number;
}

/** What a running sandbox offers about its workspaces and OAuth app (see RunningSandbox). */
export interface TenancyHandles {
  workspaces: Workspace[];
  workspaceFor(teamId: string): Workspace;
  driverFor(teamId: string, eventsUrl: string | 'socket'): SlackDriver;
  oauth: SandboxOAuth | undefined;
}

export class Tenancy {
  readonly tenants: Tenants;
  readonly oauth: SandboxOAuth | undefined;
  /** What the Web API route needs to authenticate tokens and answer `oauth.v2.*` (empty without OAuth). */
  readonly apiContext: Partial<WebApiContext>;
  readonly #app: OAuthApp | undefined;
  readonly #input: TenancyInput;
  /** Where the page's people act (a Request URL or 'socket') once a bot is connected; a driver per workspace. */
  #pageTarget: string | undefined;
  readonly #pageDrivers = new Map<string, SlackDriver>();

  constructor(input: TenancyInput, options: TenancyOptions) {
    this.#input = input;
    const { workspace } = input;
    const { oauth, now } = options;
    const seeds = options.workspaces ?? (oauth ? [secondSeed(workspace.seed.appId)] : []);
    const others = seeds.map((seed) =>
      otherTenant(seed, {
        baseUrl: input.baseUrl,
        limits: input.limits,
        ...(options.triggerTtlMs !== undefined ? { triggerTtlMs: options.triggerTtlMs } : {}),
        ...(options.waitTimeoutMs !== undefined ? { waitTimeoutMs: options.waitTimeoutMs } : {}),
        ...(now ? { now } : {}),
      }),
    );
    this.tenants = new Tenants(
      { workspace, interactions: input.interactions, rateLimiter: input.rateLimiter },
      others,
    );
    // A Slack Connect channel both workspaces list is one channel: one history.
    linkSharedChannels(this.tenants.all.map((t) => t.workspace));
    const app: OAuthOptions | undefined = oauth === true ? {} : oauth === false ? undefined : oauth;
    this.#app = app
      ? new OAuthApp(
          { ...(now ? { now } : {}), ...app },
          workspace.seed.appId,
          (id) => this.tenants.get(id)?.workspace,
          (id) => this.#organization(id).map((t) => t.workspace),
        )
      : undefined;
    this.oauth =
      this.#app &&
      new SandboxOAuth(this.#app, input.baseUrl, (teamId, eventsUrl) => {
        const target = eventsUrl ?? this.#pageTarget;
        // An org-wide installation's events come from one of its workspaces.
        const team = this.tenants.get(teamId) ? teamId : this.#organization(teamId)[0]?.workspace.seed.teamId;
        return target === undefined || team === undefined ? undefined : this.driverFor(team, target, false);
      });
    this.apiContext = this.#app
      ? {
          authenticate: oauthAuthenticator(this.#app, this.tenants, input.appToken),
          oauthMethod: oauthMethods(this.#app),
        }
      : {};
  }

  /** The workspaces of an Enterprise Grid organization. */
  #organization(enterpriseId: string): Tenant[] {
    return this.tenants.all.filter((t) => t.workspace.seed.enterprise?.id === enterpriseId);
  }

  /** Under OAuth, people's acts reach the bot only where the app is installed (`gated`), as on Slack. */
  driverFor(teamId: string, eventsUrl: string | 'socket', gated = true): SlackDriver {
    const tenant = this.tenants.get(teamId);
    if (!tenant) throw new Error(`sandbox: no workspace ${teamId}`);
    const app = this.#app;
    const socket = eventsUrl === 'socket';
    const { signingSecret, eventAckTimeoutMs, socketMode } = this.#input;
    return new SlackDriver({
      workspace: tenant.workspace,
      interactions: tenant.interactions,
      eventsUrl: socket ? '' : eventsUrl,
      signingSecret,
      eventAckTimeoutMs,
      ...(socket ? { socketMode } : {}),
      ...(gated && app ? { installed: () => app.installation(teamId) !== undefined } : {}),
      ...(app ? { enterpriseInstall: () => app.installation(teamId)?.isEnterpriseInstall ?? false } : {}),
    });
  }

  /** The driver the page uses for a workspace's people, once a bot is connected. */
  pageDriverFor(teamId: string): SlackDriver | undefined {
    if (this.#pageTarget === undefined || !this.tenants.get(teamId)) return undefined;
    const known = this.#pageDrivers.get(teamId);
    if (known) return known;
    const made = this.driverFor(teamId, this.#pageTarget);
    this.#pageDrivers.set(teamId, made);
    return made;
  }

  /** Points the page (every workspace of it) at a bot. */
  connect(target: string | 'socket'): void {
    this.#pageTarget = target;
    this.#pageDrivers.clear();
  }

  handles(): TenancyHandles {
    return {
      workspaces: this.tenants.all.map((t) => t.workspace),
      workspaceFor: (teamId) => {
        const tenant = this.tenants.get(teamId);
        if (!tenant) throw new Error(`sandbox: no workspace ${teamId}`);
        return tenant.workspace;
      },
      driverFor: (teamId, eventsUrl) => this.driverFor(teamId, eventsUrl),
      oauth: this.oauth,
    };
  }
}

/**
 * The page shows one workspace at a time: the one `?team=` or the `sandbox_team` cookie names (default:
 * the first). Returns, for the request being answered, the workspace shown.
 */
export function showOneWorkspace(app: Hono, tenants: Tenants): () => Tenant {
  const shown = new AsyncLocalStorage<Tenant>();
  app.use((c, next) =>
    shown.run(tenants.get(c.req.query('team') ?? getCookie(c, 'sandbox_team')) ?? tenants.primary, next),
  );
  return () => shown.getStore() ?? tenants.primary;
}
