/**
 * Reading a session's messages without losing or repeating any, though the contract pages by round:
 * `after` takes a roundId, messages come "oldest first, across rounds" (so concurrent rounds, such as
 * subagents, interleave: r1, r2, r1, r3, r2 …), a page may end anywhere, and rounds may still grow.
 *
 * A message's key is (roundId, position within its round): its place among that round's messages in the
 * stream. The spec's words allow two readings of `after = X`:
 *   (A) the messages of the rounds created after X;
 *   (B) the messages that come after X's last message in the stream.
 * They agree when X is *safe*: X and every round created before it are closed with their last message
 * seen, and no message of a round created after X comes before X's last message. Then a read from X
 * returns each later round whole, from its first message, under both readings. The cursor only ever
 * uses safe rounds as `after`, keeps per-round counts of what it delivered, and skips those by position.
 *
 * When a page is full (hasMore) and holds no safe round, no `after` can read further without risking a
 * wrong position: the cursor then steps to the newest round of the page, reports `gapPossible`, and
 * picks positions that can only miss a message, never deliver one twice (see `applyPage`).
 *
 * Pure and JSON-serializable (a follower persists it); no timers, no I/O.
 */

export interface CursorRound {
  roundId: string;
  /** Messages of this round already delivered: positions 0 … seen-1. */
  seen: number;
  /**
   * Only for rounds created up to `afterRoundId`: how many of their messages lie before the cut (the last
   * message of `afterRoundId`). Under reading (B) a read returns the rest of such a round from there.
   */
  before?: number;
}

export interface MessagesCursor {
  /** The `after` of the next read: a safe round (see above); null reads from the start. */
  afterRoundId: string | null;
  /**
   * Rounds known, in creation order: those up to `afterRoundId` carry `before` (only the newest
   * ROUNDS_BEFORE_KEPT of them are kept), those after it are the ones a read returns.
   */
  rounds: CursorRound[];
  /** A message of an older round came after one of a newer round: rounds run concurrently here. */
  interleaved: boolean;
  /**
   * Within a read that had to go on from a point that isn't safe (the service's `lastRoundId` past
   * hidden entries, or a full page with no safe round): where the next page starts, and how many
   * messages of each round lie before it. Dropped when the read ends, so the next read starts from
   * `afterRoundId` again and nothing that grew behind that point is lost.
   */
  read?: TransientRead;
}

export interface TransientRead {
  after: string;
  /** Messages of each round (up to `after`) that lie before the point the next page starts from. */
  counts: Record<string, number>;
  /**
   * Rounds created after `after` that already had messages in this read: reading (A) sends them whole
   * again, reading (B) goes on after them. Told apart by their first message: is it the one seen before?
   */
  unsure?: Record<string, { count: number; first: string }>;
}

export interface KeyedMessage<M> {
  /** `<roundId>#<position>`: stable across reads, restarts and re-deliveries. */
  key: string;
  roundId: string;
  position: number;
  message: M;
}

/** How many rounds before `afterRoundId` a cursor remembers (for late messages under reading (B)). */
export const ROUNDS_BEFORE_KEPT = 32;

export const messageKey = (roundId: string, position: number): string => `${roundId}#${position}`;

export function createCursor(after: string | null = null): MessagesCursor {
  return { afterRoundId: after, rounds: [], interleaved: false };
}

/** The query of the next read. */
export function nextQuery(cursor: MessagesCursor): { after?: string } {
  const after = cursor.read?.after ?? cursor.afterRoundId;
  return after === null ? {} : { after };
}

/** The cursor of version 1 (one growing round): still found in saved follow states. */
export interface MessagesCursorV1 {
  afterRoundId: string | null;
  lastRoundId: string | null;
  seenInLastRound: number;
}

/**
 * Any saved cursor to the current shape. A version-1 cursor read after the round before the newest and
 * had delivered `seenInLastRound` messages of the newest: the same facts in the new shape.
 */
export function upgradeCursor(saved: MessagesCursor | MessagesCursorV1 | null | undefined): MessagesCursor {
  if (!saved || typeof saved !== 'object') return createCursor();
  if ('rounds' in saved && Array.isArray(saved.rounds)) return saved;
  const v1 = saved as MessagesCursorV1;
  const after = typeof v1.afterRoundId === 'string' ? v1.afterRoundId : null;
  const rounds: CursorRound[] = [];
  // The after round's count isn't known; it was judged finished, and under (A) is never returned again.
  if (after !== null) rounds.push({ roundId: after, seen: 0, before: 0 });
  if (typeof v1.lastRoundId === 'string' && v1.lastRoundId !== after) {
    rounds.push({ roundId: v1.lastRoundId, seen: Math.max(0, Number(v1.seenInLastRound) || 0) });
  }
  return { afterRoundId: after, rounds, interleaved: false };
}
