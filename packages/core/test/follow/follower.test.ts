import { AsyncLocalStorage } from 'node:async_hooks';
import type { SpawnedEmulator } from '@agent-sessions/emulator/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { patient } from '../../../../test/support/patience.js';
import {
  AgentSessionsClient,
  type FollowEvent,
  Follower,
  type FollowerLogger,
  type FollowerOptions,
  type FollowState,
  InMemoryCursorStore,
  ManualClock,
  type SessionsReader,
} from '../../src/index.js';
import { clientFor, KEY_A, startEmulator } from '../helpers.js';
import { drive, RecordingReader, startBlockingProxy, startModelService } from './harness.js';

let emulator: SpawnedEmulator;
let client: AgentSessionsClient;

beforeAll(async () => {
  emulator = await startEmulator({ clock: 'real', speed: 25 });
  client = clientFor(emulator);
});
afterAll(async () => {
  await client?.close();
  await emulator?.close();
});

const fastSchedule = {
  activeMinMs: 30,
  activeMaxMs: 150,
  needsPersonMs: 60_000,
  unknownStatusMs: 200,
  errorBaseMs: 50,
};

function follower(events: FollowEvent[], extra: Partial<FollowerOptions> = {}) {
  const f = new Follower({ client, requestsPerSecond: 200, schedule: fastSchedule, ...extra });
  f.on('*', (e) => {
    events.push(e);
  });
  return f;
}

async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = patient(15_000),
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An emulator's own log of a session's messages: (roundId, position) of each. */
async function emittedKeys(sessionId: string, from: SpawnedEmulator = emulator): Promise<string[]> {
  const events = await from.admin.events({ sessionId });
  return events.filter((e) => e.type === 'message').map((e) => `${e.roundId}#${e.position}`);
}

const keysOf = (events: FollowEvent[], sessionId: string, type: FollowEvent['type']) =>
  events.filter((e) => e.sessionId === sessionId && e.type === type).map((e) => e.key);

/** A model-service message saying `content` in round `roundId`. */
const say = (roundId: string, content: string) => ({ roundId, role: 'assistant', content });
/** A model-service message asking a free-text question. */
const ask = (roundId: string, inputId: string, prompt: string) => ({
  roundId,
  role: 'assistant',
  name: 'human_input_needed',
  content: JSON.stringify({ inputId, kind: 'free_text', prompt }),
});

/**
 * A follower on a manual clock reading a model service through a RecordingReader, with its events
 * collected, stopped and closed when the test finishes. `onNextStatusRead` runs a hook once, right before
 * the next status read reaches the service.
 */
async function followModel(schedule: FollowerOptions['schedule'], extra: Partial<FollowerOptions> = {}) {
  const service = await startModelService();
  const inner = new AgentSessionsClient({ baseUrl: service.url, apiKey: KEY_A });
  let beforeStatus: (() => void) | undefined;
  const hooked: SessionsReader = {
    sessions: {
      get: (id, options) => {
        const hook = beforeStatus;
        beforeStatus = undefined;
        hook?.();
        return inner.sessions.get(id, options);
      },
      messages: (id, query, options) => inner.sessions.messages(id, query, options),
    },
  };
  const clock = new ManualClock(0);
  const reader = new RecordingReader(hooked, clock);
  const events: FollowEvent[] = [];
  const store = new InMemoryCursorStore();
  const f = new Follower({ client: reader, clock, requestsPerSecond: 50, schedule, store, ...extra });
  f.on('*', (e) => {
    events.push(e);
  });
  onTestFinished(async () => {
    await f.stop();
    await inner.close();
    await service.close();
  });
  const gets = () => reader.calls.filter((c) => c.op === 'get').length;
  return {
    service,
    clock,
    reader,
    events,
    f,
    store,
    gets,
    /** Lets the follower poll `n` more times. */
    async pollTimes(n: number) {
      const target = gets() + n;
      await drive(clock, reader, () => gets() >= target, { stepMs: 50 });
    },
    onNextStatusRead(hook: () => void) {
      beforeStatus = hook;
    },
  };
}

describe('Follower against the emulator', () => {
  it('delivers every message of growing and chatty sessions exactly once, then finishes', async () => {
    const events: FollowEvent[] = [];
    const f = follower(events);
    const growing = await client.sessions.create({ goal: 'scenario:growing_round notes' });
    const chatty = await client.sessions.create({ goal: 'scenario:chatty talk' });
    await f.follow(growing.sessionId);
    await f.follow(chatty.sessionId);
    f.start();
    await until(() => events.filter((e) => e.type === 'finished').length === 2, 30_000);
    await f.stop();
    for (const id of [growing.sessionId, chatty.sessionId]) {
      const delivered = keysOf(events, id, 'message');
      expect(delivered).toEqual(await emittedKeys(id));
      expect(new Set(delivered).size).toBe(delivered.length);
      expect(keysOf(events, id, 'finished')).toHaveLength(1);
    }
    expect(f.isFollowing(growing.sessionId)).toBe(false);
  });

  it('resumes from a saved cursor after a restart: nothing lost, nothing repeated', async () => {
    const store = new InMemoryCursorStore();
    const first: FollowEvent[] = [];
    const { sessionId } = await client.sessions.create({ goal: 'scenario:growing_round notes' });
    const a = follower(first, { store });
    await a.follow(sessionId);
    a.start();
    await until(() => first.filter((e) => e.type === 'message').length >= 5);
    await a.stop();
    expect(await store.load(sessionId)).toMatchObject({ sessionId, finished: false });

    const second: FollowEvent[] = [];
    const b = follower(second, { store });
    expect(await b.follow(sessionId)).toBe(true);
    b.start();
    await until(() => second.some((e) => e.type === 'finished'), 30_000);
    await b.stop();
    const delivered = [...keysOf(first, sessionId, 'message'), ...keysOf(second, sessionId, 'message')];
    expect(delivered).toEqual(await emittedKeys(sessionId));
    // A finished session is not followed again.
    expect(await follower([], { store }).follow(sessionId)).toBe(false);
  });

  it('re-delivers a batch whose handler failed (at least once), keys unchanged', async () => {
    const events: FollowEvent[] = [];
    const handled: string[] = [];
    let crashed = false;
    const f = follower(events);
    f.on('message', (e) => {
      handled.push(e.key);
      if (!crashed && handled.length === 2) {
        crashed = true;
        throw new Error('handler crashed');
      }
    });
    const { sessionId } = await client.sessions.create({ goal: 'scenario:complete go' });
    await f.follow(sessionId);
    f.start();
    await until(() => events.some((e) => e.type === 'finished'));
    await f.stop();
    const emitted = await emittedKeys(sessionId);
    expect(new Set(handled)).toEqual(new Set(emitted));
    // The batch that failed was read again from the last saved cursor: the message that crashed came twice.
    expect(handled.filter((k) => k === handled[1])).toHaveLength(2);
  });

  it('ends following with a fatal error event on 404', async () => {
    const events: FollowEvent[] = [];
    const f = follower(events);
    await f.follow('sess_does_not_exist');
    f.start();
    await until(() => events.some((e) => e.type === 'error'));
    await f.stop();
    const error = events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ type: 'error', fatal: true, sessionId: 'sess_does_not_exist' });
    expect(f.isFollowing('sess_does_not_exist')).toBe(false);
  });

  it('runs every handler’s call inside aroundHandler, given at construction, with its event', async () => {
    const context = new AsyncLocalStorage<string>();
    const heard: string[] = [];
    const f = follower([], {
      aroundHandler: (event, handle) => context.run(`for ${event.sessionId}`, handle),
    });
    // Subscribed after construction, each type and '*': every one runs inside it all the same.
    f.on('finished', (e) => {
      heard.push(`finished ${context.getStore()}`);
      expect(e.type).toBe('finished');
    });
    f.on('*', (e) => {
      heard.push(`${e.type} ${context.getStore()}`);
    });
    const session = await client.sessions.create({ goal: 'scenario:complete a short one' });
    await f.follow(session.sessionId);
    f.start();
    await until(() => heard.filter((line) => line.startsWith('finished')).length === 2);
    await f.stop();
    expect(heard.length).toBeGreaterThan(2);
    expect(heard.filter((line) => !line.endsWith(` for ${session.sessionId}`))).toEqual([]);
  });
});

/** Follower tests on the injectable clock: they say what happens before and after, never how long it took. */
describe('Follower on a manual clock', () => {
  let manual: SpawnedEmulator;
  let manualClient: AgentSessionsClient;
  beforeAll(async () => {
    manual = await startEmulator({ clock: 'manual' });
    manualClient = clientFor(manual);
  });
  afterAll(async () => {
    await manualClient?.close();
    await manual?.close();
  });

  const schedule = {
    activeMinMs: 100,
    activeMaxMs: 400,
    needsPersonMs: 60_000,
    unknownStatusMs: 1_000,
    errorBaseMs: 1_000,
    errorMaxMs: 60_000,
  };

  function setup(inner: AgentSessionsClient, extra: Partial<FollowerOptions> = {}) {
    const clock = new ManualClock(1_000_000);
    const reader = new RecordingReader(inner, clock);
    const events: FollowEvent[] = [];
    const warnings: Array<{ at: number; obj: Record<string, unknown>; msg: string | undefined }> = [];
    const logger: FollowerLogger = {
      debug() {},
      info() {},
      warn(obj, msg) {
        warnings.push({ at: clock.now(), obj: obj as Record<string, unknown>, msg });
      },
      error() {},
    };
    const f = new Follower({ client: reader, clock, requestsPerSecond: 50, schedule, logger, ...extra });
    f.on('*', (e) => {
      events.push(e);
    });
    return { clock, reader, events, warnings, f };
  }

  it('a 429 with Retry-After: 2 pauses every session of the key for 2 s, and nothing goes out before', async () => {
    const a = await manualClient.sessions.create({ goal: 'scenario:long forever' });
    const b = await manualClient.sessions.create({ goal: 'scenario:long forever' });
    const { clock, reader, warnings, f } = setup(manualClient);
    await manual.admin.setFaults({
      rate429: 1,
      retryAfterSeconds: 2,
      pathPattern: `^GET /v1/sessions/${a.sessionId}$`,
    });
    await f.follow(a.sessionId);
    await f.follow(b.sessionId);
    f.start();
    const limited = () => warnings.find((w) => w.msg?.includes('rate limited'));
    await drive(clock, reader, () => limited() !== undefined);
    await manual.admin.clearFaults();
    const pausedAt = (limited() as { at: number }).at;
    expect(limited()?.obj.pauseMs).toBe(2_000);
    await drive(clock, reader, () => clock.now() >= pausedAt + 3_000);
    await f.stop();

    // B was being polled every 100–400 ms before the 429: it was due many times inside the pause.
    expect(reader.of(b.sessionId).filter((c) => c.at <= pausedAt).length).toBeGreaterThan(0);
    const inPause = reader.calls.filter((c) => c.at > pausedAt && c.at < pausedAt + 2_000);
    expect(inPause).toEqual([]);
    for (const id of [a.sessionId, b.sessionId]) {
      const resumed = reader.of(id).filter((c) => c.at >= pausedAt + 2_000);
      expect(resumed.length).toBeGreaterThan(0);
      expect(resumed.every((c) => c.outcome === 'ok')).toBe(true);
    }
  });

  for (const status of [403, 404] as const) {
    it(`a ${status} mid-follow on a session that existed ends following with a fatal error event, and no request follows`, async () => {
      const proxy = await startBlockingProxy(manual.url);
      const viaProxy = new AgentSessionsClient({ baseUrl: proxy.url, apiKey: KEY_A });
      try {
        const { sessionId } = await manualClient.sessions.create({ goal: 'scenario:long forever' });
        const { clock, reader, events, f } = setup(viaProxy);
        await f.follow(sessionId);
        f.start();
        await drive(clock, reader, () => reader.of(sessionId).filter((c) => c.op === 'get').length >= 3);
        expect(reader.of(sessionId).every((c) => c.outcome === 'ok')).toBe(true);
        proxy.block(sessionId, status);
        await drive(clock, reader, () => events.some((e) => e.type === 'error'));
        const errors = events.filter((e) => e.type === 'error');
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatchObject({ fatal: true, sessionId, error: { status } });
        expect(f.isFollowing(sessionId)).toBe(false);
        // Ten minutes on: a non-fatal error would have been retried (2 s, 4 s, 8 s …) many times.
        await drive(clock, reader, () => false, { stepMs: 1_000, maxMs: 600_000 }).catch(() => {});
        await f.stop();
        expect(proxy.hitsWhileBlocked(sessionId)).toBe(1);
        expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
      } finally {
        await viaProxy.close();
        await proxy.close();
      }
    });
  }

  it('a session that keeps failing is backed off, not dropped and not hammered, and recovers', async () => {
    const { sessionId } = await manualClient.sessions.create({ goal: 'scenario:long forever' });
    const { clock, reader, events, f } = setup(manualClient);
    const failures = 6;
    await manual.admin.setFaults({
      burst5xx: failures,
      status5xx: 503,
      pathPattern: `^GET /v1/sessions/${sessionId}$`,
    });
    await f.follow(sessionId);
    f.start();
    await drive(
      clock,
      reader,
      () => reader.of(sessionId).filter((c) => c.op === 'get' && c.outcome === 'ok').length >= 1,
      { stepMs: 50 },
    );
    expect(f.isFollowing(sessionId)).toBe(true);
    await f.stop();
    await manual.admin.clearFaults();

    const gets = reader.of(sessionId).filter((c) => c.op === 'get');
    expect(gets.slice(0, failures).map((c) => c.outcome)).toEqual(Array(failures).fill(503));
    expect(gets[failures]?.outcome).toBe('ok');
    // Each wait is at least half of errorBase · 2^(n-1) (the jitter takes at most half): 500, 1000, 2000 …
    const waits = gets.slice(1, failures + 1).map((c, i) => c.at - (gets[i] as { at: number }).at);
    waits.forEach((wait, i) => {
      expect(wait).toBeGreaterThanOrEqual(schedule.errorBaseMs * 2 ** i * 0.5);
    });
    const errors = events.filter((e) => e.type === 'error');
    expect(errors.map((e) => (e.type === 'error' ? [e.fatal, e.consecutiveFailures] : []))).toEqual(
      Array.from({ length: failures }, (_, i) => [false, i + 1]),
    );
  });

  it('announces a question once, waits slowly, and polls at once when poked', async () => {
    // The emulator runs on its own clock here (real time, fast); the follower on the manual one.
    const { clock, reader, events, f } = setup(client);
    const { sessionId } = await client.sessions.create({ goal: 'scenario:approval ship' });
    await f.follow(sessionId);
    f.start();
    await drive(clock, reader, () => events.some((e) => e.type === 'human_input_needed'), {
      stepMs: 100,
      realPauseMs: 5,
    });
    const question = events.find((e) => e.type === 'human_input_needed');
    if (question?.type !== 'human_input_needed') throw new Error('unreachable');
    expect(question.request).toMatchObject({ kind: 'approval', prompt: 'Deploy v2.3.1 to production?' });
    expect(question.key).toBe(`input:${question.request.inputId}`);
    // The question may show before the status says waiting_human: wait until the follower saw the wait.
    const waits = (e: FollowEvent) => e.type === 'status' && e.status === 'waiting_human';
    await drive(clock, reader, () => events.some(waits), { stepMs: 100, realPauseMs: 5 });
    await drive(clock, reader, () => f.stats().inFlight === 0, { stepMs: 1 });
    const askedAt = clock.now();
    const callsBefore = reader.of(sessionId).length;

    await client.sessions.respond(sessionId, question.request.inputId, { approved: true });
    // A minute of follower time less a step: a session waiting on a person is not polled in it.
    await drive(clock, reader, () => clock.now() >= askedAt + schedule.needsPersonMs - 1_000, {
      stepMs: 1_000,
    });
    expect(reader.of(sessionId)).toHaveLength(callsBefore);
    f.poke(sessionId);
    await drive(clock, reader, () => reader.of(sessionId).length > callsBefore, { stepMs: 1 });
    expect((reader.of(sessionId)[callsBefore] as { at: number }).at).toBeLessThan(
      askedAt + schedule.needsPersonMs,
    );
    await drive(clock, reader, () => events.some((e) => e.type === 'finished'), {
      stepMs: 100,
      realPauseMs: 5,
    });
    await f.stop();
    expect(keysOf(events, sessionId, 'human_input_needed')).toHaveLength(1);
    expect(keysOf(events, sessionId, 'message')).toEqual(await emittedKeys(sessionId));
    const statuses = events
      .filter((e) => e.type === 'status')
      .map((e) => (e.type === 'status' ? e.status : ''));
    expect(statuses).toContain('waiting_human');
    // Either spelling the spec states (EMULATOR_QUIRKS=complete-spelling sends the other one).
    expect(['completed', 'complete']).toContain(statuses.at(-1));
  });
});

/** Behaviour the spec allows and the emulator doesn't play (yet): a small model service plays it. */
describe('Follower against concurrent rounds and odd questions (model service)', () => {
  const schedule = {
    activeMinMs: 100,
    activeMaxMs: 400,
    needsPersonMs: 1_000,
    unknownStatusMs: 1_000,
    errorBaseMs: 1_000,
  };

  it('announces a question asked in an older round while a newer one runs, once, and every message once', async () => {
    const m = await followModel(schedule);
    const { state } = m.service;
    state.rounds = [
      { roundId: 'r1', status: 'running' },
      { roundId: 'r2', status: 'running' },
    ];
    state.messages = [say('r1', 'plan'), say('r2', 'subagent starts'), say('r1', 'more plan')];
    await m.f.follow('sess_model');
    m.f.start();
    await m.pollTimes(1);
    // The subagent round r1 asks while r2 (newer) keeps going.
    state.messages.push(ask('r1', 'in_sub_1', 'Which region?'), say('r2', 'subagent works'));
    state.status = 'waiting_human';
    m.service.touch();
    await m.pollTimes(2);
    const questions = m.events.filter((e) => e.type === 'human_input_needed');
    expect(questions.map((e) => e.key)).toEqual(['input:in_sub_1']);
    // Answered: the round object says so; it is not announced again, whatever is re-read.
    state.rounds = [
      { roundId: 'r1', status: 'running', humanInput: { inputId: 'in_sub_1', status: 'responded' } },
      { roundId: 'r2', status: 'completed' },
      { roundId: 'r3', status: 'running' },
    ];
    state.status = 'running';
    state.messages.push(say('r3', 'after the answer'), say('r1', 'r1 goes on'));
    m.service.touch();
    await m.pollTimes(2);
    state.status = 'completed';
    state.rounds = state.rounds.map((r) => ({ ...r, status: 'completed' }));
    m.service.touch();
    await drive(m.clock, m.reader, () => m.events.some((e) => e.type === 'finished'), { stepMs: 50 });
    expect(m.events.filter((e) => e.type === 'human_input_needed')).toHaveLength(1);
    const keys = m.events.filter((e) => e.type === 'message').map((e) => e.key);
    expect(keys).toEqual(['r1#0', 'r2#0', 'r1#1', 'r1#2', 'r2#1', 'r3#0', 'r1#3']);
    expect(m.events.some((e) => e.type === 'human_input_unreadable')).toBe(false);
  });

  it('announces a question of an older round that its round object says still runs, before any interleaving', async () => {
    const m = await followModel(schedule);
    const { state } = m.service;
    // r2 (a helper) opened but hasn't spoken: nothing interleaves yet, and r1 asks.
    state.rounds = [
      { roundId: 'r1', status: 'waiting_human' },
      { roundId: 'r2', status: 'running' },
    ];
    state.messages = [say('r1', 'plan'), ask('r1', 'in_main', 'Which file?')];
    state.status = 'waiting_human';
    await m.f.follow('sess_model');
    m.f.start();
    await m.pollTimes(2);
    expect(m.events.filter((e) => e.type === 'human_input_needed').map((e) => e.key)).toEqual([
      'input:in_main',
    ]);
    expect(m.events.some((e) => e.type === 'human_input_unreadable')).toBe(false);
  });

  it('raises human_input_unreadable once per wait when no question can be read, with the raw data', async () => {
    const m = await followModel(schedule);
    const { state } = m.service;
    state.rounds = [{ roundId: 'r1', status: 'waiting_human' }];
    state.messages = [
      say('r1', 'working'),
      // A shape no parser knows, with the id a person could still answer to.
      {
        roundId: 'r1',
        role: 'assistant',
        name: 'ask_user',
        content: JSON.stringify({ ticket: { inputId: 'in_x' } }),
      },
    ];
    state.status = 'waiting_human';
    await m.f.follow('sess_model');
    m.f.start();
    for (let i = 0; i < 4; i++) {
      // Something changes while it waits (cost, updatedAt): each poll reads the messages again.
      m.service.touch();
      await m.pollTimes(1);
    }
    const unreadable = m.events.filter((e) => e.type === 'human_input_unreadable');
    expect(unreadable).toHaveLength(1);
    expect(unreadable[0]).toMatchObject({
      sessionId: 'sess_model',
      status: 'waiting_human',
      inputId: 'in_x',
      raw: { rounds: state.rounds, messages: state.messages },
    });
    // The session runs, then waits again on something unreadable: a new wait, raised again.
    state.status = 'running';
    m.service.touch();
    await m.pollTimes(1);
    state.status = 'waiting_human';
    m.service.touch();
    await m.pollTimes(2);
    const keys = m.events.filter((e) => e.type === 'human_input_unreadable').map((e) => e.key);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
  });

  it('does not raise human_input_unreadable while a question it read is pending', async () => {
    const m = await followModel(schedule);
    const { state } = m.service;
    state.rounds = [{ roundId: 'r1', status: 'running' }];
    state.messages = [say('r1', 'working'), ask('r1', 'in_1', 'Go?')];
    await m.f.follow('sess_model');
    m.f.start();
    // Asked while the status still says running, for a few polls.
    await m.pollTimes(3);
    state.status = 'waiting_human';
    m.service.touch();
    await m.pollTimes(3);
    expect(m.events.filter((e) => e.type === 'human_input_needed')).toHaveLength(1);
    expect(m.events.some((e) => e.type === 'human_input_unreadable')).toBe(false);
  });

  it('ends a read whose pages make no progress with an error event, not a loop', async () => {
    const m = await followModel(schedule);
    m.service.state.rounds = [{ roundId: 'r1', status: 'running' }];
    m.service.state.stuckPage = { lastRoundId: null };
    await m.f.follow('sess_model');
    m.f.start();
    await m.pollTimes(3);
    const errors = m.events.filter((e) => e.type === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({
      fatal: false,
      error: { name: 'MessagesPagingError', reason: 'no_progress' },
    });
    // One messages page per poll: the read ended instead of asking again.
    const gets = m.reader.calls.filter((c) => c.op === 'get').length;
    const pages = m.reader.calls.filter((c) => c.op === 'messages').length;
    expect(pages).toBeLessThanOrEqual(gets);
    expect(m.f.isFollowing('sess_model')).toBe(true);
  });

  it('after an upgrade mid-wait, the question announced before it still counts: no unreadable event', async () => {
    const m = await followModel(schedule);
    const { state } = m.service;
    state.status = 'waiting_human';
    state.rounds = [{ roundId: 'r1' }];
    state.messages = [say('r1', 'a'), ask('r1', 'in_old', 'Proceed?')];
    const v1 = {
      version: 1,
      sessionId: 'sess_model',
      cursor: { afterRoundId: null, lastRoundId: 'r1', seenInLastRound: 2 },
      status: 'waiting_human',
      updatedAt: '0',
      roundCount: 1,
      announcedInputs: ['in_old'],
      moreToRead: false,
      finished: false,
    };
    await m.store.save('sess_model', v1 as unknown as FollowState);
    await m.f.follow('sess_model');
    m.f.start();
    m.service.touch();
    await m.pollTimes(2);
    expect(m.events.some((e) => e.type === 'human_input_unreadable' || e.type === 'message')).toBe(false);
  });

  it('upgrades a saved version-1 state and goes on from it without repeating', async () => {
    const m = await followModel(schedule);
    const { state } = m.service;
    state.rounds = [
      { roundId: 'r1', status: 'completed' },
      { roundId: 'r2', status: 'running' },
    ];
    state.messages = [say('r1', 'a'), say('r2', 'b'), say('r2', 'c'), say('r2', 'd')];
    const v1 = {
      version: 1,
      sessionId: 'sess_model',
      cursor: { afterRoundId: 'r1', lastRoundId: 'r2', seenInLastRound: 2 },
      status: 'running',
      updatedAt: '1',
      roundCount: 2,
      announcedInputs: [],
      moreToRead: false,
      finished: false,
    };
    await m.store.save('sess_model', v1 as unknown as FollowState);
    await m.f.follow('sess_model');
    m.f.start();
    m.service.touch();
    await m.pollTimes(2);
    expect(m.events.filter((e) => e.type === 'message').map((e) => e.key)).toEqual(['r2#2']);
    expect((await m.store.load('sess_model'))?.version).toBe(2);
  });

  it('writes the state to the store only when a poll moved it: a session with nothing new costs no write', async () => {
    const m = await followModel(schedule);
    const saved: FollowState[] = [];
    const save = m.store.save.bind(m.store);
    m.store.save = async (sessionId, state) => {
      saved.push(state);
      await save(sessionId, state);
    };
    const { state } = m.service;
    state.rounds = [{ roundId: 'r1', status: 'running' }];
    state.messages = [say('r1', 'a')];
    await m.f.follow('sess_model');
    m.f.start();
    await m.pollTimes(1);
    expect(saved).toHaveLength(1);
    await m.pollTimes(4);
    expect(saved).toHaveLength(1);
    state.messages.push(say('r1', 'b'));
    m.service.touch();
    await drive(m.clock, m.reader, () => m.events.some((e) => e.key === 'r1#1'), { stepMs: 50 });
    expect(saved).toHaveLength(2);
    expect(saved[1]?.cursor).not.toEqual(saved[0]?.cursor);
    // Followed again from what the store holds: nothing new, nothing written.
    await m.f.stop();
    const again = new Follower({ client: m.reader, clock: m.clock, store: m.store, schedule });
    await again.follow('sess_model');
    again.start();
    onTestFinished(() => again.stop());
    await m.pollTimes(3);
    expect(saved).toHaveLength(2);
  });
});

/**
 * The emulator playing what the spec allows on purpose: subagent rounds interleaving (an older round
 * growing after newer ones exist, questions asked from a round that isn't the newest), hidden entries
 * (short and empty pages with hasMore), under both readings of `after`. Run in the ordinary suite, not
 * only in CI's EMULATOR_QUIRKS=all pass.
 */
for (const quirks of [
  'concurrent-rounds,hidden-entries,after=message-position',
  'concurrent-rounds,hidden-entries,after=round-created',
]) {
  describe(`Follower against the emulator's quirks: ${quirks}`, () => {
    let odd: SpawnedEmulator;
    let oddClient: AgentSessionsClient;
    beforeAll(async () => {
      odd = await startEmulator({ clock: 'real', speed: 25, quirks });
      oddClient = clientFor(odd);
    });
    afterAll(async () => {
      await oddClient?.close();
      await odd?.close();
    });

    it('delivers every message exactly once and every question (asked by a subagent) once', async () => {
      const events: FollowEvent[] = [];
      const f = new Follower({ client: oddClient, requestsPerSecond: 200, schedule: fastSchedule });
      f.on('*', async (e) => {
        events.push(e);
        // Answer as a person would: the session goes on in a new round.
        if (e.type === 'human_input_needed') {
          await oddClient.sessions.respond(e.sessionId, e.request.inputId, { choiceId: 'staging' });
          f.poke(e.sessionId);
        }
      });
      const chatty = await oddClient.sessions.create({ goal: 'scenario:chatty talk' });
      const asks = await oddClient.sessions.create({ goal: 'scenario:single_select pick' });
      await f.follow(chatty.sessionId);
      await f.follow(asks.sessionId);
      f.start();
      await until(() => events.filter((e) => e.type === 'finished').length === 2, 30_000);
      await f.stop();
      for (const id of [chatty.sessionId, asks.sessionId]) {
        const emitted = await emittedKeys(id, odd);
        const delivered = keysOf(events, id, 'message');
        expect([...delivered].sort()).toEqual([...emitted].sort());
        expect(new Set(delivered).size).toBe(delivered.length);
      }
      const asked = (await odd.admin.events({ sessionId: asks.sessionId })).filter(
        (e) => e.type === 'human_input_needed',
      );
      expect(keysOf(events, asks.sessionId, 'human_input_needed')).toEqual(
        asked.map((e) => `input:${e.inputId}`),
      );
      expect(events.some((e) => e.type === 'human_input_unreadable' || e.type === 'error')).toBe(false);
    });
  });
}

/**
 * Active sessions that were chatty at their last poll are read messages first: a question arrives as a
 * message, so one request surfaces chatter and questions; the status is read when a message suggests it
 * changed, when nothing new came, when the budget allows, or every `statusReadEveryPollsWhenBusy` polls.
 */
describe('Following reads what changed first (model service)', () => {
  const schedule = {
    activeMinMs: 100,
    activeMaxMs: 400,
    needsPersonMs: 60_000,
    unknownStatusMs: 1_000,
    errorBaseMs: 1_000,
  };

  /**
   * Follows a session through two quiet polls and one that brings news (so the next poll reads its page
   * first), then runs `change` on the service right before that poll's status read; returns how many
   * calls came before it.
   */
  async function changeDuringStatusRead(
    m: Awaited<ReturnType<typeof followModel>>,
    sessionId: string,
    change: () => void,
  ): Promise<number> {
    const { state } = m.service;
    state.rounds = [{ roundId: 'r1', status: 'running' }];
    state.messages = [say('r1', 'a')];
    await m.f.follow(sessionId);
    m.f.start();
    await drive(m.clock, m.reader, () => m.gets() >= 2, { stepMs: 50 });
    state.messages.push(say('r1', 'b'));
    m.service.touch();
    await drive(m.clock, m.reader, () => keysOf(m.events, sessionId, 'message').length === 2, {
      stepMs: 10,
    });
    const before = m.reader.calls.length;
    state.messages.push(say('r1', 'c'));
    m.service.touch();
    m.onNextStatusRead(change);
    return before;
  }

  it('under a saturated budget a chatty session costs one request a poll, and a question brings its status at once; every message and question once', async () => {
    // Six sessions that want a poll every 100 ms on 5 requests a second: the budget is saturated.
    const m = await followModel(schedule, { requestsPerSecond: 5, burst: 1 });
    const { state } = m.service;
    state.rounds = [{ roundId: 'r1', status: 'running' }];
    state.messages = [say('r1', 'start')];
    const ids = Array.from({ length: 6 }, (_, i) => `sess_${i}`);
    for (const id of ids) await m.f.follow(id);
    m.f.start();
    // Every session says something between any two of its polls.
    for (let i = 0; i < 40; i++) {
      state.messages.push(say('r1', `note ${i}`));
      m.service.touch();
      const until = m.clock.now() + 200;
      await drive(m.clock, m.reader, () => m.clock.now() >= until, { stepMs: 50 });
    }
    const chatter = [...m.reader.calls];
    for (const id of ids) {
      const calls = chatter.filter((c) => c.sessionId === id);
      const gets = calls.filter((c) => c.op === 'get').length;
      const pages = calls.filter((c) => c.op === 'messages').length;
      // Read status first, a poll costs a status read each (and messages only every few polls).
      expect(pages).toBeGreaterThanOrEqual(4);
      expect(gets * 3).toBeLessThanOrEqual(pages);
    }

    // A question arrives as a message; the status says the session waits.
    state.messages.push(ask('r1', 'in_1', 'Go on?'));
    state.status = 'waiting_human';
    state.rounds = [{ roundId: 'r1', status: 'waiting_human' }];
    m.service.touch();
    const asked = () => ids.every((id) => keysOf(m.events, id, 'human_input_needed').length === 1);
    await drive(m.clock, m.reader, asked, { stepMs: 50 });
    await drive(m.clock, m.reader, () => m.f.stats().inFlight === 0, { stepMs: 1 });
    for (const id of ids) {
      const own = m.events.filter((e) => e.sessionId === id);
      const question = own.findIndex((e) => e.type === 'human_input_needed');
      // The status was read in the same poll, right after the page that brought the question.
      expect(own[question + 1]).toMatchObject({ type: 'status', status: 'waiting_human' });
      // It names the message that asked, delivered before it (a thread shows the prompt after that message).
      const asking = own.findIndex(
        (e) => e.type === 'message' && e.key === `r1#${state.messages.length - 1}`,
      );
      expect(own[question]).toMatchObject({ messageKey: `r1#${state.messages.length - 1}` });
      expect(asking).toBeGreaterThanOrEqual(0);
      expect(asking).toBeLessThan(question);
      expect(keysOf(m.events, id, 'message')).toEqual(state.messages.map((_, i) => `r1#${i}`));
    }
    expect(m.events.some((e) => e.type === 'human_input_unreadable' || e.type === 'error')).toBe(false);
  });

  it('a session seen finished after its messages were read is read once more before it finishes: its last words are not lost', async () => {
    const m = await followModel(schedule);
    const { state } = m.service;
    const before = await changeDuringStatusRead(m, 'sess_end', () => {
      state.messages.push(say('r1', 'last words'));
      state.status = 'completed';
      state.rounds = [{ roundId: 'r1', status: 'completed' }];
      m.service.touch();
    });
    await drive(m.clock, m.reader, () => m.events.some((e) => e.type === 'finished'), { stepMs: 50 });
    const own = m.events.filter((e) => e.type === 'message' || e.type === 'finished');
    // The page, then the status (that said completed), then status and page again before finishing.
    expect(m.reader.calls.slice(before, before + 4).map((c) => c.op)).toEqual([
      'messages',
      'get',
      'get',
      'messages',
    ]);
    expect(own.map((e) => e.key)).toEqual(['r1#0', 'r1#1', 'r1#2', 'r1#3', 'finished:sess_end']);
  });

  it('a question that arrives between the page and the status read is announced, not reported unreadable', async () => {
    const m = await followModel(schedule);
    const { state } = m.service;
    const before = await changeDuringStatusRead(m, 'sess_ask', () => {
      state.messages.push(ask('r1', 'in_late', 'Which one?'));
      state.status = 'waiting_human';
      state.rounds = [{ roundId: 'r1', status: 'waiting_human' }];
      m.service.touch();
    });
    await drive(
      m.clock,
      m.reader,
      () => m.events.some((e) => e.type === 'human_input_needed') && m.f.stats().inFlight === 0,
      { stepMs: 50 },
    );
    await drive(m.clock, m.reader, () => m.clock.now() >= 5_000, { stepMs: 100 });
    expect(keysOf(m.events, 'sess_ask', 'human_input_needed')).toEqual(['input:in_late']);
    expect(m.events.some((e) => e.type === 'human_input_unreadable')).toBe(false);
    expect(m.reader.calls.slice(before, before + 2).map((c) => c.op)).toEqual(['messages', 'get']);
    expect(keysOf(m.events, 'sess_ask', 'message')).toEqual(['r1#0', 'r1#1', 'r1#2', 'r1#3']);
  });
});
