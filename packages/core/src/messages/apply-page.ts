/**
 * Folding one page of messages into a cursor: which messages are new, and where the next read starts.
 * The two readings of `after`, and why only safe rounds are kept as the saved point, are in ./cursor.ts.
 *
 * `applyPage` is one algorithm over one page, told as its steps (positions, the safe round, where the next
 * read goes on). They share the page's ranks, bases and unsure rounds, gathered first as a `PageReading`.
 */

import {
  type CursorRound,
  type KeyedMessage,
  type MessagesCursor,
  messageKey,
  nextQuery,
  ROUNDS_BEFORE_KEPT,
  type TransientRead,
} from './cursor.js';
import type { RoundsInfo } from './rounds-info.js';

export interface PageLike<M extends { roundId: string }> {
  messages: M[];
  pagination: { hasMore: boolean; lastRoundId?: string | null };
}

export interface AppliedPage<M> {
  cursor: MessagesCursor;
  /** Messages not delivered before, oldest first. */
  fresh: KeyedMessage<M>[];
  /**
   * The page was full (hasMore) with no safe round in it, so the cursor stepped past rounds that may
   * still grow: messages may be skipped (never repeated). With pages of 200 this needs more than 200
   * unread messages of rounds still open at once.
   */
  gapPossible: boolean;
  /** hasMore, yet the next query is the one just sent: reading on would return this page forever. */
  stalled: boolean;
  /**
   * hasMore, but the service's cursor is a round the status doesn't say ended (with `holdOnRunning`, for a
   * reader that polls again anyway): the read ends here (not stalled), the next starts from the saved
   * point. Under reading (B) `after` = that round means "after its last message" when the next request
   * arrives; had it spoken meanwhile, what other rounds wrote before that would be skipped, and their
   * next messages numbered into the skipped positions.
   */
  held: boolean;
}

/** A short fingerprint of a message, to tell whether a page starts a round over. */
function fingerprint(message: unknown): string {
  const text = JSON.stringify(message) ?? '';
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${text.length}:${hash.toString(36)}`;
}

/** Creation order: the status's order where it has the round, else the cursor's, else first appearance. */
function creationOrder(known: readonly string[], statusOrder: readonly string[], page: readonly string[]) {
  const result = [...new Set(statusOrder)];
  const placed = new Set(result);
  // A round the cursor knows but the status doesn't list goes right after its predecessor in the cursor.
  let previous: string | undefined;
  for (const id of known) {
    if (!placed.has(id)) {
      const at = previous === undefined ? 0 : result.indexOf(previous) + 1;
      result.splice(at, 0, id);
      placed.add(id);
    }
    previous = id;
  }
  for (const id of page) {
    if (!placed.has(id)) {
      result.push(id);
      placed.add(id);
    }
  }
  return result;
}

/**
 * Folds one page, read with `nextQuery(cursor)`, into the cursor. `info` (from the session status read
 * before the page) says which rounds ended; without it, a session whose rounds never interleaved has
 * only its newest round growing, and once they interleave every round may grow.
 */
export function applyPage<M extends { roundId: string }>(
  cursor: MessagesCursor,
  page: PageLike<M>,
  info: RoundsInfo = {},
  /** The `limit` the page was read with: a shorter page with hasMore was cut by the service on purpose. */
  limit?: number,
  /** End the read instead of following the service's cursor into a round still at work (see `held`). */
  options: { holdOnRunning?: boolean } = {},
): AppliedPage<M> {
  const reading = readingOf(cursor, page, info);
  const placed = placeMessages(reading, cursor.interleaved);
  // Only from a safe cut: once a read went on from a point it can't keep, the saved point waits.
  const safe = reading.transient ? { id: undefined, isGuess: false } : newestSafeRound(reading, placed);
  const savedPoint = moveSavedPoint(reading, placed, safe.id, cursor.afterRoundId);
  const next = whereNextReadGoes(reading, placed, {
    safe: safe.id,
    savedPoint,
    lastRoundId: page.pagination.lastRoundId,
    limit,
    holdOnRunning: options.holdOnRunning === true,
  });
  const rounds = roundsKept(reading, next.afterRoundId);
  const { afterRoundId, read, held } = next;
  const nextCursor: MessagesCursor = {
    afterRoundId,
    rounds,
    interleaved: placed.interleaved,
    ...(read ? { read } : {}),
  };
  return {
    cursor: nextCursor,
    fresh: placed.fresh,
    gapPossible: safe.isGuess || next.gapPossible,
    stalled: reading.hasMore && !held && (nextQuery(nextCursor).after ?? null) === reading.after,
    held,
  };
}

/** What the steps of one `applyPage` share: the page, and its rounds ranked in creation order. */
interface PageReading<M extends { roundId: string }> {
  messages: M[];
  hasMore: boolean;
  info: RoundsInfo;
  /** The read this page goes on with, from a point kept for this read only. */
  transient: TransientRead | undefined;
  /** The `after` this page was read from. */
  after: string | null;
  /** The cursor's rounds (copies: the steps update them), with the rounds this page adds. */
  entries: Map<string, CursorRound>;
  /** Round ids in creation order; `rankOf` appends a round it hasn't placed yet. */
  order: string[];
  rankOf(id: string): number;
  afterRank: number;
  /** Messages of a round before the cut this page was read from (0 for a round after it: it comes whole). */
  baseOf(id: string): number;
  /** Rounds the last step was unsure of (see `TransientRead.unsure`). */
  unsure: NonNullable<TransientRead['unsure']>;
  /** The unsure rounds this page decided: their base. */
  decided: ReadonlyMap<string, number>;
}

/** Where each message of the page lies in its round, and which are new. */
interface PlacedMessages<M> {
  fresh: KeyedMessage<M>[];
  /** Messages of each round in this page. */
  inRead: Map<string, number>;
  /** Each round's last message in this page: its index. */
  lastIndex: Map<string, number>;
  interleaved: boolean;
}

/** Where the next read goes on from, and what that means for this page. */
interface NextRead {
  afterRoundId: string | null;
  read: TransientRead | null;
  /** Stepped past rounds that may still grow (see `AppliedPage.gapPossible`). */
  gapPossible: boolean;
  held: boolean;
}

/** The page's rounds in creation order, and how many of each round's messages came before the cut. */
function readingOf<M extends { roundId: string }>(
  cursor: MessagesCursor,
  page: PageLike<M>,
  info: RoundsInfo,
): PageReading<M> {
  const messages = page.messages;
  const transient = cursor.read ?? undefined;
  const after = transient ? transient.after : cursor.afterRoundId;
  const entries = new Map<string, CursorRound>(cursor.rounds.map((r) => [r.roundId, { ...r }]));
  const knownIds = cursor.rounds.map((r) => r.roundId);
  if (cursor.afterRoundId !== null && !entries.has(cursor.afterRoundId))
    knownIds.unshift(cursor.afterRoundId);
  if (transient && !knownIds.includes(transient.after)) knownIds.push(transient.after);
  const order = creationOrder(
    knownIds,
    info.order ?? [],
    messages.map((m) => m.roundId),
  );
  const rank = new Map(order.map((id, i) => [id, i]));
  const rankOf = (id: string): number => {
    let r = rank.get(id);
    if (r === undefined) {
      order.push(id);
      r = order.length - 1;
      rank.set(id, r);
    }
    return r;
  };
  const afterRank = after === null ? -1 : rankOf(after);
  const decided = new Map<string, number>();
  const baseOf = (id: string): number => {
    const known = decided.get(id);
    if (known !== undefined) return known;
    if (rankOf(id) > afterRank) return 0;
    return transient ? (transient.counts[id] ?? 0) : (entries.get(id)?.before ?? 0);
  };
  // A round the last step was unsure of: its first message here says whether it came whole again (A)
  // or goes on after what was read (B).
  const unsure = transient?.unsure ?? {};
  for (const message of messages) {
    const u = unsure[message.roundId];
    if (u === undefined || decided.has(message.roundId)) continue;
    decided.set(message.roundId, fingerprint(message) === u.first ? 0 : u.count);
  }
  const hasMore = page.pagination.hasMore;
  return {
    messages,
    hasMore,
    info,
    transient,
    after,
    entries,
    order,
    rankOf,
    afterRank,
    baseOf,
    unsure,
    decided,
  };
}

/** Positions: a round after the cut comes whole; one before it (reading (B)) comes from its base on. */
function placeMessages<M extends { roundId: string }>(
  reading: PageReading<M>,
  wasInterleaved: boolean,
): PlacedMessages<M> {
  const { entries, baseOf, rankOf } = reading;
  const inRead = new Map<string, number>();
  const lastIndex = new Map<string, number>();
  const fresh: KeyedMessage<M>[] = [];
  let interleaved = wasInterleaved;
  let newestRankSoFar = -1;
  reading.messages.forEach((message, index) => {
    const roundId = message.roundId;
    let entry = entries.get(roundId);
    if (!entry) {
      entry = { roundId, seen: 0 };
      entries.set(roundId, entry);
    }
    const count = inRead.get(roundId) ?? 0;
    inRead.set(roundId, count + 1);
    lastIndex.set(roundId, index);
    const position = baseOf(roundId) + count;
    if (position >= entry.seen) {
      fresh.push({ key: messageKey(roundId, position), roundId, position, message });
      entry.seen = position + 1;
    }
    const r = rankOf(roundId);
    if (r < newestRankSoFar) interleaved = true;
    newestRankSoFar = Math.max(newestRankSoFar, r);
  });
  return { fresh, inRead, lastIndex, interleaved };
}

/** Whether a round may still grow, as far as the status read before the page and the page tell. */
function mayGrowIn<M extends { roundId: string }>(
  reading: PageReading<M>,
  placed: PlacedMessages<M>,
): (id: string) => boolean {
  const { info, rankOf } = reading;
  const newestRank = reading.order.length - 1;
  const ended = new Set(info.ended ?? []);
  const running = new Set(info.running ?? []);
  return (id) => {
    if (info.terminal) return false;
    if (ended.has(id)) return false;
    if (running.has(id)) return true;
    return placed.interleaved || rankOf(id) === newestRank;
  };
}

/**
 * Is its last message in this page? Sure when nothing comes after the page or its round object's count
 * is reached; a guess when rounds have taken turns so far and a later round spoke after it (a round
 * may still have talked beyond the page: under (A) that rest can't be read, so the step reports it).
 */
function lastSeen<M extends { roundId: string }>(
  reading: PageReading<M>,
  placed: PlacedMessages<M>,
  id: string,
): 'yes' | 'guess' | 'no' {
  const { messages, rankOf } = reading;
  if (!reading.hasMore) return 'yes';
  // The contract doesn't define a round's count: one smaller than what came isn't what we think it
  // is, and is not trusted.
  const count = reading.info.counts?.[id];
  const got = placed.inRead.get(id) ?? 0;
  if (count !== undefined && got <= count) return got === count ? 'yes' : 'no';
  if (placed.interleaved) return 'no';
  const last = placed.lastIndex.get(id) ?? -1;
  const r = rankOf(id);
  return messages.some((m, i) => i > last && rankOf(m.roundId) > r) ? 'guess' : 'no';
}

/**
 * The newest safe round: every round after the cut up to it closed with its last message seen, and no
 * message of a later round before its last message. (Rounds before the cut were judged so already.)
 */
function newestSafeRound<M extends { roundId: string }>(
  reading: PageReading<M>,
  placed: PlacedMessages<M>,
): { id: string | undefined; isGuess: boolean } {
  const { messages, order, rankOf } = reading;
  const mayGrow = mayGrowIn(reading, placed);
  let safe: string | undefined;
  let safeIsGuess = false;
  let guessed = false;
  for (let r = reading.afterRank + 1; r < order.length; r++) {
    const id = order[r] as string;
    const seenAll = mayGrow(id) ? 'no' : lastSeen(reading, placed, id);
    if (seenAll === 'no') break;
    guessed ||= seenAll === 'guess';
    const cut = placed.lastIndex.get(id);
    if (cut === undefined) continue;
    const laterBefore = messages.some((m, i) => i < cut && rankOf(m.roundId) > r);
    if (!laterBefore) {
      safe = id;
      safeIsGuess = guessed;
    }
  }
  return { id: safe, isGuess: safeIsGuess };
}

/** The saved point moves to a new safe round: rounds up to it record how many of their messages lie before it. */
function moveSavedPoint<M extends { roundId: string }>(
  reading: PageReading<M>,
  placed: PlacedMessages<M>,
  safe: string | undefined,
  savedPoint: string | null,
): string | null {
  if (safe === undefined || safe === savedPoint) return savedPoint;
  const { entries, rankOf } = reading;
  const safeRank = rankOf(safe);
  const cut = placed.lastIndex.get(safe) as number;
  const beforeCut = countsUpTo(reading.messages, cut);
  for (const id of reading.order) {
    if (rankOf(id) > safeRank) continue;
    let entry = entries.get(id);
    if (!entry) {
      entry = { roundId: id, seen: 0 };
      entries.set(id, entry);
    }
    entry.before = reading.baseOf(id) + (beforeCut.get(id) ?? 0);
  }
  return safe;
}

/** Where the next read goes on from: the saved point, a point kept for this read only, or held. */
function whereNextReadGoes<M extends { roundId: string }>(
  reading: PageReading<M>,
  placed: PlacedMessages<M>,
  step: {
    safe: string | undefined;
    savedPoint: string | null;
    lastRoundId: string | null | undefined;
    limit: number | undefined;
    holdOnRunning: boolean;
  },
): NextRead {
  const { messages, transient } = reading;
  const kept: NextRead = {
    afterRoundId: step.savedPoint,
    read: transient ?? null,
    gapPossible: false,
    held: false,
  };
  // The read is over: the next one starts from the saved (safe) point again.
  if (!reading.hasMore) return { ...kept, read: null };
  if (step.safe !== undefined && !transient) return kept;
  // More to read, but no safe point to read on from. Go on from a point kept for this read only, so a
  // round that grows later is read again from the saved point next time.
  const lastRoundId = step.lastRoundId;
  const server = typeof lastRoundId === 'string' && lastRoundId !== reading.after ? lastRoundId : undefined;
  // The service's own cursor, when it cut the page short on purpose (a page cut by the limit may end
  // in the middle of that round, and going on after it would skip the rest): with no later round in
  // the page, both readings agree from there (under (B) the page ends at its last message; under (A)
  // later rounds come whole).
  // Not a round still running, though: see `held`.
  const short = step.limit !== undefined && messages.length < step.limit;
  if (server !== undefined && (short || messages.length === 0)) {
    if (step.holdOnRunning && stillRuns(reading.info, server)) return { ...kept, read: null, held: true };
    return { ...kept, read: transientFrom(reading, server, messages.length - 1) };
  }
  if (messages.length === 0) return kept;
  return stepToNewestRound(reading, placed);
}

/**
 * The status read before the page doesn't say the round ended: it may be at work (a round newer than
 * that status too). A round waiting on a person's answer says nothing more meanwhile: followed, as
 * holding on it would hold the rounds after it until the answer.
 */
function stillRuns(info: RoundsInfo, id: string): boolean {
  const ended = new Set(info.ended ?? []);
  const waiting = new Set(info.waiting ?? []);
  return !info.terminal && !ended.has(id) && !waiting.has(id);
}

/**
 * Else the newest round of the page: no later round has a message in it, so under (A) later rounds still
 * come whole (exact) and under (B) positions can only fall short (a message missed, never one delivered
 * twice). Reported.
 */
function stepToNewestRound<M extends { roundId: string }>(
  reading: PageReading<M>,
  placed: PlacedMessages<M>,
): NextRead {
  const { messages, entries, rankOf } = reading;
  let newest: string | undefined;
  for (const id of placed.inRead.keys()) {
    if (rankOf(id) > reading.afterRank && (newest === undefined || rankOf(id) > rankOf(newest))) newest = id;
  }
  const target = newest ?? (messages[messages.length - 1] as M).roundId;
  const step = transientFrom(reading, target, placed.lastIndex.get(target) as number);
  // Kept, not just for this read: a later read from the old point would number the rounds read past
  // here exactly, where this read may have numbered them short, and deliver a message twice.
  const targetRank = rankOf(target);
  for (const id of reading.order) {
    const entry = entries.get(id);
    if (rankOf(id) > targetRank) continue;
    const n = step.counts[id] ?? 0;
    if (entry) entry.before = n;
    else entries.set(id, { roundId: id, seen: 0, before: n });
  }
  return { afterRoundId: target, read: null, gapPossible: true, held: false };
}

/**
 * Goes on after `target`, the page's messages up to `cut` lying before that point. A round created
 * after `target` with messages in this read is one the two readings disagree on: noted as unsure.
 */
function transientFrom<M extends { roundId: string }>(
  reading: PageReading<M>,
  target: string,
  cut: number,
): TransientRead {
  const { messages, rankOf, baseOf, unsure, decided } = reading;
  const targetRank = rankOf(target);
  const beforeCut = countsUpTo(messages, cut);
  const counts: Record<string, number> = {};
  const nextUnsure: Record<string, { count: number; first: string }> = {};
  for (const id of reading.order) {
    const n = baseOf(id) + (beforeCut.get(id) ?? 0);
    if (rankOf(id) <= targetRank) {
      if (n > 0) counts[id] = n;
      continue;
    }
    const carried = unsure[id];
    if (carried !== undefined && !decided.has(id)) {
      nextUnsure[id] = carried;
    } else if ((beforeCut.get(id) ?? 0) > 0) {
      const first = messages.find((m) => m.roundId === id) as M;
      // Its first message here is its first of the read (it came whole, or from where (B) goes on).
      nextUnsure[id] = { count: n, first: fingerprint(first) };
    }
  }
  return {
    after: target,
    counts,
    ...(Object.keys(nextUnsure).length > 0 ? { unsure: nextUnsure } : {}),
  };
}

/**
 * The rounds the next cursor keeps, in creation order. Bounded: the newest rounds before the saved point
 * (and the point itself) stay, with every round after it.
 */
function roundsKept<M extends { roundId: string }>(
  reading: PageReading<M>,
  afterRoundId: string | null,
): CursorRound[] {
  const { rankOf } = reading;
  const savedRank = afterRoundId === null ? -1 : rankOf(afterRoundId);
  const ordered = reading.order
    .map((id) => reading.entries.get(id))
    .filter((e): e is CursorRound => e !== undefined)
    .map((e) => {
      // A round after the saved point has no `before`: it comes whole.
      if (rankOf(e.roundId) > savedRank && e.before !== undefined) {
        const { before: _drop, ...rest } = e;
        return rest;
      }
      return e;
    });
  const beforeCount = ordered.filter((e) => rankOf(e.roundId) <= savedRank).length;
  return ordered.slice(Math.max(0, beforeCount - ROUNDS_BEFORE_KEPT));
}

function countsUpTo<M extends { roundId: string }>(messages: M[], cut: number): Map<string, number> {
  const counts = new Map<string, number>();
  messages.forEach((m, i) => {
    if (i <= cut) counts.set(m.roundId, (counts.get(m.roundId) ?? 0) + 1);
  });
  return counts;
}
