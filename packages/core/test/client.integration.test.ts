import type { SpawnedEmulator } from '@agent-sessions/emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentSessionsClient,
  AuthenticationError,
  isActiveStatus,
  isKnownStatus,
  isSuccessStatus,
  isTerminalStatus,
  NotFoundError,
  PermissionDeniedError,
  parseHumanInput,
  SessionError,
} from '../src/index.js';
import {
  advanceUntil,
  clientFor,
  KEY_A,
  KEY_B,
  KEY_NO_INTEGRATION,
  requestsTo,
  startEmulator,
} from './helpers.js';

let emulator: SpawnedEmulator;
let client: AgentSessionsClient;

beforeAll(async () => {
  emulator = await startEmulator();
  client = clientFor(emulator);
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
});

async function pendingRequest(sessionId: string) {
  for (const m of await collect(sessionId)) {
    const request = parseHumanInput(m.message);
    if (request) return request;
  }
  throw new Error('no human-input request found');
}

async function collect(sessionId: string) {
  const out = [];
  for await (const m of client.sessions.listMessages(sessionId)) out.push(m);
  return out;
}

// Spelled both ways by the spec (and by the emulator with EMULATOR_QUIRKS=complete-spelling).
const DONE = ['completed', 'complete'];
/** Working: an active status, or one outside the spec's list (EMULATOR_QUIRKS=unknown-status shows one). */
const working = (status: string) => isActiveStatus(status) || !isKnownStatus(status);
const RUNNING = (status: string) => status === 'running' || !isKnownStatus(status);

async function runUntil(sessionId: string, statuses: string[] | ((status: string) => boolean)) {
  const wanted = typeof statuses === 'function' ? statuses : (s: string) => statuses.includes(s);
  await advanceUntil(emulator, async () => wanted((await client.sessions.get(sessionId)).status));
  return client.sessions.get(sessionId);
}

describe('auth.signup', () => {
  it('creates an account shaped as the spec says, without an API key', async () => {
    const res = await client.auth.signup({
      email: 'ada@example.com',
      password: 'secret1',
      displayName: 'Ada',
    });
    expect(res.user).toMatchObject({
      email: 'ada@example.com',
      displayName: 'Ada',
      photoURL: null,
      emailVerified: false,
    });
    expect(res.user.uid).toEqual(expect.any(String));
    expect(res.idToken).toEqual(expect.any(String));
    expect(res.refreshToken).toEqual(expect.any(String));
    expect(typeof res.expiresIn).toBe('string');
  });

  it('answers 400 for an email that exists', async () => {
    await client.auth.signup({ email: 'dup@example.com', password: 'secret1' });
    const error = await client.auth.signup({ email: 'dup@example.com', password: 'secret1' }).catch((e) => e);
    expect(error).toBeInstanceOf(SessionError);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/already exists/);
  });
});

describe('sessions', () => {
  it('creates a queued session and reads its status', async () => {
    const created = await client.sessions.create({
      goal: 'write notes',
      guardrails: { maxIterations: 30, team: 'x' },
    });
    expect(created.status).toBe('queued');
    expect(created.roundId).toEqual(expect.any(String));
    const status = await client.sessions.get(created.sessionId);
    expect(status).toMatchObject({ sessionId: created.sessionId, message: 'write notes', statusKnown: true });
    expect(status.cost).toMatchObject({ totalCost: 0, totalTokens: 0 });
    expect(status.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(status.rounds).toHaveLength(1);
  });

  it('runs the complete scenario to the end with a report', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'ship it' });
    const final = await runUntil(sessionId, DONE);
    expect(final.completedAt).toMatch(/^\d{4}-/);
    expect(final.completionReport).toMatchObject({ summary: 'Completed: ship it' });
    expect(final.cost.totalCost).toBeGreaterThan(0);
    expect(final.cost.totalTokens).toBe(final.cost.promptTokens + final.cost.completionTokens);
  });

  it('accepts X-Service-Key as well as Bearer', async () => {
    const keyed = clientFor(emulator, { authHeader: 'x-service-key' });
    const { sessionId } = await keyed.sessions.create({ goal: 'via x-service-key' });
    expect((await keyed.sessions.get(sessionId)).sessionId).toBe(sessionId);
    await keyed.close();
  });

  it('refuses a wrong key with AuthenticationError (401)', async () => {
    const wrong = clientFor(emulator, { apiKey: 'not-a-key' });
    const error = await wrong.sessions.create({ goal: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
    await wrong.close();
  });

  it("refuses another account's session with PermissionDeniedError (403)", async () => {
    const { sessionId } = await client.sessions.create({ goal: 'mine' });
    const other = clientFor(emulator, { apiKey: KEY_B });
    for (const call of [
      () => other.sessions.get(sessionId),
      () => other.sessions.messages(sessionId),
      () => other.sessions.pause(sessionId),
      () => other.sessions.respond(sessionId, 'in_x', { approved: true }),
    ]) {
      const error = await call().catch((e) => e);
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error.status).toBe(403);
    }
    await other.close();
  });

  it('answers 404 for an unknown session and for a key without integration', async () => {
    const missing = await client.sessions.get('sess_nope').catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    const noIntegration = clientFor(emulator, { apiKey: KEY_NO_INTEGRATION });
    const error = await noIntegration.sessions.create({ goal: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('integration not found');
    await noIntegration.close();
  });
});

describe('signals', () => {
  it('pauses, resumes in a new round, redirects and cancels', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'scenario:long keep going' });
    await runUntil(sessionId, RUNNING);
    const paused = await client.sessions.pause(sessionId, { reason: 'lunch' });
    expect(paused).toMatchObject({ sessionId, signal: 'pause' });
    expect((await client.sessions.get(sessionId)).status).toBe('paused');

    const again = await client.sessions.pause(sessionId).catch((e) => e);
    expect(again).toBeInstanceOf(SessionError);

    const resumed = await client.sessions.resume(sessionId, { message: 'carry on' });
    expect(resumed.roundId).toEqual(expect.any(String));
    const status = await client.sessions.get(sessionId);
    expect(working(status.status)).toBe(true);
    // The new round is among the rounds (not necessarily last: subagent rounds may come after it).
    expect(status.rounds.map((r) => r.roundId)).toContain(resumed.roundId);

    const redirected = await client.sessions.redirect(sessionId, { message: 'focus on docs' });
    expect(redirected.signal).toBe('redirect');
    await emulator.admin.advance(2_000);
    const messages = await collect(sessionId);
    expect(messages.some((m) => m.message.content === 'focus on docs' && m.message.role === 'user')).toBe(
      true,
    );

    const cancelled = await client.sessions.cancel(sessionId, { reason: 'done' });
    expect(cancelled.signal).toBe('cancel');
    const final = await client.sessions.get(sessionId);
    expect(final.status).toBe('cancelled');
    expect(isTerminalStatus(final.status)).toBe(true);

    const late = await client.sessions.resume(sessionId).catch((e) => e);
    expect(late).toBeInstanceOf(SessionError);
    expect(late.message).toMatch(/cancelled/);
  });

  it('stops at cost_limit and resumes only with a budget above the spend', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'scenario:cost_limit analyse' });
    const limited = await runUntil(sessionId, ['cost_limit']);
    const spend = limited.cost.totalCost;
    expect(spend).toBeGreaterThanOrEqual(0.5);

    const noBudget = await client.sessions.resume(sessionId).catch((e) => e);
    expect(noBudget).toBeInstanceOf(SessionError);
    expect(noBudget.message).toMatch(/newBudget/);
    const tooLow = await client.sessions.resume(sessionId, { newBudget: spend }).catch((e) => e);
    expect(tooLow).toBeInstanceOf(SessionError);

    const resumed = await client.sessions.resume(sessionId, { newBudget: spend + 5 });
    expect(resumed.roundId).toEqual(expect.any(String));
    const final = await runUntil(sessionId, DONE);
    expect(final.completionReport).toMatchObject({ summary: 'Analysed all 6 shards.' });
  });
});

describe('human input', () => {
  it.each([
    ['approval', { approved: false, freeText: 'too risky' }, { choiceId: 'x' }, 'Deployment skipped'],
    ['single_select', { choiceId: 'canary' }, { choiceId: 'moon' }, 'Deployed to Canary.'],
    [
      'multi_select',
      { choiceIds: ['eu', 'us'] },
      { choiceIds: ['eu', 'us', 'ap'] },
      'Deployed to 2 region(s).',
    ],
    ['free_text', { freeText: 'Aurora' }, { freeText: '   ' }, 'Release "Aurora" prepared.'],
    [
      'multi_question',
      { answers: { name: 'Aurora', channel: 'beta' } },
      { answers: { channel: 'beta' } },
      'Published.',
    ],
  ])(
    '%s: a wrong answer is refused, a right one resumes the session to its end',
    async (scenario, right, wrong, summary) => {
      const { sessionId } = await client.sessions.create({ goal: 'decide', context: { scenario } });
      await runUntil(sessionId, ['waiting_human']);
      const request = await pendingRequest(sessionId);
      expect(request.kind).toBe(scenario);

      const refused = await client.sessions.respond(sessionId, request.inputId, wrong).catch((e) => e);
      expect(refused).toBeInstanceOf(SessionError);

      const ack = await client.sessions.respond(sessionId, request.inputId, right);
      expect(ack).toMatchObject({ inputId: request.inputId, status: 'responded' });
      expect(ack.roundId).toEqual(expect.any(String));

      const twice = await client.sessions.respond(sessionId, request.inputId, right).catch((e) => e);
      expect(twice).toBeInstanceOf(SessionError);
      expect(twice.message).toMatch(/already answered at \d{4}-/);

      const final = await runUntil(sessionId, DONE);
      expect((final.completionReport as { summary: string }).summary).toContain(summary);
    },
  );

  it('answers 404 for an unknown inputId', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'scenario:approval x' });
    const error = await client.sessions.respond(sessionId, 'in_unknown', { approved: true }).catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
  });

  it('finds the request in the tool-call shape too', async () => {
    const other = await startEmulator({ humanInputShape: 'tool_call' });
    const c = new AgentSessionsClient({ baseUrl: other.url, apiKey: KEY_A });
    const { sessionId } = await c.sessions.create({ goal: 'scenario:single_select pick' });
    await advanceUntil(other, async () => (await c.sessions.get(sessionId)).status === 'waiting_human');
    const found = [];
    for await (const m of c.sessions.listMessages(sessionId)) {
      const r = parseHumanInput(m.message);
      if (r) found.push(r);
    }
    expect(found).toHaveLength(1);
    expect(found[0]?.options?.map((o) => o.id)).toEqual(['staging', 'production', 'canary']);
    await c.close();
    await other.close();
  });
});

describe('messages', () => {
  it('pages with limit and reads every message of a large round exactly once', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'scenario:chatty talk' });
    await runUntil(sessionId, DONE);
    // What a caller can see, per the emulator's rounds (its admin count also counts hidden entries).
    const visible = (await client.sessions.get(sessionId)).rounds.reduce(
      (n, r) => n + Number(r.messageCount),
      0,
    );
    const page = await client.sessions.messages(sessionId, { limit: 50 });
    // At most the limit (a service may return fewer and say hasMore: EMULATOR_QUIRKS=hidden-entries).
    expect(page.messages.length).toBeGreaterThan(0);
    expect(page.messages.length).toBeLessThanOrEqual(50);
    expect(page.pagination).toMatchObject({ count: page.messages.length, hasMore: true });
    expect(page.pagination.lastRoundId).toEqual(expect.any(String));

    const all = await collect(sessionId);
    expect(visible).toBeGreaterThan(50);
    expect(all).toHaveLength(visible);
    expect(new Set(all.map((m) => m.key)).size).toBe(all.length);
    expect(all.some((m) => (m.message.content ?? '').length > 40_000)).toBe(true);
  });

  it('follows a growing round without losing or repeating', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'scenario:growing_round notes' });
    const seen = new Map<string, string>();
    await advanceUntil(
      emulator,
      async () => {
        for await (const m of client.sessions.listMessages(sessionId, { pageSize: 7 })) {
          seen.set(m.key, String(m.message.content));
        }
        return DONE.includes((await client.sessions.get(sessionId)).status);
      },
      { stepMs: 1_500 },
    );
    for await (const m of client.sessions.listMessages(sessionId)) seen.set(m.key, String(m.message.content));
    // The growing round's notes, each once and in order (subagent rounds may add other messages).
    const contents = [...seen.values()].filter((c) => c.startsWith('Progress note'));
    expect(contents).toEqual(Array.from({ length: 30 }, (_, i) => `Progress note ${i + 1} of 30.`));
  });

  it('answers 400 for an after that is not a roundId of the session', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'x' });
    const error = await client.sessions.messages(sessionId, { after: 'round_nope' }).catch((e) => e);
    expect(error).toBeInstanceOf(SessionError);
    expect(error.message).toMatch(/after/);
  });
});

describe('waitForCompletion', () => {
  it('returns when the session needs a person, then when it finishes', async () => {
    const real = await startEmulator({ clock: 'real', speed: 50 });
    const c = new AgentSessionsClient({ baseUrl: real.url, apiKey: KEY_A });
    const { sessionId } = await c.sessions.create({ goal: 'scenario:approval go' });
    const waiting = await c.waitForCompletion(sessionId, {
      until: 'needs-person',
      intervalMs: 50,
      timeoutMs: 10_000,
    });
    expect(waiting.status).toBe('waiting_human');
    // In any round: with concurrent rounds the question may come from one older than the newest.
    const question = waiting.rounds.map((r) => parseHumanInput(r)).find((q) => q !== undefined);
    if (!question) throw new Error('no question in the rounds of a session waiting on a person');
    await c.sessions.respond(sessionId, question.inputId, { approved: true });
    const done = await c.waitForCompletion(sessionId, { intervalMs: 50, timeoutMs: 10_000 });
    expect(isSuccessStatus(done.status)).toBe(true);
    await c.close();
    await real.close();
  });

  it('gives up at its deadline with the last status', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'scenario:long forever' });
    const error = await client
      .waitForCompletion(sessionId, { intervalMs: 20, timeoutMs: 100 })
      .catch((e) => e);
    expect(error.name).toBe('WaitTimeoutError');
    expect(error.lastStatus.sessionId).toBe(sessionId);
  });
});

/** Waits (by polling the emulator's counters, not by a timer) until `route` has seen `count` requests. */
async function untilRequests(route: string, count: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await requestsTo(emulator, route)) >= count) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`${route} never reached ${count} requests`);
}

describe('retries against injected faults', () => {
  it('retries a GET through a 5xx burst and a 429', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'x' });
    const route = 'GET /v1/sessions/:id';
    const before = await requestsTo(emulator, route);
    await emulator.admin.setFaults({ burst5xx: 1, status5xx: 502 });
    expect((await client.sessions.get(sessionId)).sessionId).toBe(sessionId);
    // Exactly the 502 and its retry.
    expect(await requestsTo(emulator, route)).toBe(before + 2);
    await emulator.admin.setFaults({ rate429: 1, retryAfterSeconds: 1 });
    const limited = client.sessions.get(sessionId);
    // By event order, not time: once the 429 was served, lift it; the client's retry (after the
    // Retry-After second) is then answered.
    await untilRequests(route, before + 3);
    await emulator.admin.clearFaults();
    expect((await limited).sessionId).toBe(sessionId);
    expect(await requestsTo(emulator, route)).toBe(before + 4);
  });

  it('never retries a create whose connection dropped: exactly one reached the service', async () => {
    const before = await requestsTo(emulator, 'POST /v1/sessions');
    await emulator.admin.setFaults({ dropNext: 1, pathPattern: '^POST /v1/sessions$' });
    const error = await client.sessions.create({ goal: 'once' }).catch((e) => e);
    expect(error.name).toBe('ConnectionError');
    expect(await requestsTo(emulator, 'POST /v1/sessions')).toBe(before + 1);
    await emulator.admin.clearFaults();
  });

  it('retries a create answered 429 (not processed)', async () => {
    await emulator.admin.setFaults({ rate429: 1, retryAfterSeconds: 1, pathPattern: '^POST /v1/sessions$' });
    const before = await requestsTo(emulator, 'POST /v1/sessions');
    const pending = client.sessions.create({ goal: 'after 429' });
    await untilRequests('POST /v1/sessions', before + 1);
    await emulator.admin.clearFaults();
    expect((await pending).status).toBe('queued');
    expect(await requestsTo(emulator, 'POST /v1/sessions')).toBe(before + 2);
  });

  it('times out a slow request with TimeoutError', async () => {
    // The answer comes 200 times later than the timeout: a worker held off the processor for a second (a busy
    // machine) still wakes to its timer long before the answer exists.
    await emulator.admin.setFaults({ latencyMs: 20_000 });
    const error = await client.sessions.get('sess_any', { timeoutMs: 100, maxRetries: 0 }).catch((e) => e);
    expect(error.name).toBe('TimeoutError');
    await emulator.admin.clearFaults();
  });

  it('keeps the key out of errors', async () => {
    const error = await clientFor(emulator, { apiKey: KEY_A })
      .sessions.get('sess_missing')
      .catch((e) => e);
    const dump = JSON.stringify({
      ...error,
      message: error.message,
      stack: error.stack,
      cause: String(error.cause),
    });
    expect(dump).not.toContain(KEY_A);
  });
});
