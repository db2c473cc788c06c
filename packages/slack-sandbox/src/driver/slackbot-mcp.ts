import { slackSignature } from '../signing.js';
import type { Workspace } from '../workspace.js';

/** How to sign (or mis-sign) one call, and whom it names. */
export interface SlackbotCallOptions {
  /** Sign with a wrong secret (the bot must refuse). */
  forgeSignature?: boolean;
  /** Shift the signed timestamp (e.g. -600 for a stale request the bot must refuse). */
  timestampOffsetSeconds?: number;
  /** Name another team than this workspace's (one the app is not installed in, say). */
  teamId?: string;
  /** Name no one in `params._meta.slack` (as Slackbot's own requests that aren't a person's may). */
  anonymous?: boolean;
}

/** The bot's answer: its HTTP status and the JSON-RPC message it sent (from JSON or an SSE stream). */
export interface SlackbotReply {
  status: number;
  /** The JSON-RPC response (`result` or `error`); undefined when the body held none. */
  message: { result?: Record<string, unknown>; error?: { code: number; message: string } } | undefined;
  /** The body as sent, for tests that check nothing leaked into it. */
  text: string;
}

type Obj = Record<string, unknown>;

/**
 * Slackbot's MCP client, as it calls an app's MCP server with Slack identity auth: JSON-RPC over
 * Streamable HTTP, each request signed as Slack signs every request to an app (the app's signing
 * secret over `v0:<timestamp>:<raw body>`), the person asking named in `params._meta.slack` (`user_id`,
 * `team_id`, and `enterprise_id` on Enterprise Grid). It speaks to the bot over HTTP only, like the rest
 * of the driver; it calls whether or not the app uses Socket Mode (Slackbot reaches the server's URL).
 */
export class SlackbotMcp {
  /** The last request as sent, signature and all, for `resendLast`. */
  #last: { headers: Record<string, string>; body: string } | undefined;

  constructor(
    private readonly options: {
      workspace: Workspace;
      /**
       * The MCP server's URL, as the app's manifest gives it (`mcp_servers.<name>.url`); absent for an app
       * in Socket Mode, whose driver has no Request URL to find it beside.
       */
      url: string | undefined;
      signingSecret: string;
    },
  ) {}

  /** `initialize`, then `tools/call` for `user`, as Slackbot opens a conversation with a server and calls. */
  async callTool(
    user: string,
    tool: string,
    args: Obj = {},
    options: SlackbotCallOptions = {},
  ): Promise<SlackbotReply> {
    const init = await this.request(user, 'initialize', INITIALIZE, options);
    if (init.status !== 200) return init;
    return this.request(user, 'tools/call', { name: tool, arguments: args }, options);
  }

  /** One JSON-RPC request, signed, naming `user` (unless `anonymous`). */
  async request(
    user: string,
    method: string,
    params: Obj,
    options: SlackbotCallOptions = {},
  ): Promise<SlackbotReply> {
    const { seed } = this.options.workspace;
    const person = {
      user_id: user,
      team_id: options.teamId ?? seed.teamId,
      ...(seed.enterprise && !options.teamId ? { enterprise_id: seed.enterprise.id } : {}),
    };
    const meta = options.anonymous ? {} : { _meta: { slack: person } };
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: { ...params, ...meta },
    });
    const timestamp = Math.floor(Date.now() / 1000) + (options.timestampOffsetSeconds ?? 0);
    const secret = options.forgeSignature
      ? `${this.options.signingSecret}-forged`
      : this.options.signingSecret;
    if (!this.options.url)
      throw new Error(
        'sandbox: this driver has no Request URL (Socket Mode), so no MCP server URL for Slackbot',
      );
    this.#last = {
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': slackSignature(secret, timestamp, body),
        'user-agent': 'Slackbot-MCP-Client (sandbox)',
      },
      body,
    };
    return this.#send(this.options.url, this.#last);
  }

  /**
   * The last request sent again byte for byte, its signature and timestamp unchanged: what someone who
   * saw it on its way (a proxy, logs with bodies) could replay inside Slack's five minutes.
   */
  resendLast(): Promise<SlackbotReply> {
    if (!this.#last || !this.options.url) throw new Error('sandbox: Slackbot has sent nothing to resend');
    return this.#send(this.options.url, this.#last);
  }

  async #send(url: string, sent: { headers: Record<string, string>; body: string }): Promise<SlackbotReply> {
    const response = await fetch(url, { method: 'POST', headers: sent.headers, body: sent.body });
    const text = await response.text();
    return { status: response.status, message: messageOf(text), text };
  }
}

/**
 * JSON-RPC ids, unique across every driver in this process: two requests with the same body signed in
 * the same second would carry the same signature, which the bot takes once.
 */
let nextId = 1;

/** The 2025-era protocol Slack's own samples speak to a Slackbot MCP server. */
const PROTOCOL_VERSION = '2025-06-18';

const INITIALIZE = {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'Slackbot', version: 'sandbox' },
};

/** The JSON-RPC response in a JSON body, or the last one in an SSE stream's `data:` lines. */
function messageOf(text: string): SlackbotReply['message'] {
  const candidates = text.trimStart().startsWith('{')
    ? [text]
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim());
  let found: SlackbotReply['message'];
  for (const candidate of candidates) {
    try {
      const parsed = JSON.parse(candidate) as Obj;
      if ('result' in parsed || 'error' in parsed) found = parsed as SlackbotReply['message'];
    } catch {
      // Not JSON: not a message.
    }
  }
  return found;
}
