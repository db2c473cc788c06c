import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

/** What Socket Mode wraps in an envelope, by the kind of request Slack would have POSTed. */
export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

interface PendingAck {
  resolve: (payload: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Slack's Socket Mode, server side: `apps.connections.open` hands out a ws:// URL; a connected app gets
 * `hello`, server pings, and envelopes it must acknowledge by `envelope_id` (with an optional payload,
 * the equivalent of an HTTP response body).
 */
export class SocketModeHub {
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #tickets = new Set<string>();
  readonly #sockets = new Set<WebSocket>();
  readonly #pending = new Map<string, PendingAck>();
  readonly #closeCodes: number[] = [];
  #pinger: NodeJS.Timeout | undefined;

  constructor(
    private readonly appId: string,
    private readonly ackTimeoutMs = 3_000,
  ) {}

  /** `apps.connections.open`: a one-time URL to connect with. */
  open(baseUrl: string): string {
    const ticket = randomUUID();
    this.#tickets.add(ticket);
    return `${baseUrl.replace(/^http/, 'ws')}/socket/${ticket}`;
  }

  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const ticket = /^\/socket\/([\w-]+)/.exec(request.url ?? '')?.[1];
      if (!ticket || !this.#tickets.delete(ticket)) {
        socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
        return;
      }
      this.#wss.handleUpgrade(request, socket, head, (ws) => this.#welcome(ws));
    });
    // Slack pings every few seconds; the client closes a connection that stays silent for 30 s.
    this.#pinger = setInterval(() => {
      for (const ws of this.#sockets) ws.ping();
    }, 5_000);
    this.#pinger.unref();
  }

  get connected(): number {
    return this.#sockets.size;
  }

  /**
   * How each connection that ended closed, in order: 1000 when the app closed it (a clean shutdown sends a
   * close frame), 1006 when it vanished without one (a process killed, a connection dropped).
   */
  get closeCodes(): readonly number[] {
    return this.#closeCodes;
  }

  /** Sends one envelope to a connected app and resolves with its acknowledgement's payload. */
  deliver(
    type: EnvelopeType,
    payload: unknown,
    retry: { attempt: number; reason: string } = { attempt: 0, reason: '' },
  ): Promise<unknown> {
    const ws = [...this.#sockets][0];
    if (!ws) return Promise.reject(new Error('sandbox: no app is connected in Socket Mode'));
    const envelopeId = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(envelopeId);
        reject(new Error(`sandbox: the app did not acknowledge ${type} within ${this.ackTimeoutMs} ms`));
      }, this.ackTimeoutMs);
      this.#pending.set(envelopeId, { resolve, reject, timer });
      ws.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: type !== 'events_api',
          retry_attempt: retry.attempt,
          retry_reason: retry.reason,
        }),
      );
    });
  }

  close(): void {
    if (this.#pinger) clearInterval(this.#pinger);
    for (const ws of this.#sockets) ws.terminate();
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new Error('sandbox closed'));
    }
    this.#pending.clear();
    this.#wss.close();
  }

  /** A new connection: counted, its acknowledgements heard, and greeted with Slack's `hello`. */
  #welcome(ws: WebSocket): void {
    this.#sockets.add(ws);
    ws.on('close', (code) => {
      this.#sockets.delete(ws);
      this.#closeCodes.push(code);
    });
    ws.on('message', (data) => {
      let message: { envelope_id?: string; payload?: unknown };
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      const pending = message.envelope_id ? this.#pending.get(message.envelope_id) : undefined;
      if (!pending || !message.envelope_id) return;
      clearTimeout(pending.timer);
      this.#pending.delete(message.envelope_id);
      pending.resolve(message.payload);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.#sockets.size,
        debug_info: {
          host: 'sandbox',
          started: new Date().toISOString(),
          build_number: 1,
          approximate_connection_time: 18_060,
        },
        connection_info: { app_id: this.appId },
      }),
    );
  }
}
