import { badRequest } from './errors.js';
import type { Message, Session } from './model.js';
import type { Quirks } from './quirks.js';

export interface MessagesPage {
  /** What the caller sees (hidden entries filtered out), oldest first. */
  messages: Message[];
  hasMore: boolean;
  lastRoundId: string | null;
}

/**
 * One page of `GET /messages`. Without quirks this is the emulator's first reading, unchanged: `after`
 * skips whole rounds, `limit` cuts wherever it falls, `lastRoundId` is the last message's round.
 *
 * With `concurrent-rounds`, `after=message-position` or `hidden-entries` the page is cut from the
 * session's oldest-first stream across rounds (messages of open rounds interleave there):
 * - `after=round-created`: the messages of rounds created after `after`;
 * - `after=message-position`: the messages that come after `after`'s last message in the stream (or,
 *   for a round without messages yet, after the point where it was created).
 * By message position a page ends where following `lastRoundId` loses nothing (see `cursorAfter`) when
 * there is such a place within `limit`. `hidden-entries` ends every page at the first such place, then
 * drops the hidden entries, so pages come back short or empty with `hasMore: true`, and `lastRoundId`
 * (then the newest round the page finished, by round created) still moves the caller on.
 */
export function pageMessages(
  session: Session,
  query: { after?: string | undefined; limit: number },
  quirks: Quirks,
): MessagesPage {
  let startRound = 0;
  if (query.after !== undefined) {
    const index = session.rounds.findIndex((r) => r.roundId === query.after);
    if (index < 0) throw badRequest(`after: "${query.after}" is not a roundId of this session`);
    startRound = index + 1;
  }
  if (!quirks.concurrentRounds && !quirks.hiddenEntries && quirks.after === 'round-created') {
    const all = session.rounds.slice(startRound).flatMap((r) => r.messages);
    const page = all.slice(0, query.limit);
    return {
      messages: page,
      hasMore: all.length > page.length,
      lastRoundId: page[page.length - 1]?.roundId ?? null,
    };
  }

  const stream = session.rounds.flatMap((r) => r.messages).sort((a, b) => a.seq - b.seq);
  const indexOf = new Map(session.rounds.map((r, i) => [r.roundId, i]));
  let rest: Message[];
  if (query.after === undefined) rest = stream;
  else if (quirks.after === 'round-created') {
    rest = stream.filter((m) => (indexOf.get(m.roundId) ?? 0) >= startRound);
  } else {
    const round = session.rounds[startRound - 1];
    const anchor = round?.messages[round.messages.length - 1]?.seq ?? round?.createdAtSeq ?? 0;
    rest = stream.filter((m) => m.seq > anchor);
  }

  const lastSeqOf = new Map<string, number>();
  for (const m of stream) lastSeqOf.set(m.roundId, m.seq);
  // Highest seq among the rounds created up to each round: round-created `after=R` skips all of them.
  const lastSeqUpTo: number[] = [];
  let highest = 0;
  for (const r of session.rounds) {
    highest = Math.max(highest, lastSeqOf.get(r.roundId) ?? 0);
    lastSeqUpTo.push(highest);
  }
  /**
   * The cursor that goes on right after `m`, skipping nothing, if there is one: by message position,
   * `m`'s round when `m` is its last message; by round created, the newest round that, with every older
   * round, has nothing after `m` (newer than `after`, so the caller moves on).
   */
  const cursorAfter = (m: Message): string | undefined => {
    if (quirks.after === 'message-position')
      return lastSeqOf.get(m.roundId) === m.seq ? m.roundId : undefined;
    const newest = lastSeqUpTo.findLastIndex((seq) => seq <= m.seq);
    return newest >= startRound ? session.rounds[newest]?.roundId : undefined;
  };

  const window = rest.slice(0, query.limit);
  let end = window.length;
  let cursor: string | undefined;
  if (quirks.hiddenEntries) {
    const first = window.findIndex((m) => cursorAfter(m) !== undefined);
    if (first >= 0) end = first + 1;
  } else if (quirks.after === 'message-position' && window.length < rest.length) {
    const last = window.findLastIndex((m) => cursorAfter(m) !== undefined);
    if (last >= 0) end = last + 1;
  }
  const raw = rest.slice(0, end);
  const lastRaw = raw[raw.length - 1];
  if (lastRaw && (quirks.hiddenEntries || quirks.after === 'message-position')) cursor = cursorAfter(lastRaw);
  return {
    messages: raw.filter((m) => !m.hidden),
    hasMore: end < rest.length,
    // No clean place within `limit` (a stretch of interleaved rounds longer than it): the page is cut at
    // `limit` and its last message's round is the cursor, as without quirks.
    lastRoundId: cursor ?? lastRaw?.roundId ?? null,
  };
}
