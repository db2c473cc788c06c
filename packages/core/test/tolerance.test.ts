import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentSessionsClient, InvalidResponseError, type Logger, parseTimestamp } from '../src/index.js';

// Shapes the spec allows (or a real service may send) that our emulator doesn't: read field by field.
const BASE = 'http://service.test';
let agent: MockAgent;
let warnings: Array<{ obj: object; msg?: string }>;
let infos: object[];
const logger: Logger = {
  debug() {},
  info: (obj) => infos.push(obj),
  warn: (obj, msg) => warnings.push({ obj, msg }),
  error() {},
};

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  warnings = [];
  infos = [];
});
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

const pool = () => agent.get(BASE);
const client = () =>
  new AgentSessionsClient({
    baseUrl: BASE,
    apiKey: 'sk_test_tolerance_41',
    dispatcher: agent,
    maxRetries: 0,
    logger,
  });

describe('responses to POSTs: the service acted, so never an error', () => {
  it('null roundId on create, signal and answer is absence', async () => {
    pool()
      .intercept({ path: '/v1/sessions', method: 'POST' })
      .reply(201, { sessionId: 's1', roundId: null, status: 'queued' });
    pool()
      .intercept({ path: '/v1/sessions/s1/signal', method: 'POST' })
      .reply(202, { sessionId: 's1', signal: 'pause', roundId: null, message: null });
    pool()
      .intercept({ path: '/v1/sessions/s1/human-input/in1', method: 'POST' })
      .reply(200, { inputId: 'in1', status: 'responded', roundId: null });
    const c = client();
    const created = await c.sessions.create({ goal: 'g' });
    expect(created).not.toHaveProperty('roundId');
    expect(created.contractIssues).toBeUndefined();
    expect(await c.sessions.pause('s1')).not.toHaveProperty('roundId');
    expect(await c.sessions.respond('s1', 'in1', { approved: true })).not.toHaveProperty('roundId');
    expect(warnings).toEqual([]);
  });

  it('a 2xx whose body does not match is returned as sent and logged once per route and shape', async () => {
    pool()
      .intercept({ path: '/v1/sessions', method: 'POST' })
      .reply(201, { id: 'odd_1', state: 'queued' })
      .times(2);
    pool().intercept({ path: '/v1/sessions/s1/signal', method: 'POST' }).reply(202, 'accepted');
    const c = client();
    const first = await c.sessions.create({ goal: 'g' });
    expect(first.raw).toEqual({ id: 'odd_1', state: 'queued' });
    expect(first.id).toBe('odd_1');
    expect(first.sessionId).toBe('');
    expect(first.contractIssues).toEqual(['sessionId: is missing', 'status: is missing']);
    await c.sessions.create({ goal: 'g' });
    const signalled = await c.sessions.cancel('s1');
    expect(signalled.raw).toBe('accepted');
    expect(signalled.contractIssues?.[0]).toMatch(/not JSON|JSON object/);
    expect(warnings.map((w) => (w.obj as { route: string }).route)).toEqual([
      'POST /v1/sessions',
      'POST /v1/sessions/{id}/signal',
    ]);
  });
});

describe('reads are tolerant field by field', () => {
  it('reads a status with odd cost, error, rounds and timestamps, keeping the originals in raw', async () => {
    const sent = {
      sessionId: 's1',
      status: 'error',
      message: null,
      cost: { totalCost: '1.25', totalTokens: null, promptTokens: '7', completionTokens: 'n/a' },
      rounds: { r1: { roundId: 'r1' }, r2: { roundId: 'r2' } },
      error: { code: 'E_TOOL', message: 'tool failed' },
      createdAt: { _seconds: 1_704_164_645, _nanoseconds: 0 },
      updatedAt: '20240102',
      completedAt: null,
      extra: { kept: true },
    };
    pool().intercept({ path: '/v1/sessions/s1' }).reply(200, sent);
    const status = await client().sessions.get('s1');
    expect(status.cost).toMatchObject({
      totalCost: 1.25,
      totalTokens: 0,
      promptTokens: 7,
      completionTokens: 0,
    });
    expect(status.rounds.map((r) => r.roundId)).toEqual(['r1', 'r2']);
    expect(status.error).toBe('tool failed');
    expect(status.message).toBeNull();
    expect(status.createdAt).toBe('2024-01-02T03:04:05.000Z');
    expect(status.updatedAt).toBe('20240102');
    expect(status.completedAt).toBeNull();
    expect(status.extra).toEqual({ kept: true });
    expect(status.raw).toEqual(sent);
  });

  it('reads rounds that are not an array as none, and a string error as is', async () => {
    pool()
      .intercept({ path: '/v1/sessions/s1' })
      .reply(200, { sessionId: 's1', status: 'running', rounds: 'r1,r2', error: 'boom' });
    const status = await client().sessions.get('s1');
    expect(status.rounds).toEqual([]);
    expect(status.raw.rounds).toBe('r1,r2');
    expect(status.error).toBe('boom');
  });

  it('keeps every message: no role, no content, content null beside toolCalls, content as parts', async () => {
    const messages = [
      { roundId: 'r1', content: 'plain' },
      { roundId: 'r1', role: 'assistant' },
      { roundId: 'r1', role: 'assistant', content: null, toolCalls: [{ id: 't1', name: 'search' }] },
      {
        roundId: 'r2',
        role: 'assistant',
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', url: 'x' },
          { type: 'text', text: 'second' },
        ],
      },
      { roundId: 'r2', role: 7, content: { note: 'an object' }, timestamp: '1700000000' },
    ];
    pool()
      .intercept({ path: '/v1/sessions/s1/messages' })
      .reply(200, {
        sessionId: 's1',
        messages,
        pagination: { count: '5', hasMore: 'false', lastRoundId: null },
      });
    const page = await client().sessions.messages('s1');
    expect(page.messages).toHaveLength(5);
    const [a, b, c, d, e] = page.messages;
    expect(a).not.toHaveProperty('role');
    expect(a?.content).toBe('plain');
    expect(b?.content).toBeNull();
    expect(c?.content).toBeNull();
    expect(c?.toolCalls).toEqual([{ id: 't1', name: 'search' }]);
    expect(d?.content).toBe('first\nsecond');
    expect(d?.raw.content).toEqual(messages[3]?.content);
    expect(e?.role).toBe('7');
    expect(e?.content).toBe('{"note":"an object"}');
    // A digit string is not epoch seconds: kept as text.
    expect(e?.timestamp).toBe('1700000000');
    expect(page.pagination).toMatchObject({ count: 5, hasMore: false, lastRoundId: null });
  });

  it('logs an odd read once per shape, wherever in the page it is', async () => {
    const parts = { roundId: 'r1', content: [{ type: 'image', url: 'x' }] };
    pool()
      .intercept({ path: '/v1/sessions/s1/messages' })
      .reply(200, {
        messages: [parts, { roundId: 'r1', content: 'a' }, parts],
        pagination: { hasMore: false },
      })
      .times(2);
    const c = client();
    await c.sessions.messages('s1');
    await c.sessions.messages('s1');
    expect(infos).toEqual([
      {
        route: 'GET /v1/sessions/{id}/messages',
        issues: ['messages[].content: parts without text are kept in raw.content only'],
      },
    ]);
  });

  it('fails a page with a message it cannot key (no roundId) rather than skip it', async () => {
    pool()
      .intercept({ path: '/v1/sessions/s1/messages' })
      .reply(200, {
        messages: [{ roundId: 'r1', content: 'a' }, { content: 'b' }],
        pagination: { hasMore: false },
      });
    const error = await client()
      .sessions.messages('s1')
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.message).toMatch(/messages\.1\.roundId: is missing/);
  });

  it('keeps the fields in the order sent, the normalized ones after, and an own __proto__ key as a key', async () => {
    // JSON.parse makes `__proto__` an own key; copying it by assignment would set the prototype instead.
    const body = '{"sessionId":"s1","extra":1,"__proto__":{"polluted":true},"status":"running"}';
    pool()
      .intercept({ path: '/v1/sessions/s1' })
      .reply(200, body, { headers: { 'content-type': 'application/json' } });
    pool()
      .intercept({ path: '/v1/sessions/s1/messages' })
      .reply(
        200,
        '{"messages":[{"__proto__":{"polluted":true},"roundId":"r1","role":null,"content":"a"}],' +
          '"__proto__":{"polluted":true},"pagination":{"hasMore":false,"__proto__":{"polluted":true}}}',
        { headers: { 'content-type': 'application/json' } },
      );
    const c = client();
    const status = await c.sessions.get('s1');
    expect(Object.getPrototypeOf(status)).toBe(Object.prototype);
    expect(Object.hasOwn(status, '__proto__')).toBe(true);
    expect((status as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(status).slice(0, 5)).toEqual([
      'sessionId',
      'extra',
      '__proto__',
      'status',
      'statusKnown',
    ]);
    const page = await c.sessions.messages('s1');
    const [message] = page.messages;
    for (const value of [page, page.pagination, message]) {
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.hasOwn(value as object, '__proto__')).toBe(true);
      expect((value as Record<string, unknown>).polluted).toBeUndefined();
    }
    // A null role is absence, as for a message without one.
    expect(message).not.toHaveProperty('role');
    expect(Object.keys(message ?? {})).toEqual(['__proto__', 'roundId', 'content', 'timestamp', 'raw']);
  });

  it('keeps the headers of a 2xx it cannot read on the error (the request id)', async () => {
    pool()
      .intercept({ path: '/v1/sessions/s1' })
      .reply(200, 'not json', { headers: { 'X-Request-Id': 'req_7' } });
    const error = await client()
      .sessions.get('s1')
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.requestId).toBe('req_7');
    expect(error.headers['x-request-id']).toBe('req_7');
  });

  it('fails a status without a status (the one field a follower cannot do without)', async () => {
    pool().intercept({ path: '/v1/sessions/s1' }).reply(200, { sessionId: 's1', status: null });
    const error = await client()
      .sessions.get('s1')
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.message).toMatch(/status: is missing/);
  });
});

describe('timestamps', () => {
  it.each([
    [1_704_164_645, '2024-01-02T03:04:05.000Z'],
    [1_704_164_645_000, '2024-01-02T03:04:05.000Z'],
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02T04:04:05+01:00', '2024-01-02T03:04:05.000Z'],
    ['20240102T030405Z', '2024-01-02T03:04:05.000Z'],
    ['Tue, 02 Jan 2024 03:04:05 GMT', '2024-01-02T03:04:05.000Z'],
    [{ seconds: 1_704_164_645, nanoseconds: 5_000_000 }, '2024-01-02T03:04:05.005Z'],
  ])('reads %j as %s', (value, iso) => {
    expect(parseTimestamp(value)).toBe(iso);
  });

  it.each(['20240102', '1704164645', '1', '12 3', 'soon'])('does not guess at %j', (value) => {
    expect(parseTimestamp(value)).toBeUndefined();
  });
});
