import { describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../src/server.js';
import { inProcessEmulator, KEY } from './in-process.js';

const OTHER = 'k_two';

function setup(options: EmulatorOptions = {}) {
  const { deps, call } = inProcessEmulator('', {
    apiKeys: [KEY, OTHER],
    keysWithoutIntegration: ['k_none'],
    ...options,
  });
  const advance = (ms: number) => deps.scheduler.advance(ms);
  const create = async (goal: string, extra: object = {}) => {
    const res = await call('POST', '/v1/sessions', { goal, ...extra });
    expect(res.status).toBe(201);
    return res.body.sessionId as string;
  };
  return { deps, call, advance, create };
}

describe('contract surface', () => {
  it('serves an OpenAPI 3.1.0 document, version 0.1.0, of every route it serves', async () => {
    const { call } = setup();
    const { status, body } = await call('GET', '/openapi.json', undefined, null);
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    expect((body.info as { version: string }).version).toBe('0.1.0');
    expect(Object.keys(body.paths as object).sort()).toEqual([
      '/api/auth/signup',
      '/healthz',
      '/v1/sessions',
      '/v1/sessions/{id}',
      '/v1/sessions/{id}/human-input/{inputId}',
      '/v1/sessions/{id}/messages',
      '/v1/sessions/{id}/signal',
    ]);
  });

  it('answers {error} for unknown routes, malformed JSON, non-object bodies and missing keys', async () => {
    const { call } = setup();
    expect(await call('GET', '/v2/nothing')).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/no route/) },
    });
    expect(await call('POST', '/v1/sessions', '{"goal": ')).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/malformed JSON/) },
    });
    expect(await call('POST', '/v1/sessions', '[1]')).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/JSON object/) },
    });
    expect(await call('GET', '/v1/sessions/x', undefined, null)).toMatchObject({ status: 401 });
    expect(await call('GET', '/v1/sessions/x', undefined, 'nope')).toMatchObject({
      status: 401,
      body: { error: 'invalid API key' },
    });
  });

  it('validates create, naming the field and rule', async () => {
    const { call } = setup();
    const cases: Array<[object, RegExp]> = [
      [{}, /goal/],
      [{ goal: '' }, /goal must not be empty/],
      [{ goal: 'g', context: 'x' }, /context/],
      [{ goal: 'g', guardrails: { maxIterations: 0 } }, /maxIterations/],
      [{ goal: 'g', guardrails: { maxCostPerSession: -1 } }, /maxCostPerSession/],
      [{ goal: 'g', context: { scenario: 'nope' } }, /unknown scenario "nope"; valid scenarios: complete/],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/v1/sessions', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect((await call('POST', '/v1/sessions', { goal: 'g' }, 'k_none')).body).toEqual({
      error: 'integration not found',
    });
  });

  it('validates signup', async () => {
    const { call } = setup();
    expect(
      (await call('POST', '/api/auth/signup', { email: 'x', password: '123456' }, null)).body.error,
    ).toMatch(/email/);
    expect(
      (await call('POST', '/api/auth/signup', { email: 'a@b.co', password: '12345' }, null)).body.error,
    ).toMatch(/at least 6/);
    expect((await call('POST', '/api/auth/signup', { password: '123456' }, null)).status).toBe(400);
  });

  it('keeps extra guardrail keys and context', async () => {
    const { create, deps } = setup();
    const id = await create('g', { context: { ticket: 7 }, guardrails: { maxIterations: 5, region: 'eu' } });
    const session = deps.store.sessions.get(id);
    expect(session?.guardrails).toEqual({ maxIterations: 5, region: 'eu' });
    expect(session?.context).toEqual({ ticket: 7 });
  });
});

describe('state machine', () => {
  it('goes queued -> orchestrating -> running -> completed', async () => {
    const { create, call, advance } = setup();
    const id = await create('g');
    const seen: string[] = [];
    for (let i = 0; i < 60; i++) {
      const status = (await call('GET', `/v1/sessions/${id}`)).body.status as string;
      if (seen.at(-1) !== status) seen.push(status);
      advance(250);
    }
    expect(seen).toEqual(['queued', 'orchestrating', 'running', 'completed']);
  });

  it('refuses signals that break the rules, each with a reason', async () => {
    const { create, call, advance } = setup();
    const id = await create('scenario:long x');
    advance(2_000);
    const signal = (body: object) => call('POST', `/v1/sessions/${id}/signal`, body);
    expect((await signal({ type: 'redirect' })).body.error).toMatch(/message is required/);
    expect((await signal({ type: 'jump' })).body.error).toMatch(/type/);
    expect((await signal({ type: 'resume' })).body.error).toMatch(/only a paused or cost_limit/);
    expect((await signal({ type: 'pause' })).status).toBe(202);
    expect((await signal({ type: 'pause' })).body.error).toMatch(/already paused/);
    expect((await signal({ type: 'resume', newBudget: 0 })).body.error).toMatch(/newBudget/);
    const resumed = await signal({ type: 'resume' });
    expect(resumed).toMatchObject({ status: 202, body: { signal: 'resume', roundId: expect.any(String) } });
    expect((await signal({ type: 'cancel', reason: 'enough' })).status).toBe(202);
    expect((await signal({ type: 'pause' })).body.error).toMatch(/cancelled/);
  });

  it('pauses a round at maxIterations and continues in a new round on resume', async () => {
    const { create, call, advance } = setup();
    const id = await create('scenario:long x', { guardrails: { maxIterations: 4 } });
    advance(60_000);
    const paused = (await call('GET', `/v1/sessions/${id}`)).body;
    expect(paused.status).toBe('paused');
    const rounds = paused.rounds as Array<{ iterations: number; note?: string }>;
    expect(rounds[0]?.iterations).toBe(4);
    expect(rounds[0]?.note).toMatch(/maxIterations \(4\)/);
    expect((await call('POST', `/v1/sessions/${id}/signal`, { type: 'resume' })).status).toBe(202);
    advance(3_000);
    expect((await call('GET', `/v1/sessions/${id}`)).body.status).toBe('running');
  });

  it('ends in error for the error scenario', async () => {
    const { create, call, advance } = setup();
    const id = await create('scenario:error x');
    advance(30_000);
    const body = (await call('GET', `/v1/sessions/${id}`)).body;
    expect(body).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/deploy/),
      completionReport: null,
    });
  });

  it('supports the polling spelling of terminal statuses and other timestamp formats', async () => {
    const { create, call, advance } = setup({ terminalSpelling: 'polling', timestamps: 'firestore' });
    const id = await create('scenario:error x');
    advance(30_000);
    const body = (await call('GET', `/v1/sessions/${id}`)).body;
    expect(body.status).toBe('failed');
    expect(body.createdAt).toEqual({ _seconds: expect.any(Number), _nanoseconds: expect.any(Number) });
  });
});

describe('messages', () => {
  it('pages oldest first with count, hasMore and lastRoundId, and validates limit and after', async () => {
    const { create, call, advance } = setup();
    const id = await create('scenario:chatty x');
    advance(60_000);
    const first = (await call('GET', `/v1/sessions/${id}/messages`)).body;
    expect((first.messages as unknown[]).length).toBe(50);
    expect(first.pagination).toMatchObject({ count: 50, hasMore: true });
    const all = (await call('GET', `/v1/sessions/${id}/messages?limit=200`)).body;
    expect(all.pagination).toMatchObject({ count: 72, hasMore: false });
    for (const limit of ['0', '201', '1.5', 'ten']) {
      const res = await call('GET', `/v1/sessions/${id}/messages?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/limit must be an integer from 1 to 200/);
    }
    const res = await call('GET', `/v1/sessions/${id}/messages?after=round_x`);
    expect(res.body.error).toMatch(/after/);
  });
});

describe('faults', () => {
  it('answers 429 with Retry-After, bursts of 5xx, and leaves /healthz alone', async () => {
    const { deps, call } = setup();
    deps.faults.set({ rate429: 1, retryAfterSeconds: 7 });
    const limited = await call('GET', '/v1/sessions/x');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await call('GET', '/healthz', undefined, null)).status).toBe(200);
    deps.faults.clear();
    deps.faults.set({ burst5xx: 2, status5xx: 502 });
    expect((await call('GET', '/v1/sessions/x')).status).toBe(502);
    expect((await call('GET', '/v1/sessions/x')).status).toBe(502);
    expect((await call('GET', '/v1/sessions/x')).status).toBe(404);
  });
});
