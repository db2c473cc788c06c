import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AgentSessionsClient,
  createSessionsApi,
  InternalServerError,
  InvalidResponseError,
  type Logger,
  RateLimitError,
} from '../src/index.js';

// Faults a real server can't be made to produce: malformed JSON, a proxy's HTML page, a Retry-After date.
const BASE = 'http://service.test';
const SECRET = 'sk_live_do_not_leak_5c2f';
let agent: MockAgent;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  await agent.close();
});

const status = { sessionId: 's1', status: 'running', cost: {}, rounds: [] };
const pool = () => agent.get(BASE);
const client = (extra: Partial<ConstructorParameters<typeof AgentSessionsClient>[0]> = {}) =>
  new AgentSessionsClient({ baseUrl: BASE, apiKey: SECRET, dispatcher: agent, ...extra });

describe('responses the emulator cannot produce', () => {
  it('reports a 200 with malformed JSON as InvalidResponseError, not retried', async () => {
    pool()
      .intercept({ path: '/v1/sessions/s1' })
      .reply(200, '{"sessionId": "s1", ', { headers: { 'content-type': 'application/json' } });
    const error = await client()
      .sessions.get('s1')
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.message).toMatch(/not JSON/);
  });

  it('reports a 200 missing sessionId as InvalidResponseError naming the field', async () => {
    pool().intercept({ path: '/v1/sessions/s1' }).reply(200, { status: 'running' });
    const error = await client()
      .sessions.get('s1')
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.message).toMatch(/sessionId/);
  });

  it('gives a clean message for a 502 HTML page from a proxy, and retries a GET through it', async () => {
    const html = '<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>';
    pool().intercept({ path: '/v1/sessions/s1' }).reply(502, html).times(3);
    const error = await client({ maxRetries: 2 })
      .sessions.get('s1')
      .catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.message).toBe('502 Bad Gateway');
    expect(error.body).toBe(html);
  });

  it('does not retry a POST that got a 500 (it may have been processed)', async () => {
    pool().intercept({ path: '/v1/sessions', method: 'POST' }).reply(500, { error: 'boom' });
    const error = await client({ maxRetries: 2 })
      .sessions.create({ goal: 'g' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.message).toBe('boom');
    agent.assertNoPendingInterceptors();
  });

  it('retries a POST answered 503 with Retry-After', async () => {
    pool()
      .intercept({ path: '/v1/sessions', method: 'POST' })
      .reply(503, { error: 'busy' }, { headers: { 'retry-after': '0' } });
    pool()
      .intercept({ path: '/v1/sessions', method: 'POST' })
      .reply(201, { sessionId: 's9', roundId: 'r', status: 'queued' });
    expect((await client().sessions.create({ goal: 'g' })).sessionId).toBe('s9');
  });

  it('honours Retry-After as an HTTP date', async () => {
    // 30 s ahead: far above any backoff step (<= 500 ms on a first retry), under the 60 s cap. The
    // sleep is aborted as soon as its length is logged, so the test doesn't wait it out.
    const date = new Date(Date.now() + 30_000).toUTCString();
    pool()
      .intercept({ path: '/v1/sessions/s1' })
      .reply(429, { error: 'slow down' }, { headers: { 'retry-after': date } });
    const controller = new AbortController();
    const delays: number[] = [];
    const logger: Logger = {
      debug: (obj) => {
        const delay = (obj as { delayMs?: number }).delayMs;
        if (delay !== undefined) {
          delays.push(delay);
          controller.abort();
        }
      },
      info() {},
      warn() {},
      error() {},
    };
    const error = await client({ logger })
      .sessions.get('s1', { signal: controller.signal })
      .catch((e) => e);
    expect(error.name).toBe('AbortError');
    // The date has one-second precision: what remained of it is between 29 and 30 seconds.
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(28_000);
    expect(delays[0]).toBeLessThanOrEqual(30_000);
  });

  it('honours retry-after-ms', async () => {
    pool()
      .intercept({ path: '/v1/sessions/s1' })
      .reply(429, { error: 'slow down' }, { headers: { 'retry-after-ms': '5' } });
    pool().intercept({ path: '/v1/sessions/s1' }).reply(200, status);
    expect((await client().sessions.get('s1')).status).toBe('running');
    agent.assertNoPendingInterceptors();
  });

  it('turns a Retry-After above the cap into RateLimitError with retryAfterMs, without sleeping', async () => {
    pool()
      .intercept({ path: '/v1/sessions/s1' })
      .reply(429, { error: 'come back later' }, { headers: { 'retry-after': '3600' } });
    const error = await client({ maxRetryAfterMs: 60_000 })
      .sessions.get('s1')
      .catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(error.message).toBe('come back later');
  });

  it('reports a connection reset mid-body as ConnectionError after retries', async () => {
    pool().intercept({ path: '/v1/sessions/s1' }).replyWithError(new Error('socket hang up')).times(3);
    const error = await client({ maxRetries: 2 })
      .sessions.get('s1')
      .catch((e) => e);
    expect(error.name).toBe('ConnectionError');
  });

  it('aborts a request and its retry sleep with AbortError', async () => {
    pool()
      .intercept({ path: '/v1/sessions/s1' })
      .reply(503, { error: 'busy' }, { headers: { 'retry-after': '30' } });
    const controller = new AbortController();
    const pending = client()
      .sessions.get('s1', { signal: controller.signal })
      .catch((e) => e);
    setTimeout(() => controller.abort(), 20);
    expect((await pending).name).toBe('AbortError');
  });

  it('keeps unknown fields and flags an unknown status', async () => {
    pool()
      .intercept({ path: '/v1/sessions/s1' })
      .reply(200, {
        ...status,
        status: 'hibernating',
        shard: 7,
        createdAt: { _seconds: 1_700_000_000, _nanoseconds: 5e8 },
      });
    const s = await client().sessions.get('s1');
    expect(s.status).toBe('hibernating');
    expect(s.statusKnown).toBe(false);
    expect((s as Record<string, unknown>).shard).toBe(7);
    expect(s.createdAt).toBe('2023-11-14T22:13:20.500Z');
  });

  it('never lets the key reach an error, a log line or inspect output', async () => {
    const lines: string[] = [];
    const logger: Logger = {
      debug: (o, m) => lines.push(JSON.stringify([o, m])),
      info: (o, m) => lines.push(JSON.stringify([o, m])),
      warn: (o, m) => lines.push(JSON.stringify([o, m])),
      error: (o, m) => lines.push(JSON.stringify([o, m])),
    };
    pool().intercept({ path: '/v1/sessions/s1' }).reply(401, { error: 'invalid API key' });
    const c = client({ logger, maxRetries: 0 });
    const error = await c.sessions.get('s1').catch((e) => e);
    const everything = [
      inspect(c, { depth: 10, showHidden: true }),
      JSON.stringify(c),
      inspect(error, { depth: 10, showHidden: true }),
      JSON.stringify(error),
      String(error.stack),
      ...lines,
    ].join('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(everything).not.toContain(SECRET);
    expect(everything).toContain('[redacted]');
  });
});

describe('base URL', () => {
  it('keeps a path prefix of the base URL', async () => {
    pool().intercept({ path: '/agents/v1/sessions/s1' }).reply(200, status);
    const c = new AgentSessionsClient({ baseUrl: `${BASE}/agents/`, apiKey: SECRET, dispatcher: agent });
    expect((await c.sessions.get('s1')).sessionId).toBe('s1');
  });

  it('sends X-Service-Key instead of Authorization when asked', async () => {
    pool()
      .intercept({ path: '/v1/sessions/s1', headers: { 'x-service-key': SECRET } })
      .reply(200, status);
    const c = new AgentSessionsClient({
      baseUrl: BASE,
      apiKey: SECRET,
      dispatcher: agent,
      authHeader: 'x-service-key',
    });
    expect((await c.sessions.get('s1')).sessionId).toBe('s1');
  });
});

describe('unknown statuses and rate-limit headers', () => {
  it('waits through an unknown status at the interval (no busy loop) and logs it once', async () => {
    const warnings: unknown[] = [];
    const logger: Logger = { debug() {}, info() {}, warn: (o) => warnings.push(o), error() {} };
    const replies = [
      ...Array.from({ length: 3 }, () => ({ ...status, status: 'hibernating' })),
      { ...status, status: 'completed' },
    ];
    // The wait's sleep is injected: each pause is recorded, none is timed.
    const slept: number[] = [];
    const sessions = createSessionsApi({
      request: async () => ({ status: 200, body: replies.shift() }),
      sleep: async (ms) => {
        slept.push(ms);
      },
      logger,
    });
    const final = await sessions.waitForCompletion('s1', { intervalMs: 30, timeoutMs: 5_000 });
    expect(final.status).toBe('completed');
    expect(slept).toEqual([30, 30, 30]);
    expect(warnings).toEqual([{ sessionId: 's1', status: 'hibernating' }]);
  });
});

describe('a 2xx whose body is cut off', () => {
  // A real server that sends the status and half a body, then drops the connection.
  async function cutting(
    status: number,
  ): Promise<{ url: string; close: () => Promise<void>; hits: () => number }> {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"sessionId": "s_cut", "sta');
      setImmediate(() => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      hits: () => hits,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it('returns a POST the service acted on without its body, sent once, never an error', async () => {
    const server = await cutting(201);
    const c = new AgentSessionsClient({ baseUrl: server.url, apiKey: SECRET, maxRetries: 2 });
    const created = await c.sessions.create({ goal: 'g' });
    expect(created.sessionId).toBe('');
    expect(created.contractIssues).toEqual(['body: expected a JSON object, got no body']);
    expect(server.hits()).toBe(1);
    await c.close();
    await server.close();
  });

  it('fails a GET whose body is cut off (and retries it)', async () => {
    const server = await cutting(200);
    const c = new AgentSessionsClient({ baseUrl: server.url, apiKey: SECRET, maxRetries: 1 });
    const error = await c.sessions.get('s_cut').catch((e) => e);
    expect(error.name).toBe('ConnectionError');
    expect(server.hits()).toBe(2);
    await c.close();
    await server.close();
  });
});
