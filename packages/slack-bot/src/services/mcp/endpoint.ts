import type { IncomingMessage, ServerResponse } from 'node:http';
import type { toNodeHandler } from '@modelcontextprotocol/node';
import type { AuthInfo, McpServer, McpServerFactory, ServerContext } from '@modelcontextprotocol/server';
import type { CustomRoute } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import { inWorkspace, scopedKey, type Workspace } from '../../workspace.js';
import type { ActivePeople } from './active-people.js';
import { clientAddress, type ProxyTrust, proxyTrust } from './client-address.js';
import { fieldOf } from './json-rpc-body.js';
import { cancelledCalls, heldOpenCalls, OpenCalls, type RequestId } from './open-calls.js';
import { originAllowed } from './origin.js';
import type { RequestBudget } from './request-budget.js';
import type { SignInGuard } from './sign-in-guard.js';
import {
  SLACKBOT_HOST,
  SLACKBOT_TOKEN_ID,
  type SlackIdentityAuth,
  type SlackPerson,
  slackbotCaller,
} from './slack-identity.js';
import type { McpCaller, McpTokens } from './tokens.js';
import type { ToolCaller } from './tool-deps.js';
import { TurnPacer } from './turns.js';
import type { WaitSlots } from './wait-slots.js';

export interface McpEndpointSettings {
  /** MCP_ALLOWED_ORIGINS: browser origins allowed to call (hosts that aren't browsers send none). */
  allowedOrigins: string[];
  /** The largest request body read (64 KiB by default): larger is answered 413. */
  maxBodyBytes: number;
  /** MCP_PUBLIC_URL: the bot's address as hosts reach it; else the request's own Host. */
  publicUrl?: string;
  /**
   * MCP_TRUSTED_PROXIES: the peers (CIDRs, addresses, `loopback`, `uniquelocal`, …) whose
   * X-Forwarded-For names the client, for the budget of failed token checks. None: the TCP peer is.
   */
  trustedProxies?: string[];
  /** The bot's version, told to hosts. */
  version: string;
}

export const MCP_PATH = '/mcp';

/** MCP requests started per turn of the event loop, at most (see TurnPacer). */
export const REQUESTS_PER_TURN = 4;
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The routes on the bot's HTTP server: /mcp, and its RFC 9728 metadata at both addresses hosts ask. */
export function mcpRoutes(endpoint: Pick<McpEndpoint, 'handle' | 'metadata'>): CustomRoute[] {
  const metadata = (req: IncomingMessage, res: ServerResponse) => endpoint.metadata(req, res);
  return [
    {
      path: MCP_PATH,
      method: ['POST', 'GET', 'DELETE'],
      handler: (req, res) => void endpoint.handle(req, res),
    },
    { path: METADATA_PATH, method: ['GET'], handler: metadata },
    { path: `${METADATA_PATH}${MCP_PATH}`, method: ['GET'], handler: metadata },
  ];
}

/** Builds the MCP server for one request of one caller: its tools act as that person. */
export type ServerFor = (caller: ToolCaller) => McpServer | Promise<McpServer>;

/** The SDK's handler for Node's requests. */
type NodeHandler = ReturnType<typeof toNodeHandler>;

/**
 * The bot's MCP endpoint at /mcp (Streamable HTTP, the official SDK's handler), on the bot's own HTTP
 * server beside /healthz and /slack/events. Before the SDK sees a request: its Origin (DNS rebinding),
 * its client address's budget of failed token checks (429), its bearer token (a personal token from App
 * Home; else 401 naming the RFC 9728 metadata), the token's request budget (429), its person still active
 * in Slack (403), its size (413), the calls it holds open (429). The request then runs as the token's
 * workspace's work.
 */
export class McpEndpoint {
  #node: Promise<NodeHandler> | undefined;
  readonly #trust: ProxyTrust;
  readonly #open = new OpenCalls();
  readonly #pacer = new TurnPacer(REQUESTS_PER_TURN);

  constructor(
    private readonly deps: {
      tokens: Pick<McpTokens, 'verify' | 'used'>;
      /**
       * Whether the bot still serves the token's workspace (OAuth installs: SLACK_ALLOWED_TEAMS admits it
       * and it is installed). Slack's requests meet that check in Bolt's middleware; /mcp is not Slack's.
       */
      served?: (workspace: Workspace) => Promise<boolean>;
      /** Whether the token's person is still active in Slack (users.info): a leaver's tokens stop here. */
      activePeople?: Pick<ActivePeople, 'standing'>;
      /**
       * Slack identity auth (MCP_SLACK_IDENTITY): Slackbot's signed requests, each acting as the person it
       * names once `workspaceOf` finds that person's workspace served. Absent, a signed request is one
       * without a token.
       */
      slackbot?: {
        auth: Pick<SlackIdentityAuth, 'check'>;
        workspaceOf(person: SlackPerson): Promise<Workspace | undefined>;
      };
      budget: Pick<RequestBudget, 'take'>;
      /** Failed token checks per client address: refused 429 once spent, before the store is asked. */
      signIns: Pick<SignInGuard, 'admit' | 'passed'>;
      waits: Pick<WaitSlots, 'take'>;
      serverFor: ServerFor;
      settings: McpEndpointSettings;
      logger: Logger;
    },
  ) {
    this.#trust = proxyTrust(deps.settings.trustedProxies ?? []);
  }

  /**
   * The SDK, loaded with the first request that passes the checks: a bot no host calls (most, and every
   * end-to-end test's bot process but the MCP ones) never pays to load it (about 0.2 CPU-s a start).
   */
  async #loadSdk(): Promise<NodeHandler> {
    const [{ toNodeHandler }, { createMcpHandler, CLIENT_INFO_META_KEY }, { withJsonAnswers }] =
      await Promise.all([
        import('@modelcontextprotocol/node'),
        import('@modelcontextprotocol/server'),
        import('./json-answers.js'),
      ]);
    const { maxBodyBytes } = this.deps.settings;
    const onerror = (error: Error) => this.deps.logger.warn({ err: error }, 'an MCP request failed');
    const factory: McpServerFactory = (ctx) =>
      this.#serverOf(ctx.authInfo, ctx.requestInfo, CLIENT_INFO_META_KEY);
    const handler = createMcpHandler(factory, { maxRequestBodySize: maxBodyBytes, onerror });
    return toNodeHandler(withJsonAnswers(handler, factory, { maxBodyBytes }), {
      maxRequestBodySize: maxBodyBytes,
      onerror,
    });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.#pacer.turn();
      const origin = header(req, 'origin');
      if (!originAllowed(origin, this.deps.settings.allowedOrigins))
        return refuse(res, 403, 'Origin not allowed: set MCP_ALLOWED_ORIGINS to call from this page');
      const declared = Number(header(req, 'content-length') ?? 0);
      if (declared > this.deps.settings.maxBodyBytes)
        return refuse(res, 413, `the request body is larger than ${this.deps.settings.maxBodyBytes} bytes`);
      const signed = this.#signedBySlack(req) ? await this.#slackbotCall(req, res) : undefined;
      if (signed === null) return; // refused, saying why
      const caller = signed ? signed.caller : await this.#caller(req, res);
      if (!caller) return;
      if (!signed && this.deps.served && !(await this.deps.served(caller.workspace)))
        return refuse(
          res,
          403,
          'This token’s workspace is no longer served by this bot (the app was removed from it, or it is not in SLACK_ALLOWED_TEAMS)',
        );
      // Per person, not per token: more tokens buy no more requests. (Slackbot listing tools is no one's.)
      const budget = signed?.anonymous
        ? { allowed: true as const, retryAfterSeconds: 0 }
        : this.deps.budget.take(scopedKey(caller.workspace.key, caller.userId));
      if (!budget.allowed) {
        res.setHeader('retry-after', String(budget.retryAfterSeconds));
        return refuse(
          res,
          429,
          `your request budget is spent (MCP_REQUESTS_PER_MINUTE, shared by all your tokens): try again in ${budget.retryAfterSeconds} s`,
        );
      }
      const standing = signed?.anonymous ? undefined : await this.deps.activePeople?.standing(caller);
      if (standing && !standing.active) {
        if (!standing.gone) res.setHeader('retry-after', String(standing.retryAfterSeconds));
        return refuse(res, standing.gone ? 403 : 503, standing.message);
      }
      const body = signed
        ? signed.body
        : req.method === 'POST'
          ? await readBody(req, this.deps.settings.maxBodyBytes)
          : undefined;
      if (body === TOO_LARGE)
        return refuse(res, 413, `the request body is larger than ${this.deps.settings.maxBodyBytes} bytes`);
      const gone = this.#hold(caller, body, res);
      if (gone === null) return; // refused, naming the limit
      // A host giving up on a call it holds open here (its own calls only: matched by token and person).
      const cancelled = cancelledCalls(body);
      if (cancelled.length > 0) this.#open.cancel(caller, cancelled);
      // A 2025-era host names itself only in `initialize`: kept with the token, for the audit's "via MCP, …".
      const named = initializeClientName(body);
      if (!signed) void this.deps.tokens.used(caller, named);
      const authed = Object.assign(req, {
        auth: authInfo(named ? { ...caller, lastClient: named } : caller, { gone, call: toolCall(body) }),
      });
      this.#node ??= this.#loadSdk();
      const node = await this.#node;
      await inWorkspace(caller.workspace, () => node(authed, res, body));
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'an MCP request failed');
      if (!res.headersSent) refuse(res, 500, 'the MCP request failed on our side');
      else res.end();
    }
  }

  /**
   * The calls in the body that hold their request open take slots (per person, per workspace), freed once
   * the answer is written, or when the host cancels one or goes away first: then the signal returned is
   * aborted too. Null once refused (the limit named); undefined when the body holds nothing open.
   */
  #hold(caller: McpCaller, body: unknown, res: ServerResponse): AbortSignal | undefined | null {
    const held = heldOpenCalls(body);
    if (held.length === 0) return undefined;
    const slot = this.deps.waits.take(caller.workspace.key, caller.userId, held.length);
    if (!slot.taken) {
      refuse(res, 429, slot.message);
      return null;
    }
    const ids = held.filter((id): id is RequestId => id !== undefined);
    return this.#open.hold(caller, ids, res, slot.release);
  }

  /** Slack's signature, with Slack identity auth on and no bearer token (a token speaks for itself). */
  #signedBySlack(req: IncomingMessage): boolean {
    return (
      this.deps.slackbot !== undefined &&
      header(req, 'authorization') === undefined &&
      header(req, 'x-slack-signature') !== undefined
    );
  }

  /**
   * A request Slackbot signed: its body read whole (the signature covers it), checked, and the person it
   * names in a served workspace; null once refused. A request naming no one (Slackbot listing the tools)
   * acts as no one, in no workspace: it calls no tool, so nothing is read or done for anybody.
   */
  async #slackbotCall(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ caller: McpCaller; body: unknown; anonymous: boolean } | null> {
    const slackbot = this.deps.slackbot as NonNullable<typeof this.deps.slackbot>;
    const raw = req.method === 'POST' ? await readRaw(req, this.deps.settings.maxBodyBytes) : '';
    if (raw === TOO_LARGE) {
      refuse(res, 413, `the request body is larger than ${this.deps.settings.maxBodyBytes} bytes`);
      return null;
    }
    const checked = slackbot.auth.check(req.headers, raw);
    if (!checked.ok) {
      refuse(res, checked.status, `Slack identity auth: ${checked.message}`);
      return null;
    }
    const body = raw === '' ? undefined : checked.body;
    if (!checked.person) return { caller: NO_ONE, body, anonymous: true };
    const workspace = await slackbot.workspaceOf(checked.person);
    if (!workspace) {
      refuse(res, 403, 'This Slack workspace is not served by this bot (not installed, or not admitted)');
      return null;
    }
    return { caller: slackbotCaller(checked.person, workspace), body, anonymous: false };
  }

  /** Who the bearer token acts as; undefined once the request is answered (429 or 401). */
  async #caller(req: IncomingMessage, res: ServerResponse): Promise<McpCaller | undefined> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')?.[1];
    const address = clientAddress(req, this.#trust);
    const admitted = this.deps.signIns.admit(address, token);
    if (!admitted.allowed) {
      res.setHeader('retry-after', String(admitted.retryAfterSeconds));
      refuse(
        res,
        429,
        `too many requests from this address without a valid token (MCP_FAILED_AUTH_PER_MINUTE): try again in ${admitted.retryAfterSeconds} s`,
      );
      return undefined;
    }
    const caller = token ? await this.deps.tokens.verify(token) : undefined;
    if (token && caller) this.deps.signIns.passed(address, token, admitted);
    else this.#unauthorized(req, res);
    return caller;
  }

  #serverOf(
    auth: AuthInfo | undefined,
    request: Request | undefined,
    clientInfoKey: string,
  ): McpServer | Promise<McpServer> {
    const caller = callerOf(auth);
    // Never without a caller: every request reaching the SDK passed the token check above.
    if (!caller) throw new Error('an MCP request reached the SDK without a verified token');
    const agent = request?.headers.get('user-agent') ?? undefined;
    const named = (ctx?: ServerContext) =>
      caller.tokenId === NO_ONE.tokenId || caller.tokenId === SLACKBOT_TOKEN_ID
        ? SLACKBOT_HOST
        : (clientName(ctx, clientInfoKey) ?? caller.lastClient ?? agent ?? 'an unnamed host');
    const { gone, call } = auth?.extra ?? {};
    return this.deps.serverFor({
      ...caller,
      host: (ctx) => `via MCP, ${named(ctx)}`,
      ...(gone instanceof AbortSignal ? { gone } : {}),
      ...(isToolCall(call) ? { calls: call.name, callArguments: call.arguments } : {}),
    });
  }

  /** RFC 6750 and 9728: the challenge names the metadata, which says how to get a token. */
  #unauthorized(req: IncomingMessage, res: ServerResponse): void {
    const given = header(req, 'authorization') !== undefined;
    const metadata = `${this.#base(req)}${METADATA_PATH}${MCP_PATH}`;
    if (!this.deps.settings.publicUrl) res.setHeader('cache-control', 'no-store');
    res.setHeader(
      'www-authenticate',
      `Bearer resource_metadata="${metadata}"${given ? ', error="invalid_token", error_description="The token is unknown, revoked or expired"' : ''}`,
    );
    refuse(
      res,
      401,
      given
        ? 'The token is unknown, revoked or expired: make a new one on the bot’s Home tab in Slack (Connect an agent host)'
        : 'A bearer token is required: make one on the bot’s Home tab in Slack (Connect an agent host)',
    );
  }

  /** GET /.well-known/oauth-protected-resource (RFC 9728): what this resource is and how to send a token. */
  metadata(req: IncomingMessage, res: ServerResponse): void {
    const base = this.#base(req);
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': this.#caching() });
    res.end(
      JSON.stringify({
        resource: `${base}${MCP_PATH}`,
        resource_name: 'Agent Sessions for Slack',
        bearer_methods_supported: ['header'],
        // No authorization server: each person makes their token by hand in Slack (App Home).
        authorization_servers: [],
      }),
    );
  }

  /**
   * Cacheable only when its URLs are MCP_PUBLIC_URL's: built from the request's Host and
   * X-Forwarded-Proto, a cache in between would hand one caller's to every other.
   */
  #caching(): string {
    return this.deps.settings.publicUrl ? 'max-age=3600' : 'no-store';
  }

  #base(req: IncomingMessage): string {
    const configured = this.deps.settings.publicUrl;
    if (configured) return configured.replace(/\/+$/, '');
    const secure = header(req, 'x-forwarded-proto') === 'https';
    return `${secure ? 'https' : 'http'}://${header(req, 'host') ?? 'localhost'}`;
  }
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** A JSON-RPC error body (what MCP hosts read), with the HTTP status that says the same. */
function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const authInfo = (
  caller: McpCaller,
  request: { gone: AbortSignal | undefined; call: ToolCall | undefined },
): AuthInfo => ({
  token: 'verified',
  clientId: caller.tokenId,
  scopes: [],
  expiresAt: Math.floor(new Date(caller.expiresAt).getTime() / 1000),
  extra: { caller, ...request },
});

/** One `tools/call`: the tool's name, and its arguments as the body has them (not yet checked). */
interface ToolCall {
  name: string;
  arguments: unknown;
}

/** The tool a body calls when it is one `tools/call` (not a batch); undefined otherwise. */
function toolCall(body: unknown): ToolCall | undefined {
  if (Array.isArray(body) || fieldOf(body, 'method') !== 'tools/call') return undefined;
  const params = fieldOf(body, 'params');
  const name = fieldOf(params, 'name');
  return typeof name === 'string' ? { name, arguments: fieldOf(params, 'arguments') } : undefined;
}

const isToolCall = (value: unknown): value is ToolCall => typeof fieldOf(value, 'name') === 'string';

function callerOf(auth: AuthInfo | undefined): McpCaller | undefined {
  const caller = auth?.extra?.caller;
  if (typeof caller !== 'object' || caller === null) return undefined;
  return 'tokenId' in caller && 'userId' in caller && 'workspace' in caller
    ? (caller as McpCaller)
    : undefined;
}

const TOO_LARGE = Symbol('too large');

/**
 * Slackbot naming no one: a workspace no store row belongs to (isolated under a key no installation has),
 * and no person. Only requests that call no tool run as it.
 */
const NO_ONE: McpCaller = {
  tokenId: 'slack-identity-discovery',
  userId: '',
  workspace: { key: 'slackbot:no-one', isolated: true, isEnterpriseInstall: false },
  // Good for the request it comes with, as a signature is.
  get expiresAt() {
    return new Date(Date.now() + 60_000).toISOString();
  },
};

/** The body as sent (up to `limit` bytes): a signature is over these very bytes. */
async function readRaw(req: IncomingMessage, limit: number): Promise<string | typeof TOO_LARGE> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limit) {
      req.resume(); // the rest is read and dropped, never kept
      return TOO_LARGE;
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The JSON body, read here (up to `limit` bytes, however it is sent: a chunked body has no length to
 * refuse early) so the token's checks see what the host says; handed on to the SDK parsed. Undefined
 * when it isn't JSON: the SDK answers that as the protocol says.
 */
async function readBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const raw = await readRaw(req, limit);
  if (raw === TOO_LARGE) return TOO_LARGE;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** The host's name in an `initialize` request (2025-era hosts say it there only). */
function initializeClientName(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('method' in body) || body.method !== 'initialize')
    return undefined;
  const params = 'params' in body ? body.params : undefined;
  const info =
    typeof params === 'object' && params !== null && 'clientInfo' in params ? params.clientInfo : undefined;
  if (typeof info !== 'object' || info === null || !('name' in info) || typeof info.name !== 'string')
    return undefined;
  return info.name.slice(0, 100);
}

/** The host's own name, from the request's `_meta` (2026-07-28) when it carries one. */
function clientName(ctx: ServerContext | undefined, clientInfoKey: string): string | undefined {
  const envelope: Record<string, unknown> | undefined = ctx?.mcpReq.envelope;
  const info = envelope?.[clientInfoKey];
  if (typeof info !== 'object' || info === null || !('name' in info)) return undefined;
  return typeof info.name === 'string' ? info.name.slice(0, 100) : undefined;
}
