import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { type AgentOptions, agentOptionsFromEnv } from './agent/options.js';
import type { AgentFeatureMode } from './agent/records.js';
import type { AgentState } from './agent/state.js';
import { addWebApiRoute, type WebApiContext } from './api/dispatch.js';
import { pendingUploads } from './api/files.js';
import { MAX_BLOCKS_CHARS } from './blockkit/size.js';
import type { SlackDriver } from './driver.js';
import { limitBodies, refuseForeignPages, refuseRebinding } from './guard.js';
import { Interactions } from './interactions.js';
import { type Fault, type FaultSpec, Faults, parseFaultSpec } from './limits/faults.js';
import {
  RateLimiter,
  type RateLimitOptions,
  rateLimitsFromEnv,
  resolveRateLimits,
} from './limits/rate-limits.js';
import type { OAuthOptions } from './oauth/app.js';
import { addOAuthRoutes } from './oauth/routes.js';
import type { SandboxOAuth } from './oauth/sandbox-oauth.js';
import { showOneWorkspace, Tenancy, type TenancyHandles } from './oauth/tenancy.js';
import { Tenants } from './oauth/tenants.js';
import { SocketModeHub } from './socket-mode.js';
import { addAgentRoutes } from './web/agent-routes.js';
import { addCodeChannelRoutes } from './web/code-channel-routes.js';
import { addWebRoutes } from './web/routes.js';
import { addWorkflowRoutes } from './web/workflow-routes.js';
import type { FunctionDefinitions } from './workflows/definitions.js';
import { defaultSeed, Workspace, type WorkspaceSeed } from './workspace.js';

const isLoopbackHost = (host: string) =>
  host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);

/** A value no one else knows: the sandbox's tokens and signing secret are new at each start. */
const fresh = (prefix: string) => `${prefix}${randomBytes(24).toString('hex')}`;

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** The bot token the fake Web API accepts (default: a random one, new at each start). */
  botToken?: string;
  /** The app-level token `apps.connections.open` accepts (Socket Mode; default: random, per start). */
  appToken?: string;
  /**
   * What the driver signs requests with; the bot must be configured with the same (read it from the
   * running sandbox). Default: random, new at each start, so no one else can sign as the sandbox.
   */
  signingSecret?: string;
  seed?: WorkspaceSeed;
  /** How long a trigger_id stays valid (Slack: 3 s). */
  triggerTtlMs?: number;
  /** The emulator whose sessions the web page lists (optional). */
  emulatorUrl?: string;
  /**
   * Slack's rate limits: on by default with Slack's figures, overridable here; `false` turns them off.
   * When not given, the environment decides (SANDBOX_RATE_LIMITS=off, SANDBOX_RATE_* figures).
   */
  rateLimits?: RateLimitOptions | false;
  /** The limiter's clock (ms), for tests that move time themselves. */
  now?: () => number;
  /** The per-message block budget behind `msg_blocks_too_long` (default 13,200). */
  maxBlocksChars?: number;
  /**
   * How long the workspaces' `waitFor` (and the driver's waits built on it) wait when a test names no limit
   * (default 10 s): a suite on a slow machine gives more.
   */
  waitTimeoutMs?: number;
  /** How long Slack waits for the bot to ack an event before retrying it (Slack: 3 s). */
  eventAckTimeoutMs?: number;
  /**
   * The app distributed with OAuth (opt-in): `true` or options. Then no fixed bot token is accepted: the
   * app gets its tokens by being installed (`sandbox.oauth.install(…)`), per workspace.
   */
  oauth?: OAuthOptions | boolean;
  /** Workspaces beside the default one (default: none; under OAuth, "Northwind", `secondSeed()`). */
  workspaces?: WorkspaceSeed[];
  /**
   * Slack's agent platform: `features` on (default) / off / unknown, and whether the app subscribes to
   * `agent_session_stopped` (default yes). When not given, SANDBOX_AGENT_FEATURES / SANDBOX_AGENT_STOP_EVENT.
   */
  agent?: AgentOptions;
  /**
   * The app's custom steps for Workflow Builder: the manifest's `functions` (`functionsFromManifest`).
   * Their executions complete through `functions.completeSuccess` / `completeError`, checked against them.
   */
  functions?: FunctionDefinitions;
}

/** Also: `workspaces`, `workspaceFor(teamId)`, `driverFor(teamId, eventsUrl)`, `oauth` (TenancyHandles). */
export interface RunningSandbox extends TenancyHandles {
  url: string;
  /** What a Bolt app's `clientOptions.slackApiUrl` should be. */
  apiUrl: string;
  botToken: string;
  appToken: string;
  signingSecret: string;
  workspace: Workspace;
  interactions: Interactions;
  /** A driver that plays a person against the bot listening at `eventsUrl`. */
  driver(eventsUrl: string): SlackDriver;
  /** A driver for a bot connected in Socket Mode: requests travel as envelopes over its WebSocket. */
  socketDriver(): SlackDriver;
  socketMode: SocketModeHub;
  /** Failures waiting to happen (see failNext). */
  faults: Faults;
  /** Slack's rate limits as this sandbox enforces them; undefined when they are off. */
  rateLimiter: RateLimiter | undefined;
  /**
   * Makes the next `times` calls of `method` (optionally only for `channel`) answer Slack's `error`, or
   * lose their connection (`drop: true`). The same as POST /sandbox/faults.
   */
  failNext(fault: FaultSpec): Fault;
  /** Sessions, streams, prompts and Stop clicks (the same as `workspace.agent`). */
  agent: AgentState;
  /** Switches the agent platform: `off` answers as for an app that is no agent, `unknown` as an old Slack. */
  setAgentFeatures(features: AgentFeatureMode, options?: { stopEventSubscribed?: boolean }): void;
  /** Points the web page at a bot: its Request URL, or 'socket' for one connected in Socket Mode. */
  connectBot(eventsUrl: string | 'socket'): void;
  close(): Promise<void>;
}

export function createSandboxApp(
  ctx: WebApiContext & {
    pageDriver?: () => SlackDriver | undefined;
    emulatorUrl?: () => string | undefined;
    /** Listening on the loopback only: requests naming a DNS name as their Host are refused. */
    loopbackOnly?: boolean;
    /** Several workspaces: the page shows the one chosen (`?team=` or the `sandbox_team` cookie). */
    tenants?: Tenants;
    pageDriverFor?: (teamId: string) => SlackDriver | undefined;
    oauth?: SandboxOAuth;
  },
): Hono {
  const app = new Hono();
  app.use(refuseRebinding(ctx.loopbackOnly ?? false));
  app.use(refuseForeignPages(ctx.baseUrl));
  app.use(limitBodies());
  const tenants =
    ctx.tenants ??
    new Tenants({ workspace: ctx.workspace, interactions: ctx.interactions, rateLimiter: ctx.rateLimiter });
  const page = showOneWorkspace(app, tenants);
  const pageDriver = () =>
    ctx.pageDriverFor ? ctx.pageDriverFor(page().workspace.seed.teamId) : ctx.pageDriver?.();
  addWebRoutes(app, {
    get workspace() {
      return page().workspace;
    },
    driver: pageDriver,
    emulatorUrl: ctx.emulatorUrl ?? (() => undefined),
  });
  addOAuthRoutes(app, { oauth: ctx.oauth, tenants, appName: 'Agent Sessions', shown: page });
  addAgentRoutes(app, {
    get workspace() {
      return page().workspace;
    },
    driver: pageDriver,
  });
  addCodeChannelRoutes(app, {
    get workspace() {
      return page().workspace;
    },
    driver: pageDriver,
  });
  addWorkflowRoutes(app, {
    get workspace() {
      return page().workspace;
    },
    driver: pageDriver,
  });
  addWebApiRoute(app, ctx);
  app.get('/sandbox/faults', (c) => c.json({ ok: true, faults: ctx.faults?.list() ?? [] }));
  app.post('/sandbox/faults', async (c) => {
    if (!ctx.faults) return c.json({ ok: false, error: 'this sandbox takes no faults' }, 404);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(
        { ok: false, error: 'the body must be JSON: {method, error | drop, times?, channel?}' },
        400,
      );
    }
    try {
      return c.json({ ok: true, fault: ctx.faults.add(parseFaultSpec(body)) });
    } catch (error) {
      return c.json({ ok: false, error: (error as Error).message }, 400);
    }
  });
  app.delete('/sandbox/faults', (c) => {
    ctx.faults?.clear();
    return c.json({ ok: true });
  });
  app.post('/upload/:id', async (c) => {
    const pending = pendingUploads.get(c.req.param('id'));
    if (!pending) return c.text('not found', 404);
    // The WebClient sends the bytes as multipart/form-data; a plain body is accepted too.
    if ((c.req.header('content-type') ?? '').startsWith('multipart/form-data')) {
      const form = await c.req.parseBody();
      const part = Object.values(form).find((v) => typeof v !== 'string');
      pending.content = part instanceof Blob ? await part.text() : String(Object.values(form)[0] ?? '');
    } else {
      pending.content = await c.req.text();
    }
    return c.text(`OK - ${pending.content.length}`);
  });
  app.post('/response/:id', async (c) => {
    let body: Record<string, unknown>;
    try {
      body = (await c.req.json()) as Record<string, unknown>;
    } catch {
      return c.json({ ok: false, error: 'invalid_json' }, 400);
    }
    const id = c.req.param('id');
    const result = (tenants.responding(id) ?? ctx.interactions).respond(id, body);
    return c.json(result.body, result.status as 200);
  });
  app.get('/sandbox/state', (c) => c.json(page().workspace.snapshot()));
  app.get('/healthz', (c) => c.json({ ok: true }));
  return app;
}

/** The agent platform's switches, code channels included, for one workspace. */
function configureAgent(workspace: Workspace, options: AgentOptions): void {
  workspace.agent.configure(options);
  if (options.codeChannels) workspace.codeChannels.configure(options.codeChannels);
}

/** Every workspace answers the agent methods alike and knows the app's custom steps. */
function configureTenants(tenants: Tenants, agent: AgentOptions, functions: FunctionDefinitions): void {
  for (const tenant of tenants.all) {
    configureAgent(tenant.workspace, agent);
    tenant.workspace.workflows.define(functions);
  }
}

export function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const workspace = new Workspace(options.seed ?? defaultSeed(), { waitTimeoutMs: options.waitTimeoutMs });
  const agentOptions = options.agent ?? agentOptionsFromEnv();
  configureAgent(workspace, agentOptions);
  let baseUrl = '';
  const interactions = new Interactions(workspace, () => baseUrl, options.triggerTtlMs);
  const botToken = options.botToken ?? fresh('xoxb-sandbox-');
  const appToken = options.appToken ?? fresh('xapp-sandbox-');
  const signingSecret = options.signingSecret ?? fresh('');
  const eventAckTimeoutMs = options.eventAckTimeoutMs ?? 3_000;
  const socketMode = new SocketModeHub(workspace.seed.appId, eventAckTimeoutMs);
  const limitOptions = options.rateLimits === undefined ? rateLimitsFromEnv() : options.rateLimits;
  const rateLimiter = limitOptions === false ? undefined : new RateLimiter(limitOptions, options.now);
  const faults = new Faults();
  const host = options.host ?? '127.0.0.1';
  const maxBlocksChars = options.maxBlocksChars ?? MAX_BLOCKS_CHARS;
  if (!Number.isInteger(maxBlocksChars) || maxBlocksChars < 1)
    throw new Error(`maxBlocksChars must be a whole number of at least 1, got ${maxBlocksChars}`);
  // History pages are capped even with rate limits off: the cap is what Slack gives the app at all.
  const historyPage = (rateLimiter?.config ?? resolveRateLimits()).historyPage;
  const input = { workspace, interactions, rateLimiter, limits: limitOptions, appToken, signingSecret };
  const tenancy = new Tenancy({ ...input, baseUrl: () => baseUrl, eventAckTimeoutMs, socketMode }, options);
  const home = workspace.seed.teamId;
  configureTenants(tenancy.tenants, agentOptions, options.functions ?? {});
  const callLog = process.env.SANDBOX_CALL_LOG;
  if (callLog) {
    // For measuring a suite (how many 429s, which methods): one JSON line per Web API call.
    workspace.on('change', (change) => {
      if (change.kind === 'api_call') appendFileSync(callLog, `${JSON.stringify(change.call)}\n`);
    });
  }
  const app = createSandboxApp({
    workspace,
    interactions,
    baseUrl: () => baseUrl,
    botToken,
    appToken,
    socketMode,
    faults,
    ...(rateLimiter ? { rateLimiter } : {}),
    limits: { maxBlocksChars, historyPage },
    pageDriver: () => tenancy.pageDriverFor(home),
    pageDriverFor: (teamId) => tenancy.pageDriverFor(teamId),
    tenants: tenancy.tenants,
    ...(tenancy.oauth ? { oauth: tenancy.oauth } : {}),
    ...tenancy.apiContext,
    emulatorUrl: () => options.emulatorUrl,
    loopbackOnly: isLoopbackHost(host),
  });
  const httpDriver = (eventsUrl: string) => tenancy.driverFor(home, eventsUrl);
  const socketDriver = () => tenancy.driverFor(home, 'socket');
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: options.port ?? 0, hostname: host },
      (info: AddressInfo) => {
        // A wildcard address is no place to send a browser to; its loopback is.
        const shown =
          host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
        baseUrl = `http://${shown}:${info.port}`;
        resolve({
          url: baseUrl,
          apiUrl: `${baseUrl}/api/`,
          botToken,
          appToken,
          signingSecret,
          workspace,
          interactions,
          socketMode,
          faults,
          rateLimiter,
          failNext: (fault) => faults.add(fault),
          agent: workspace.agent,
          setAgentFeatures: (features, more = {}) => workspace.agent.configure({ features, ...more }),
          driver: httpDriver,
          socketDriver,
          connectBot: (eventsUrl) => tenancy.connect(eventsUrl),
          ...tenancy.handles(),
          close: () =>
            new Promise<void>((done) => {
              socketMode.close();
              server.close(() => done());
              if ('closeAllConnections' in server) server.closeAllConnections();
            }),
        });
      },
    );
    socketMode.attach(server as HttpServer);
    server.once('error', reject);
  });
}
