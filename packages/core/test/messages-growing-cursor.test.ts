import type { SpawnedEmulator } from '@agent-sessions/emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentSessionsClient,
  applyPage,
  createCursor,
  type MessagesCursor,
  nextQuery,
  roundsInfoOf,
} from '../src/index.js';
import { clientFor, startEmulator } from './helpers.js';

/**
 * Found in the e2e suite under EMULATOR_QUIRKS=all (growing_round read as notes 1, 3, 3, 4 …): a page cut
 * short by the service ends at the last message of a subagent round that is still open, with that round
 * as `lastRoundId`. Under the reading of `after` by message position, `after = that round` means "after
 * its last message" when the next request arrives: if the round spoke in between, the main round's
 * message written before it is skipped, and the next one of the main round takes its position.
 * Played step by step on the emulator's manual clock, so the race happens every time.
 */
describe('following the service cursor while its round still grows (EMULATOR_QUIRKS=all)', () => {
  let emulator: SpawnedEmulator;
  let client: AgentSessionsClient;
  beforeAll(async () => {
    emulator = await startEmulator({ quirks: 'all' });
    client = clientFor(emulator);
  });
  afterAll(async () => {
    await emulator?.close();
  });

  const contents = async (sessionId: string) => {
    const all: Array<{ roundId: string; content: string | null }> = [];
    for await (const m of client.sessions.listMessages(sessionId, { pageSize: 200 })) all.push(m.message);
    return all;
  };

  it('neither skips nor renumbers a main-round note when the subagent round speaks between two pages', async () => {
    const { sessionId } = await client.sessions.create({ goal: 'scenario:growing_round' });
    const notesSoFar = async () =>
      (await emulator.admin.session(sessionId))?.messageCount ?? Number.POSITIVE_INFINITY;
    // Note 1, the subagent's first word, note 2: the subagent's tool call comes next.
    for (let i = 0; i < 200 && (await notesSoFar()) < 3; i++) await emulator.admin.advance(100);
    expect(await notesSoFar()).toBe(3);

    let cursor: MessagesCursor = createCursor();
    const delivered: string[] = [];
    const readPage = async () => {
      const status = await client.sessions.get(sessionId);
      const info = roundsInfoOf(status.rounds, false);
      const page = await client.sessions.messages(sessionId, { limit: 50, ...nextQuery(cursor) });
      const applied = applyPage(cursor, page, info, 50, { holdOnRunning: true });
      cursor = applied.cursor;
      for (const m of applied.fresh) delivered.push(`${m.key} ${m.message.content ?? ''}`);
      return page.pagination.hasMore;
    };
    // One read: its first page, then (the subagent's tool call and note 3 written meanwhile) its next.
    let more = await readPage();
    await emulator.admin.advance(1_050);
    for (let i = 0; i < 10 && more; i++) more = await readPage();
    // Later polls, until the session is done.
    for (let i = 0; i < 100; i++) {
      const status = await client.sessions.get(sessionId);
      more = true;
      for (let p = 0; p < 10 && more; p++) more = await readPage();
      if (['completed', 'complete'].includes(String(status.status))) break;
      await emulator.admin.advance(700);
    }

    const truth: string[] = [];
    const positions = new Map<string, number>();
    for (const m of await contents(sessionId)) {
      const position = positions.get(m.roundId) ?? 0;
      positions.set(m.roundId, position + 1);
      truth.push(`${m.roundId}#${position} ${m.content ?? ''}`);
    }
    const notes = delivered.flatMap((d) =>
      [...d.matchAll(/Progress note (\d+) of 30/g)].map((x) => Number(x[1])),
    );
    expect(notes).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(delivered).toEqual(truth);
  });
});
