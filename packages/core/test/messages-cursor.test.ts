import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPage, createCursor, type MessagesCursor, nextQuery } from '../src/index.js';

interface Msg {
  roundId: string;
  text: string;
}

/** The contract's paging as the emulator (and a naive real server) does it: `after` skips whole rounds. */
function serverPage(rounds: Msg[][], after: string | undefined, limit: number) {
  const start = after === undefined ? 0 : rounds.findIndex((r) => r[0]?.roundId === after) + 1;
  const all = rounds.slice(start).flat();
  const page = all.slice(0, limit);
  return {
    messages: page,
    pagination: { hasMore: all.length > page.length, lastRoundId: page.at(-1)?.roundId ?? null },
  };
}

function readAll(rounds: Msg[][], cursor: MessagesCursor, limit: number) {
  const fresh: string[] = [];
  let gap = false;
  for (let i = 0; i < 1000; i++) {
    const page = serverPage(rounds, nextQuery(cursor).after, limit);
    const applied = applyPage(cursor, page);
    cursor = applied.cursor;
    gap ||= applied.gapPossible;
    fresh.push(...applied.fresh.map((m) => m.message.text));
    if (!page.pagination.hasMore) return { cursor, fresh, gap };
  }
  throw new Error('paging did not terminate');
}

describe('messages cursor', () => {
  it('keys messages by round and position', () => {
    const rounds = [
      [
        { roundId: 'r1', text: 'a' },
        { roundId: 'r1', text: 'b' },
      ],
      [{ roundId: 'r2', text: 'c' }],
    ];
    const applied = applyPage(createCursor(), serverPage(rounds, undefined, 10));
    expect(applied.fresh.map((m) => m.key)).toEqual(['r1#0', 'r1#1', 'r2#0']);
    expect(applied.cursor).toEqual({ afterRoundId: 'r1', lastRoundId: 'r2', seenInLastRound: 1 });
    expect(nextQuery(applied.cursor)).toEqual({ after: 'r1' });
  });

  it('re-reads a round cut by the page limit instead of skipping its rest', () => {
    const rounds = [
      [1, 2, 3].map((i) => ({ roundId: 'r1', text: `a${i}` })),
      [1, 2, 3].map((i) => ({ roundId: 'r2', text: `b${i}` })),
    ];
    const { fresh, gap } = readAll(rounds, createCursor(), 4);
    expect(fresh).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3']);
    expect(gap).toBe(false);
  });

  it('reports a possible gap instead of looping when one round is larger than a page', () => {
    const rounds = [
      Array.from({ length: 5 }, (_, i) => ({ roundId: 'r1', text: `a${i}` })),
      [{ roundId: 'r2', text: 'b' }],
    ];
    const { fresh, gap } = readAll(rounds, createCursor(), 3);
    expect(gap).toBe(true);
    expect(fresh).toContain('b');
    expect(new Set(fresh).size).toBe(fresh.length);
  });

  it('loses nothing and repeats nothing under any interleaving of growth and reads (property)', () => {
    type Op = { kind: 'append' } | { kind: 'newRound' } | { kind: 'read'; limit: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.constant({ kind: 'append' } as const),
      fc.constant({ kind: 'newRound' } as const),
      fc.integer({ min: 2, max: 9 }).map((limit) => ({ kind: 'read', limit }) as const),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), fc.integer({ min: 2, max: 9 }), (ops, finalLimit) => {
        const rounds: Msg[][] = [[]];
        let counter = 0;
        let cursor = createCursor();
        const delivered: string[] = [];
        // Rounds stay smaller than the smallest page, as they do against the real page size of 200.
        const roundCap = 1;
        for (const o of ops) {
          const last = rounds[rounds.length - 1] as Msg[];
          if (o.kind === 'append' && last.length < roundCap)
            last.push({ roundId: `r${rounds.length}`, text: `m${counter++}` });
          else if (o.kind === 'newRound' && last.length > 0) rounds.push([]);
          else if (o.kind === 'read') {
            const result = readAll(
              rounds.filter((r) => r.length > 0),
              cursor,
              o.limit,
            );
            expect(result.gap).toBe(false);
            cursor = result.cursor;
            delivered.push(...result.fresh);
          }
        }
        const result = readAll(
          rounds.filter((r) => r.length > 0),
          cursor,
          finalLimit,
        );
        delivered.push(...result.fresh);
        expect(delivered).toEqual(rounds.flat().map((m) => m.text));
      }),
      { numRuns: 300 },
    );
  });

  it('loses nothing when rounds grow between reads and are bigger than one message (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean()), { minLength: 1, maxLength: 40 }),
        (steps) => {
          const limit = 5;
          const rounds: Msg[][] = [[]];
          let counter = 0;
          let cursor = createCursor();
          const delivered: string[] = [];
          for (const [grow, startNew] of steps) {
            const last = rounds[rounds.length - 1] as Msg[];
            // Keep every round under the page size: the contract's paging can't do better than that.
            for (let i = 0; i < grow && last.length < limit - 1; i++) {
              last.push({ roundId: `r${rounds.length}`, text: `m${counter++}` });
            }
            if (startNew && last.length > 0) rounds.push([]);
            const result = readAll(
              rounds.filter((r) => r.length > 0),
              cursor,
              limit,
            );
            cursor = result.cursor;
            delivered.push(...result.fresh);
          }
          expect(delivered).toEqual(rounds.flat().map((m) => m.text));
        },
      ),
      { numRuns: 300 },
    );
  });
});
