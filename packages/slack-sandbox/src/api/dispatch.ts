import type { IncomingMessage } from 'node:http';
import type { Hono } from 'hono';
import type { Faults } from '../limits/faults.js';
import type { RateLimiter } from '../limits/rate-limits.js';
import type { SocketModeHub } from '../socket-mode.js';
import type { ApiCall } from '../workspace.js';
import { agents } from './agents.js';
import { chat } from './chat.js';
import { codeChannels } from './code-channels.js';
import { files } from './files.js';
import { functions } from './functions.js';
import { people } from './people.js';
import { reactions } from './reactions.js';
import { streams } from './streams.js';
import { type ApiContext, type Args, type Method, SlackApiError } from './types.js';
import { views } from './views.js';

const METHODS: Record<string, Method> = {
  ...chat,
  ...views,
  ...people,
  ...files,
  ...reactions,
  ...agents,
  ...streams,
  ...codeChannels,
  ...functions,
};

/** What the fake Web API needs besides the workspace: the tokens it accepts, faults and rate limits. */
export type WebApiContext = ApiContext & {
  botToken: string;
  appToken: string;
  socketMode: SocketModeHub;
  faults?: Faults;
  rateLimiter?: RateLimiter;
  /** Which workspace a token reaches, and as whom (OAuth, several workspaces); default: the fixed tokens. */
  authenticate?: (token: string, method: string, args: Args) => TokenAuth;
  /** `oauth.v2.*`, answered without a token: the app shows its client id and secret instead. */
  oauthMethod?: (
    name: string,
    args: Args,
    authorization: string | undefined,
  ) => Record<string, unknown> | undefined;
};

/** A token's verdict: the call's context in its workspace, or Slack's error for it. */
export type TokenAuth = { ok: true; context?: Partial<WebApiContext> } | { ok: false; error: string };

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

/** The channel ids a call names (a user id given for a DM counts as its im channel too). */
function channelsOf(args: Args, ctx: ApiContext): string[] {
  const out: string[] = [];
  for (const key of ['channel', 'channel_id']) {
    const v = args[key];
    if (typeof v !== 'string' || v === '') continue;
    out.push(v);
    const resolved = ctx.workspace.channels.get(v)?.id ?? (ctx.workspace.users.has(v) ? `D${v.slice(1)}` : v);
    if (resolved !== v) out.push(resolved);
  }
  return out;
}

/**
 * Whom a token lets in: the app (its bot or app-level token, or what `authenticate` says under OAuth), or
 * a custom step's execution, whose token works like the bot's while the execution runs.
 */
function authenticate(
  ctx: WebApiContext,
  token: string,
  name: string,
  args: Args,
): { auth: TokenAuth; execution?: string } {
  const isSocketOpen = name === 'apps.connections.open';
  const execution = isSocketOpen ? undefined : ctx.workspace.workflows.byToken(token);
  if (execution) return { auth: { ok: true }, execution: execution.id };
  if (ctx.authenticate) return { auth: ctx.authenticate(token, name, args) };
  return {
    auth:
      token === (isSocketOpen ? ctx.appToken : ctx.botToken)
        ? { ok: true }
        : { ok: false, error: 'invalid_auth' },
  };
}

/** The method's answer; a message posted under a step's execution is remembered, for its clicks. */
function callMethod(method: Method, name: string, args: Args, call: WebApiContext, postedUnder?: string) {
  const body = method(args, call);
  if (postedUnder && name === 'chat.postMessage' && body.ok === true)
    call.workspace.workflows.markPosted(String(body.channel), String(body.ts), postedUnder);
  return body;
}

/** `/api/<method>`: token, injected faults, rate limits, then the method itself — in Slack's order. */
export function addWebApiRoute(app: Hono, ctx: WebApiContext): void {
  app.all('/api/:method', async (c) => {
    const name = c.req.param('method');
    let args: Args;
    try {
      args = await readArgs(c.req.raw);
    } catch {
      ctx.workspace.recordCall({ method: name, status: 200, ok: false, error: 'invalid_json' });
      return c.json({ ok: false, error: 'invalid_json' });
    }
    // The workspace the token reaches (the default one until the token says otherwise).
    let call: WebApiContext = ctx;
    // The custom step's execution whose token made the call: its posts carry it in their clicks.
    let postedUnder: string | undefined;
    let channels = channelsOf(args, ctx);
    let channel = channels.at(-1);
    const record = (entry: Omit<ApiCall, 'seq' | 'at' | 'method' | 'channel'>) =>
      call.workspace.recordCall({ method: name, ...(channel ? { channel } : {}), ...entry });
    const answer = (body: Record<string, unknown>, extra: { limit?: string; injected?: boolean } = {}) => {
      const ok = body.ok === true;
      record({ status: 200, ok, ...(ok ? {} : { error: String(body.error) }), ...extra });
      return c.json(body);
    };
    const bearer = c.req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
    const token = bearer ?? (typeof args.token === 'string' ? args.token : undefined);
    const isSocketOpen = name === 'apps.connections.open';
    // A Slack without the agent platform (SANDBOX_AGENT_FEATURES=unknown) does not know its methods;
    // under OAuth the workspace the token reaches says so (below), else the one workspace does at once.
    const decidedLater = ctx.authenticate !== undefined && token !== undefined;
    const method = !decidedLater && ctx.workspace.agent.isUnknownMethod(name) ? undefined : METHODS[name];
    const oauth = name.startsWith('oauth.') ? ctx.oauthMethod : undefined;
    if (!isSocketOpen && !method && !oauth) return answer({ ok: false, error: 'unknown_method' });
    if (!oauth) {
      if (!token) return answer({ ok: false, error: 'not_authed' });
      const { auth, execution } = authenticate(ctx, token, name, args);
      postedUnder = execution;
      if (!auth.ok) return answer({ ok: false, error: auth.error });
      if (auth.context) {
        call = { ...ctx, ...auth.context };
        channels = channelsOf(args, call);
        channel = channels.at(-1);
      }
      if (decidedLater && call.workspace.agent.isUnknownMethod(name))
        return answer({ ok: false, error: 'unknown_method' });
    }

    const fault = ctx.faults?.take(name, channels);
    if (fault?.drop) {
      record({ status: 0, ok: false, injected: true, dropped: true });
      // A connection lost mid-call: the socket closes with no answer at all.
      const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
      incoming?.socket.destroy();
      return new Response(null, { status: 502 });
    }
    if (fault) {
      const body = { ok: false, error: fault.error as string };
      record({
        status: fault.status,
        ok: false,
        error: fault.error as string,
        injected: true,
        ...(fault.retryAfter !== undefined ? { retryAfter: fault.retryAfter } : {}),
      });
      if (fault.retryAfter !== undefined) c.header('Retry-After', String(fault.retryAfter));
      return c.json(body, fault.status as 200);
    }

    if (oauth) {
      const body = oauth(name, args, c.req.header('authorization'));
      return answer(body ?? { ok: false, error: 'unknown_method' });
    }
    const verdict = call.rateLimiter?.check(name, channel);
    if (verdict && !verdict.ok) {
      record({
        status: 429,
        ok: false,
        error: 'ratelimited',
        retryAfter: verdict.retryAfterSeconds,
        limit: verdict.limit,
      });
      c.header('Retry-After', String(verdict.retryAfterSeconds));
      return c.json({ ok: false, error: 'ratelimited' }, 429);
    }

    if (isSocketOpen) return answer({ ok: true, url: ctx.socketMode.open(ctx.baseUrl()) });
    try {
      return answer(callMethod(method as Method, name, args, call, postedUnder));
    } catch (error) {
      if (error instanceof SlackApiError) return answer({ ok: false, error: error.code, ...error.extra });
      throw error;
    }
  });
}
