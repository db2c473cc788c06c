import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Round, Session } from '../src/model.js';
import { pageMessages } from '../src/pager.js';
import { type AfterReading, noQuirks } from '../src/quirks.js';

type Op = { kind: 'round' } | { kind: 'message'; pick: number; hidden: boolean };

/** A session whose rounds are opened and written to in the order of `ops`: any interleaving at all. */
function sessionOf(ops: Op[]): Session {
  const rounds: Round[] = [];
  let seq = 0;
  const open = () => {
    rounds.push({
      roundId: `r${rounds.length}`,
      index: rounds.length,
      trigger: rounds.length === 0 ? 'create' : 'subagent',
      status: 'running',
      startedAt: 0,
      completedAt: null,
      iterations: 0,
      messages: [],
      createdAtSeq: seq,
    });
  };
  open();
  for (const op of ops) {
    if (op.kind === 'round') {
      open();
      continue;
    }
    const round = rounds[op.pick % rounds.length] as Round;
    const message: Message = {
      roundId: round.roundId,
      role: 'assistant',
      content: `${round.roundId}#${round.messages.length}`,
      timestamp: seq,
      seq: ++seq,
      ...(op.hidden ? { hidden: true } : {}),
    };
    round.messages.push(message);
  }
  // Only what the pager reads matters here.
  return { sessionId: 's', rounds, messageSeq: seq } as Session;
}

const ops = fc.array(
  fc.oneof(
    { weight: 1, arbitrary: fc.constant<Op>({ kind: 'round' }) },
    {
      weight: 5,
      arbitrary: fc.record({ kind: fc.constant('message' as const), pick: fc.nat(), hidden: fc.boolean() }),
    },
  ),
  { maxLength: 80 },
);

/** Follows `hasMore` with `lastRoundId` as `after`, as the spec says, checking that every page moves on. */
function walk(session: Session, reading: AfterReading, hidden: boolean, limit: number): Message[] {
  const quirks = { ...noQuirks(), concurrentRounds: true, hiddenEntries: hidden, after: reading };
  const stream = session.rounds.flatMap((r) => r.messages).sort((a, b) => a.seq - b.seq);
  const seen: Message[] = [];
  let after: string | undefined;
  let progress = -1;
  for (let pages = 0; ; pages++) {
    expect(pages).toBeLessThanOrEqual(stream.length + session.rounds.length + 1);
    const page = pageMessages(session, { after, limit }, quirks);
    expect(page.messages.every((m) => !m.hidden)).toBe(true);
    seen.push(...page.messages);
    if (!page.hasMore) return seen;
    expect(page.lastRoundId).not.toBeNull();
    after = page.lastRoundId ?? undefined;
    // Progress: a later round (round created), or a later place in the stream (message position).
    const round = session.rounds.find((r) => r.roundId === after) as Round;
    const now =
      reading === 'round-created' ? round.index : (round.messages.at(-1)?.seq ?? round.createdAtSeq);
    expect(now).toBeGreaterThan(progress);
    progress = now;
  }
}

describe('paging with quirks, over any interleaving of rounds', () => {
  it.each([
    ['round-created', false],
    ['round-created', true],
    ['message-position', false],
    ['message-position', true],
  ] as const)(
    'after=%s, hidden entries %s: lastRoundId always moves on, whatever the limit',
    (reading, hidden) => {
      fc.assert(
        fc.property(ops, fc.integer({ min: 1, max: 200 }), (list, limit) => {
          walk(sessionOf(list), reading, hidden, limit);
        }),
      );
    },
  );

  it.each([
    ['round-created', false],
    ['round-created', true],
    ['message-position', false],
    ['message-position', true],
  ] as const)('after=%s, hidden entries %s: with room in a page, nothing is lost', (reading, hidden) => {
    fc.assert(
      fc.property(ops, (list) => {
        const session = sessionOf(list);
        const visible = session.rounds
          .flatMap((r) => r.messages)
          .filter((m) => !m.hidden)
          .sort((a, b) => a.seq - b.seq);
        const seen = walk(session, reading, hidden, 200);
        expect(new Set(seen)).toEqual(new Set(visible));
        // By message position each once, in stream order; by round created a round may come again,
        // always from its start and in its own order.
        if (reading === 'message-position') expect(seen).toEqual(visible);
        for (const round of session.rounds) {
          const mine = seen.filter((m) => m.roundId === round.roundId).map((m) => m.seq);
          const order = round.messages.filter((m) => !m.hidden).map((m) => m.seq);
          // Each delivery starts at the round's first message and follows its order.
          const starts = mine.flatMap((seq, i) => (seq === order[0] ? [i] : []));
          expect(starts[0] ?? 0).toBe(0);
          starts.forEach((start, k) => {
            const run = mine.slice(start, starts[k + 1] ?? mine.length);
            expect(run).toEqual(order.slice(0, run.length));
          });
        }
      }),
    );
  });
});
