import { slackSignature } from '../signing.js';
import type { EnvelopeType, SocketModeHub } from '../socket-mode.js';
import { randomId, type Workspace } from '../workspace.js';

export interface SendOptions {
  /** Sign with a wrong secret (the bot must refuse). */
  forgeSignature?: boolean;
  /** Shift the signed timestamp (e.g. -600 for a stale request the bot must refuse). */
  timestampOffsetSeconds?: number;
  /** Mark an Events API delivery as Slack's retry number N. */
  retryNum?: number;
  /** `X-Slack-Retry-Reason` with retryNum (default http_timeout). */
  retryReason?: string;
  /** Give up waiting for the bot's answer after this long (rejects with a TimeoutError). */
  timeoutMs?: number;
  /**
   * Headers Slack does not send, added to the signed request as a proxy on the way might add them (the
   * signature covers the timestamp and body, not the headers). HTTP only.
   */
  extraHeaders?: Record<string, string>;
}

export interface BotResponse {
  status: number;
  /** Parsed JSON when the bot answered JSON (e.g. `response_action: 'errors'`), else the text. */
  body: unknown;
}

/** One attempt at delivering an Events API event, as Slack retries it. */
export interface Delivery {
  attempt: number;
  /** The bot's HTTP status, or 'timeout' when it did not answer within the ack window. */
  status: number | 'timeout';
  /** Why this attempt was a retry (`X-Slack-Retry-Reason`); empty for the first. */
  reason: string;
  /** From sending this attempt to the bot's answer (or to giving up on it), in ms: the ack time Slack sees. */
  ms: number;
}

type Obj = Record<string, unknown>;

/**
 * Everything the sandbox sends a bot, as Slack sends it: slash commands, interactivity payloads by their
 * `type`, Events API events by theirs. The line refuses to send anything not listed here, so the list is
 * the whole of it: a bot's test can go through it and check that each one is acknowledged.
 */
export const SENT_TO_BOTS = {
  commands: ['slash_command'],
  interactions: ['block_actions', 'view_submission', 'view_closed'],
  events: [
    'message',
    'app_mention',
    'app_home_opened',
    'agent_session_stopped',
    'code_channel_action',
    'function_executed',
    'tokens_revoked',
    'app_uninstalled',
    'user_change',
  ],
} as const;

export type SentToBots = {
  [Kind in keyof typeof SENT_TO_BOTS]: (typeof SENT_TO_BOTS)[Kind][number];
};

/** Throws when the sandbox is about to send a bot something it does not list in SENT_TO_BOTS. */
export function checkListed(kind: 'interactions' | 'events', type: unknown): void {
  const listed: readonly string[] = SENT_TO_BOTS[kind];
  if (typeof type !== 'string' || !listed.includes(type))
    throw new Error(`sandbox driver: ${String(type)} is not in SENT_TO_BOTS.${kind}; list it there first`);
}

/**
 * The driver's line to the bot: a request signed as Slack signs it and POSTed to the bot's Request URL,
 * or the same request in a Socket Mode envelope; and Events API deliveries, retried as Slack retries.
 */
export class BotLine {
  readonly #workspace: Workspace;
  readonly #eventsUrl: string;
  readonly #signingSecret: string;
  readonly #socketMode: SocketModeHub | undefined;
  readonly #eventAckTimeoutMs: number;
  readonly #installed: () => boolean;
  readonly #orgWide: () => boolean;

  constructor(options: {
    workspace: Workspace;
    eventsUrl: string;
    signingSecret: string;
    /** Deliver over Socket Mode instead of POSTing to `eventsUrl`. */
    socketMode?: SocketModeHub;
    /** How long Slack waits for an event's ack before retrying it (Slack: 3 s). */
    eventAckTimeoutMs?: number;
    /** Whether the app is installed in the workspace (OAuth): Slack sends nothing to an app that isn't. */
    installed?: () => boolean;
    /** Whether that installation is org-wide (Enterprise Grid): payloads say `is_enterprise_install`. */
    enterpriseInstall?: () => boolean;
  }) {
    this.#installed = options.installed ?? (() => true);
    this.#orgWide = options.enterpriseInstall ?? (() => false);
    this.#eventAckTimeoutMs = options.eventAckTimeoutMs ?? 3_000;
    this.#socketMode = options.socketMode;
    this.#workspace = options.workspace;
    this.#eventsUrl = options.eventsUrl;
    this.#signingSecret = options.signingSecret;
  }

  /** The Events API wrapper Slack puts around every event, for this workspace and app. */
  #eventCallback(event: Obj): Obj {
    const { seed } = this.#workspace;
    return {
      token: 'sandbox-verification-token',
      team_id: seed.teamId,
      ...(seed.enterprise ? { enterprise_id: seed.enterprise.id } : {}),
      api_app_id: seed.appId,
      event,
      type: 'event_callback',
      event_id: `Ev${randomId('', 10)}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        {
          enterprise_id: seed.enterprise?.id ?? null,
          team_id: seed.teamId,
          user_id: seed.botUserId,
          is_bot: true,
          is_enterprise_install: this.#orgWide(),
        },
      ],
      is_ext_shared_channel: false,
      event_context: `4-${randomId('', 16)}`,
    };
  }

  /**
   * Delivers an event as Slack does: when the bot does not answer 2xx within the ack window (3 s), Slack
   * sends it again with `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`, up to 3 retries. (Slack spaces
   * its retries out — at once, after 1 minute, after 5 — the sandbox sends them at once.)
   */
  async deliverEvent(event: Obj): Promise<{ eventId: string; deliveries: Delivery[] }> {
    checkListed('events', event.type);
    const body = this.#eventCallback(event);
    // An app not installed in the workspace (OAuth) is sent no events: no delivery at all.
    if (!this.#installed()) return { eventId: String(body.event_id), deliveries: [] };
    const text = JSON.stringify(body);
    const deliveries: Delivery[] = [];
    let reason = '';
    for (let attempt = 0; attempt <= 3; attempt++) {
      let status: number | 'timeout';
      const sentAt = performance.now();
      if (this.#socketMode) {
        status = await this.#socketMode
          .deliver('events_api', body, { attempt, reason })
          .then(() => 200 as const)
          .catch(() => 'timeout' as const);
      } else {
        status = await this.send(text, 'application/json', {
          ...(attempt > 0 ? { retryNum: attempt, retryReason: reason } : {}),
          timeoutMs: this.#eventAckTimeoutMs,
        }).then(
          (r) => r.status,
          (error: Error) => {
            if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timeout' as const;
            throw error;
          },
        );
      }
      deliveries.push({ attempt, status, reason, ms: Math.round(performance.now() - sentAt) });
      const ok = typeof status === 'number' && status >= 200 && status < 300;
      this.#workspace.recordCall({
        method: String(event.type) + (event.subtype ? ` (${String(event.subtype)})` : ''),
        ...(typeof event.channel === 'string' ? { channel: event.channel } : {}),
        status: status === 'timeout' ? 0 : status,
        ok,
        ...(ok ? {} : { error: status === 'timeout' ? 'not acked in time' : `HTTP ${status}` }),
        event: { id: String(body.event_id), retry: attempt, reason },
      });
      if (ok) break;
      reason = status === 'timeout' ? (this.#socketMode ? 'timeout' : 'http_timeout') : 'http_error';
    }
    return { eventId: String(body.event_id), deliveries };
  }

  /** Whether the app's installation in this workspace is org-wide (Enterprise Grid). */
  get orgWide(): boolean {
    return this.#orgWide();
  }

  /** An interactivity payload, form-encoded as Slack sends it. */
  sendPayload(payload: Obj, options: SendOptions): Promise<BotResponse> {
    checkListed('interactions', payload.type);
    const orgWide = this.#orgWide() && typeof payload === 'object' && payload !== null;
    return this.send(
      new URLSearchParams({
        payload: JSON.stringify(orgWide ? { ...payload, is_enterprise_install: true } : payload),
      }).toString(),
      'application/x-www-form-urlencoded',
      options,
    );
  }

  /** Posts a raw body to the bot, signed as Slack signs it (or sends it as a Socket Mode envelope). */
  async send(body: string, contentType: string, options: SendOptions = {}): Promise<BotResponse> {
    if (!this.#installed()) throw new Error('sandbox driver: the app is not installed in this workspace');
    if (this.#socketMode) return this.#sendOverSocket(body, contentType);
    const timestamp = Math.floor(Date.now() / 1000) + (options.timestampOffsetSeconds ?? 0);
    const secret = options.forgeSignature ? `${this.#signingSecret}-forged` : this.#signingSecret;
    const headers: Record<string, string> = {
      ...options.extraHeaders,
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(secret, timestamp, body),
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    };
    if (options.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
    }
    const response = await fetch(this.#eventsUrl, {
      method: 'POST',
      headers,
      body,
      ...(options.timeoutMs !== undefined ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, body: parsed };
  }

  /** The same request as Socket Mode carries it: parsed, in an envelope, answered by the app's ack. */
  async #sendOverSocket(body: string, contentType: string): Promise<BotResponse> {
    let type: EnvelopeType;
    let payload: unknown;
    if (contentType.includes('json')) {
      type = 'events_api';
      payload = JSON.parse(body);
    } else {
      const form = Object.fromEntries(new URLSearchParams(body));
      if (typeof form.payload === 'string') {
        type = 'interactive';
        payload = JSON.parse(form.payload);
      } else {
        type = 'slash_commands';
        payload = form;
      }
    }
    const ack = await (this.#socketMode as SocketModeHub).deliver(type, payload);
    return { status: 200, body: ack };
  }
}
