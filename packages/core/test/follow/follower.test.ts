import type { SpawnedEmulator } from '@agent-sessions/emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentSessionsClient,
  type FollowEvent,
  Follower,
  type FollowerOptions,
  InMemoryCursorStore,
} from '../../src/index.js';
import { clientFor, startEmulator } from '../helpers.js';

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

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The emulator's own log of a session's messages: (roundId, position) of each. */
async function emittedKeys(sessionId: string): Promise<string[]> {
  const events = await emulator.admin.events({ sessionId });
  return events.filter((e) => e.type === 'message').map((e) => `${e.roundId}#${e.position}`);
}

const keysOf = (events: FollowEvent[], sessionId: string, type: FollowEvent['type']) =>
  events.filter((e) => e.sessionId === sessionId && e.type === type).map((e) => e.key);

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

  it('announces a question once, waits slowly, and polls at once when poked', async () => {
    const events: FollowEvent[] = [];
    const f = follower(events);
    const { sessionId } = await client.sessions.create({ goal: 'scenario:approval ship' });
    await f.follow(sessionId);
    f.start();
    await until(() => events.some((e) => e.type === 'human_input_needed'));
    const question = events.find((e) => e.type === 'human_input_needed');
    if (question?.type !== 'human_input_needed') throw new Error('unreachable');
    expect(question.request).toMatchObject({ kind: 'approval', prompt: 'Deploy v2.3.1 to production?' });
    expect(question.key).toBe(`input:${question.request.inputId}`);

    await client.sessions.respond(sessionId, question.request.inputId, { approved: true });
    // needsPersonMs is a minute: only the poke makes the follower look again soon.
    await new Promise((r) => setTimeout(r, 300));
    expect(events.some((e) => e.type === 'finished')).toBe(false);
    f.poke(sessionId);
    await until(() => events.some((e) => e.type === 'finished'));
    await f.stop();
    expect(keysOf(events, sessionId, 'human_input_needed')).toHaveLength(1);
    expect(keysOf(events, sessionId, 'message')).toEqual(await emittedKeys(sessionId));
    const statuses = events
      .filter((e) => e.type === 'status')
      .map((e) => (e.type === 'status' ? e.status : ''));
    expect(statuses).toContain('waiting_human');
    expect(statuses.at(-1)).toBe('completed');
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

  it('pauses the whole key on a 429 and carries on after it', async () => {
    const events: FollowEvent[] = [];
    const f = follower(events);
    const { sessionId } = await client.sessions.create({ goal: 'scenario:complete go' });
    await emulator.admin.setFaults({ rate429: 1, retryAfterSeconds: 1 });
    await f.follow(sessionId);
    f.start();
    await new Promise((r) => setTimeout(r, 200));
    expect(events.filter((e) => e.type === 'message')).toHaveLength(0);
    await emulator.admin.clearFaults();
    await until(() => events.some((e) => e.type === 'finished'));
    await f.stop();
    expect(keysOf(events, sessionId, 'message')).toEqual(await emittedKeys(sessionId));
    expect(events.some((e) => e.type === 'error')).toBe(false);
  });
});
