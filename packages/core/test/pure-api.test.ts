import type { SpawnedEmulator } from '@agent-sessions/emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiRequest,
  type ApiResponse,
  buildAnswer,
  createSessionsApi,
  isSuccessStatus,
  NotFoundError,
  parseHumanInput,
  SessionError,
  ValidationError,
} from '../src/pure.js';
import { KEY_A, startEmulator } from './helpers.js';

// The pure sessions API as the n8n node uses it: our own request function (here global fetch, there
// n8n's httpRequestWithAuthentication) and our own sleep (here the emulator's manual clock).
let emulator: SpawnedEmulator;
const sent: ApiRequest[] = [];

async function request(req: ApiRequest): Promise<ApiResponse> {
  sent.push(req);
  const url = new URL(req.path, emulator.url);
  for (const [k, v] of Object.entries(req.query ?? {}))
    if (v !== undefined) url.searchParams.set(k, String(v));
  const response = await fetch(url, {
    method: req.method,
    headers: {
      authorization: `Bearer ${KEY_A}`,
      ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}

const slept: number[] = [];
const sessions = createSessionsApi({
  request,
  // No timer anywhere: a sleep moves the emulator's clock by as much.
  sleep: async (ms) => {
    slept.push(ms);
    await emulator.admin.advance(ms);
  },
});

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

describe('createSessionsApi over an injected request function', () => {
  it('creates, waits for a person, answers and waits for the end, on the injected sleep', async () => {
    const { sessionId } = await sessions.create({ goal: 'scenario:approval ship it' });
    const waiting = await sessions.waitForCompletion(sessionId, {
      until: 'needs-person',
      intervalMs: 500,
      timeoutMs: 600_000,
    });
    expect(waiting.status).toBe('waiting_human');
    expect(slept.length).toBeGreaterThan(0);
    expect(slept.every((ms) => ms === 500)).toBe(true);

    let question: ReturnType<typeof parseHumanInput>;
    for await (const { message } of sessions.listMessages(sessionId))
      question = parseHumanInput(message) ?? question;
    expect(question?.kind).toBe('approval');
    if (!question) return;
    const ack = await sessions.respond(
      sessionId,
      question.inputId,
      buildAnswer(question, { approved: true }),
    );
    expect(ack.status).toBe('responded');
    const done = await sessions.waitForCompletion(sessionId, { intervalMs: 500, timeoutMs: 600_000 });
    expect(isSuccessStatus(done.status)).toBe(true);
  });

  it('maps statuses to the typed errors (one factory): 404 NotFoundError, 400 SessionError', async () => {
    const missing = await sessions.get('sess_nope').catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.status).toBe(404);
    const { sessionId } = await sessions.create({ goal: 'scenario:approval twice' });
    await sessions.waitForCompletion(sessionId, { until: 'needs-person', intervalMs: 500 });
    const bad = await sessions.respond(sessionId, 'in_unknown', { approved: true }).catch((e) => e);
    expect(bad).toBeInstanceOf(NotFoundError);
    const wrong = await sessions.signal(sessionId, { type: 'resume', newBudget: -1 }).catch((e) => e);
    // Sent (the spec forbids no negative budget; the service judges it) and answered 400.
    expect(wrong).toBeInstanceOf(SessionError);
    expect(wrong).not.toBeInstanceOf(ValidationError);
    expect(wrong.sent).toBe(true);
  });
});

describe('the client refuses only what the spec forbids; the rest is sent as typed', () => {
  it('sends a blank goal, a zero budget and maxIterations 0 as given, and the service judges them', async () => {
    const before = sent.length;
    const result = await sessions
      .create({ goal: '  ', guardrails: { maxCostPerSession: 0, maxIterations: 0 } })
      .then(
        (created) => ({ created }),
        (error: unknown) => ({ error }),
      );
    expect(sent.slice(before).map((r) => r.body)).toEqual([
      { goal: '  ', guardrails: { maxCostPerSession: 0, maxIterations: 0 } },
    ]);
    // Whatever the service said, it was the service that said it.
    if ('error' in result) expect(result.error).not.toBeInstanceOf(ValidationError);
  });

  it('passes reason on resume and redirect, message on pause and cancel, and an empty answer', async () => {
    const { sessionId } = await sessions.create({ goal: 'scenario:long keep going' });
    const before = sent.length;
    await sessions.pause(sessionId, { reason: 'lunch', message: 'back at 2' });
    await sessions.resume(sessionId, { reason: 'back', message: ' carry on  ' });
    await sessions.redirect(sessionId, { message: 'focus on tests\n', reason: 'scope' });
    await sessions.cancel(sessionId, { reason: 'done', message: 'thanks' });
    await sessions.respond(sessionId, 'in_1', {}).catch(() => undefined);
    expect(sent.slice(before).map((r) => r.body)).toEqual([
      { type: 'pause', reason: 'lunch', message: 'back at 2' },
      { type: 'resume', reason: 'back', message: ' carry on  ' },
      { type: 'redirect', message: 'focus on tests\n', reason: 'scope' },
      { type: 'cancel', reason: 'done', message: 'thanks' },
      {},
    ]);
  });

  it('refuses a redirect without a message before sending, as a SessionError that was not sent', async () => {
    const before = sent.length;
    const error = await sessions.signal('s1', { type: 'redirect' } as never).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(SessionError);
    expect(error.status).toBe(400);
    expect(error.sent).toBe(false);
    expect(error.issues).toEqual([{ field: 'message', message: 'is required for a redirect' }]);
    expect(sent.length).toBe(before);
  });
});
