import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  Clock,
  FollowedMessage,
  FollowedMessagesPage,
  FollowedSession,
  ManualClock,
  ReadOptions,
  SessionsReader,
} from '../../src/index.js';

export interface Call {
  /** The follower's (manual) clock when the request was made. */
  at: number;
  op: 'get' | 'messages';
  sessionId: string;
  query?: { limit?: number; after?: string };
  /** HTTP status of a failure, 'ok' on success; undefined while in flight. */
  outcome?: number | 'ok' | 'failed';
}

/**
 * Wraps a real client (real HTTP to a real server) and records each read with the follower's clock, so a
 * test can say when requests went out without timing anything.
 */
export class RecordingReader implements SessionsReader {
  readonly calls: Call[] = [];
  outstanding = 0;

  constructor(
    readonly inner: SessionsReader,
    readonly clock: Clock,
  ) {}

  async #track<T>(call: Call, run: () => Promise<T>): Promise<T> {
    this.calls.push(call);
    this.outstanding++;
    try {
      const result = await run();
      call.outcome = 'ok';
      return result;
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      call.outcome = typeof status === 'number' ? status : 'failed';
      throw error;
    } finally {
      this.outstanding--;
    }
  }

  readonly sessions = {
    get: (sessionId: string, options?: ReadOptions): Promise<FollowedSession> =>
      this.#track({ at: this.clock.now(), op: 'get', sessionId }, () =>
        this.inner.sessions.get(sessionId, options),
      ),
    messages: (
      sessionId: string,
      query?: { limit?: number; after?: string },
      options?: ReadOptions,
    ): Promise<FollowedMessagesPage> =>
      this.#track({ at: this.clock.now(), op: 'messages', sessionId, ...(query ? { query } : {}) }, () =>
        this.inner.sessions.messages(sessionId, query, options),
      ),
  };

  of(sessionId: string): Call[] {
    return this.calls.filter((c) => c.sessionId === sessionId);
  }
}

const realDelay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Waits (real time, bounded) until no request is in flight and the follower had a few turns to react. */
export async function settle(reader: RecordingReader): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    while (reader.outstanding > 0) {
      if (Date.now() > deadline) throw new Error('a request stayed in flight for 10 s');
      await realDelay(1);
    }
    for (let i = 0; i < 5; i++) await turn();
    if (reader.outstanding === 0) return;
  }
}

/**
 * Moves the follower's clock in steps, letting every request of a step finish before the next step, until
 * `done` says so. Event order, not timing: each step is complete before the clock moves on.
 */
export async function drive(
  clock: ManualClock,
  reader: RecordingReader,
  done: () => boolean,
  { stepMs = 10, maxMs = 600_000, realPauseMs = 0 } = {},
): Promise<void> {
  const end = clock.now() + maxMs;
  await settle(reader);
  while (!done()) {
    if (clock.now() >= end) throw new Error(`condition not reached within ${maxMs} ms of follower time`);
    await clock.advance(stepMs);
    await settle(reader);
    if (realPauseMs > 0) await realDelay(realPauseMs);
  }
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface LocalServer {
  url: string;
  close(): Promise<void>;
}

function listen(server: Server): Promise<LocalServer> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * A pass-through proxy in front of the emulator that can make one session answer a status it can't
 * produce for a session that exists (403, 404): faults a real service has, the emulator hasn't.
 */
export async function startBlockingProxy(target: string) {
  const blocked = new Map<string, number>();
  const blockedHits = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const url = req.url ?? '/';
    const id = /^\/v1\/sessions\/([^/?]+)/.exec(url)?.[1];
    const status = id === undefined ? undefined : blocked.get(decodeURIComponent(id));
    if (id !== undefined && status !== undefined) {
      blockedHits.set(id, (blockedHits.get(id) ?? 0) + 1);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: status === 403 ? 'Not authorized to access this session' : 'Session not found',
        }),
      );
      return;
    }
    const body = await bodyOf(req);
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'x-service-key', 'content-type', 'accept']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = await fetch(`${target}${url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const out: Record<string, string> = {};
    for (const name of ['content-type', 'retry-after']) {
      const value = upstream.headers.get(name);
      if (value !== null) out[name] = value;
    }
    res.writeHead(upstream.status, out);
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  const local = await listen(server);
  return {
    ...local,
    block(sessionId: string, status: 403 | 404) {
      blocked.set(sessionId, status);
    },
    hitsWhileBlocked: (sessionId: string) => blockedHits.get(sessionId) ?? 0,
  };
}

/**
 * A service as the spec allows and the emulator doesn't (yet) play: concurrent rounds whose messages
 * interleave, round objects of any shape, pages that say hasMore and bring nothing. `after` reads as
 * "rounds created after X". The test sets the state; the server only answers.
 */
export async function startModelService() {
  const state = {
    status: 'running',
    updatedAt: 1,
    rounds: [] as Array<Record<string, unknown>>,
    messages: [] as FollowedMessage[],
    /** When set, messages pages are empty with hasMore: true and this lastRoundId (`times` of them). */
    stuckPage: undefined as { lastRoundId: string | null; times?: number } | undefined,
    requests: 0,
  };
  const server = createServer(async (req, res) => {
    state.requests++;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = /^\/v1\/sessions\/([^/]+)(\/messages)?$/.exec(url.pathname);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!match) return send(404, { error: 'not found' });
    const sessionId = decodeURIComponent(match[1] as string);
    if (!match[2]) {
      return send(200, {
        sessionId,
        status: state.status,
        message: 'model',
        cost: { totalCost: 0, totalTokens: 0, promptTokens: 0, completionTokens: 0 },
        rounds: state.rounds,
        createdAt: 0,
        updatedAt: state.updatedAt,
        completedAt: null,
        error: null,
        completionReport: null,
      });
    }
    if (state.stuckPage) {
      const stuck = state.stuckPage;
      if (stuck.times !== undefined && --stuck.times <= 0) state.stuckPage = undefined;
      return send(200, {
        sessionId,
        messages: [],
        pagination: { count: 0, hasMore: true, lastRoundId: stuck.lastRoundId },
      });
    }
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const after = url.searchParams.get('after');
    const order = state.rounds.map((r) => r.roundId as string);
    const later = after === null ? undefined : new Set(order.slice(order.indexOf(after) + 1));
    const all = state.messages.filter((m) => later === undefined || later.has(m.roundId));
    const page = all.slice(0, limit);
    return send(200, {
      sessionId,
      messages: page,
      pagination: {
        count: page.length,
        hasMore: all.length > page.length,
        lastRoundId: page.at(-1)?.roundId ?? null,
      },
    });
  });
  const local = await listen(server);
  return {
    ...local,
    state,
    /** Something changed: a new updatedAt, as a service would send. */
    touch() {
      state.updatedAt++;
    },
  };
}
