/**
 * Yardsticks for bench:slack: the round-robin floor (what posting the channel's threads in
 * turn, at the sandbox's posting limit, implies for message surfacing) and, at K = 4, how long after the
 * service finished the threads caught up.
 */
import { percentile } from '../stats.js';

/** The paced bot's targets against the round-robin floor and for catching up. */
export const ROUND_ROBIN_TARGET = { floorK: 20, messageP95ToFloor: 1.5, caughtUpK: 4, caughtUpMs: 10_000 };

export const ROUND_ROBIN_TARGET_TEXT = `K = ${ROUND_ROBIN_TARGET.floorK}, paced: message surfacing p95 <= ${ROUND_ROBIN_TARGET.messageP95ToFloor} x the round-robin floor; K = ${ROUND_ROBIN_TARGET.caughtUpK}: threads caught up <= ${ROUND_ROBIN_TARGET.caughtUpMs / 1000} s after the service finished`;

/** What one thread asks of the channel. */
export interface ThreadDemand {
  /** Its card (a top-level post) is asked for at this time. */
  cardAt: number;
  /** Each agent message, when the agent said it. */
  messages: number[];
  /** A prompt posted at this time (a person waits: ahead of chatter). */
  askedAt?: number;
  /** Its report, once its messages are out (not before this time). */
  finishedAt?: number;
}

/**
 * The channel's posts one at a time at `perSecond` with bursts of `burst` (a token bucket, full at the
 * start), cards and prompts first, then the threads in turn: each turn is one post carrying everything its
 * thread has waiting (a batch), then the next thread with something waiting. Returns when each message
 * was posted, by thread (same order as `messages`); a message never posted (past `untilMs`) has none.
 */
export function roundRobin(
  threads: ThreadDemand[],
  limit: { perSecond: number; burst: number },
  untilMs = Number.POSITIVE_INFINITY,
): Array<Array<number | undefined>> {
  const shown = threads.map((t) => t.messages.map((): number | undefined => undefined));
  const next = threads.map(() => 0); // each thread's first message not yet posted
  const urgent = threads
    .flatMap((t) => [t.cardAt, ...(t.askedAt === undefined ? [] : [t.askedAt])])
    .sort((a, b) => a - b);
  const reportDue = threads.map((t) => t.finishedAt);
  const start = Math.min(...threads.map((t) => t.cardAt));
  const gap = 1000 / limit.perSecond;
  let tokens = limit.burst;
  let tokensAt = start;
  let turn = 0;
  let t = start;
  for (;;) {
    // Tokens refilled up to t.
    tokens = Math.min(limit.burst, tokens + (t - tokensAt) / gap);
    tokensAt = t;
    if (tokens < 1) {
      // Exactly when the next token is in (recomputing it from the wait could fall a hair short, forever).
      t += (1 - tokens) * gap;
      tokens = 1;
      tokensAt = t;
    }
    // What may go now: a card or prompt first, then the next thread in turn with a message said by t.
    if (urgent.length > 0 && (urgent[0] as number) <= t) {
      urgent.shift();
      tokens -= 1;
      continue;
    }
    let posted = false;
    for (let i = 0; i < threads.length && !posted; i++) {
      const k = (turn + i) % threads.length;
      const thread = threads[k] as ThreadDemand;
      const waiting = thread.messages.slice(next[k]).filter((at) => at <= t).length;
      const report = reportDue[k];
      if (waiting > 0) {
        for (let m = 0; m < waiting; m++)
          (shown[k] as Array<number | undefined>)[(next[k] as number) + m] = t;
        next[k] = (next[k] as number) + waiting;
      } else if (report !== undefined && report <= t && next[k] === thread.messages.length) {
        reportDue[k] = undefined;
      } else continue;
      tokens -= 1;
      turn = k + 1;
      posted = true;
    }
    if (posted) continue;
    // Nothing waiting: jump to the next thing said or asked for.
    const later = [
      ...urgent,
      ...threads.flatMap((th, k) => [
        ...th.messages.slice(next[k]).filter((at) => at > t),
        ...(reportDue[k] !== undefined && (reportDue[k] as number) > t ? [reportDue[k] as number] : []),
      ]),
    ];
    if (later.length === 0) break;
    t = Math.min(...later);
    if (t > untilMs) break;
  }
  return shown;
}

/** The round-robin floor's message surfacing p50/p95 (ms), over every message said. */
export function roundRobinFloor(
  threads: ThreadDemand[],
  limit: { perSecond: number; burst: number },
): { p50Ms: number; p95Ms: number } {
  const shown = roundRobin(threads, limit);
  const waits = threads.flatMap((th, k) =>
    th.messages.map((at, m) => (shown[k]?.[m] ?? Number.POSITIVE_INFINITY) - at),
  );
  return { p50Ms: percentile(waits, 50), p95Ms: percentile(waits, 95) };
}
