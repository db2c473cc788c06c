/**
 * Reading a session's messages without losing or repeating any, though the contract pages by round:
 * `after` takes a roundId, a page may end in the middle of a round, and the newest round may still grow.
 *
 * A message's key is (roundId, position within its round). The cursor never moves past a round that
 * may still grow: the next read starts after the round *before* the newest one seen, re-reads the
 * newest round from its start, and skips what was already delivered by position.
 *
 * Pure and JSON-serializable (a follower persists it); no timers, no I/O.
 */

export interface MessagesCursor {
  /** The `after` of the next read: the round before the newest round seen; null reads from the start. */
  afterRoundId: string | null;
  /** The newest round seen, which may still grow. */
  lastRoundId: string | null;
  /** Messages of `lastRoundId` already delivered. */
  seenInLastRound: number;
}

export interface KeyedMessage<M> {
  /** `<roundId>#<position>`: stable across reads, restarts and re-deliveries. */
  key: string;
  roundId: string;
  position: number;
  message: M;
}

export interface PageLike<M extends { roundId: string }> {
  messages: M[];
  pagination: { hasMore: boolean };
}

export interface AppliedPage<M> {
  cursor: MessagesCursor;
  /** Messages not delivered before, oldest first. */
  fresh: KeyedMessage<M>[];
  /**
   * One round filled the whole page and there is more: re-reading it can't get further, so the cursor
   * moved past it and the rest of that round may be skipped. Read with the largest page (200) to make
   * this need a round of more than 200 messages.
   */
  gapPossible: boolean;
}

export const messageKey = (roundId: string, position: number): string => `${roundId}#${position}`;

export function createCursor(): MessagesCursor {
  return { afterRoundId: null, lastRoundId: null, seenInLastRound: 0 };
}

/** The query of the next read. */
export function nextQuery(cursor: MessagesCursor): { after?: string } {
  return cursor.afterRoundId === null ? {} : { after: cursor.afterRoundId };
}

/** Folds one page (read with `nextQuery(cursor)`) into the cursor. */
export function applyPage<M extends { roundId: string }>(
  cursor: MessagesCursor,
  page: PageLike<M>,
): AppliedPage<M> {
  const fresh: KeyedMessage<M>[] = [];
  const roundsInPage: string[] = [];
  let position = 0;
  let countInNewest = 0;
  for (const message of page.messages) {
    const roundId = message.roundId;
    if (roundsInPage[roundsInPage.length - 1] !== roundId) {
      roundsInPage.push(roundId);
      position = 0;
    }
    const alreadySeen = roundId === cursor.lastRoundId && position < cursor.seenInLastRound;
    if (!alreadySeen) fresh.push({ key: messageKey(roundId, position), roundId, position, message });
    position++;
    countInNewest = position;
  }

  const newest = roundsInPage[roundsInPage.length - 1];
  if (newest === undefined) return { cursor, fresh, gapPossible: false };

  if (page.pagination.hasMore && roundsInPage.length === 1) {
    // The newest round alone fills the page: re-reading it would return this same page forever.
    return {
      cursor: { afterRoundId: newest, lastRoundId: null, seenInLastRound: 0 },
      fresh,
      gapPossible: true,
    };
  }

  const beforeNewest =
    roundsInPage.length >= 2 ? (roundsInPage[roundsInPage.length - 2] as string) : cursor.afterRoundId;
  const seen =
    newest === cursor.lastRoundId ? Math.max(cursor.seenInLastRound, countInNewest) : countInNewest;
  return {
    cursor: { afterRoundId: beforeNewest, lastRoundId: newest, seenInLastRound: seen },
    fresh,
    gapPossible: false,
  };
}
