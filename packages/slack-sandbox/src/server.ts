import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { chat } from './api/chat.js';
import { files, pendingUploads } from './api/files.js';
import { people } from './api/people.js';
import { type ApiContext, type Args, type Method, SlackApiError } from './api/types.js';
import { views } from './api/views.js';
import { SlackDriver } from './driver.js';
import { Interactions } from './interactions.js';
import { SocketModeHub } from './socket-mode.js';
import { addWebRoutes } from './web/routes.js';
import { defaultSeed, Workspace, type WorkspaceSeed } from './workspace.js';

const METHODS: Record<string, Method> = { ...chat, ...views, ...people, ...files };

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** The bot token the fake Web API accepts. */
  botToken?: string;
  /** The app-level token `apps.connections.open` accepts (Socket Mode). */
  appToken?: string;
  /** What the driver signs requests with; the bot must be configured with the same. */
  signingSecret?: string;
  seed?: WorkspaceSeed;
  /** How long a trigger_id stays valid (Slack: 3 s). */
  triggerTtlMs?: number;
  /** The emulator whose sessions the web page lists (optional). */
  emulatorUrl?: string;
}

export interface RunningSandbox {
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
  /** Points the web page at a bot: its Request URL, or 'socket' for one connected in Socket Mode. */
  connectBot(eventsUrl: string | 'socket'): void;
  close(): Promise<void>;
}

async function readArgs(request: Request): Promise<Args> {
  const url = new URL(request.url);
  const args: Args = Object.fromEntries(url.searchParams);
  if (request.method !== 'POST') return args;
  const type = request.headers.get('content-type') ?? '';
  const text = await request.text();
  if (text === '') return args;
  if (type.includes('application/json')) return { ...args, ...(JSON.parse(text) as Args) };
  return { ...args, ...Object.fromEntries(new URLSearchParams(text)) };
}

export function createSandboxApp(
  ctx: ApiContext & {
    botToken: string;
    appToken: string;
    socketMode: SocketModeHub;
    pageDriver?: () => SlackDriver | undefined;
    emulatorUrl?: () => string | undefined;
  },
): Hono {
  const app = new Hono();
  addWebRoutes(app, {
    workspace: ctx.workspace,
    driver: ctx.pageDriver ?? (() => undefined),
    emulatorUrl: ctx.emulatorUrl ?? (() => undefined),
  });
  app.all('/api/:method', async (c) => {
    let args: Args;
    try {
      args = await readArgs(c.req.raw);
    } catch {
      return c.json({ ok: false, error: 'invalid_json' });
    }
    const bearer = c.req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
    const token = bearer ?? (typeof args.token === 'string' ? args.token : undefined);
    if (c.req.param('method') === 'apps.connections.open') {
      // Socket Mode: only an app-level token opens a connection.
      if (!token) return c.json({ ok: false, error: 'not_authed' });
      if (token !== ctx.appToken) return c.json({ ok: false, error: 'invalid_auth' });
      return c.json({ ok: true, url: ctx.socketMode.open(ctx.baseUrl()) });
    }
    const method = METHODS[c.req.param('method')];
    if (!method) return c.json({ ok: false, error: 'unknown_method' });
    if (!token) return c.json({ ok: false, error: 'not_authed' });
    if (token !== ctx.botToken) return c.json({ ok: false, error: 'invalid_auth' });
    try {
      return c.json(method(args, ctx));
    } catch (error) {
      if (error instanceof SlackApiError) return c.json({ ok: false, error: error.code, ...error.extra });
      throw error;
    }
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
    const result = ctx.interactions.respond(c.req.param('id'), body);
    return c.json(result.body, result.status as 200);
  });
  app.get('/sandbox/state', (c) => c.json(ctx.workspace.snapshot()));
  app.get('/healthz', (c) => c.json({ ok: true }));
  return app;
}

export function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const workspace = new Workspace(options.seed ?? defaultSeed());
  let baseUrl = '';
  const interactions = new Interactions(workspace, () => baseUrl, options.triggerTtlMs);
  const botToken = options.botToken ?? 'xoxb-sandbox-token';
  const appToken = options.appToken ?? 'xapp-sandbox-token';
  const signingSecret = options.signingSecret ?? 'sandbox-signing-secret';
  const socketMode = new SocketModeHub(workspace.seed.appId);
  let pageDriver: SlackDriver | undefined;
  const app = createSandboxApp({
    workspace,
    interactions,
    baseUrl: () => baseUrl,
    botToken,
    appToken,
    socketMode,
    pageDriver: () => pageDriver,
    emulatorUrl: () => options.emulatorUrl,
  });
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: options.port ?? 0, hostname: host },
      (info: AddressInfo) => {
        baseUrl = `http://${host}:${info.port}`;
        resolve({
          url: baseUrl,
          apiUrl: `${baseUrl}/api/`,
          botToken,
          appToken,
          signingSecret,
          workspace,
          interactions,
          socketMode,
          driver: (eventsUrl) => new SlackDriver({ workspace, interactions, eventsUrl, signingSecret }),
          socketDriver: () =>
            new SlackDriver({ workspace, interactions, eventsUrl: '', signingSecret, socketMode }),
          connectBot: (eventsUrl) => {
            pageDriver =
              eventsUrl === 'socket'
                ? new SlackDriver({ workspace, interactions, eventsUrl: '', signingSecret, socketMode })
                : new SlackDriver({ workspace, interactions, eventsUrl, signingSecret });
          },
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
