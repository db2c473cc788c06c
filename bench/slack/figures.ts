/**
 * The Slack benchmark's figures: what each side showed of what the agents said (latencies, missing and
 * duplicated messages, 429s), read from the emulator's event log and the sandbox's threads. Every figure,
 * the per-thread timeline included, comes from one pass over the same threads.
 */
import type { Sessions } from '@agent-sessions/core';
import type { EmulatorEvent } from '@agent-sessions/emulator';
import type { Bot } from '../bot.js';
import { percentile, round } from '../stats.js';
import { type AgentMessage, needleOf, occurrences } from './match.js';
import { roundRobinFloor, type ThreadDemand } from './round-robin.js';
import { CHANNEL, isTopLevel, type Side, type Strategy, type Tracked, textOf } from './sides.js';

const QUESTION_PROMPT = 'Deploy v2.3.1 to production?';

export interface Latencies {
  count: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Some were never shown by the end: their waits count as at least the time waited (≥). */
  lowerBound: boolean;
}

export interface SideFigures {
  strategy: Strategy;
  sessions: number;
  /** Sessions the service knows (the bot creates each after posting its card). */
  sessionsStarted: number;
  /** `/agent start` -> the session's card in the channel. */
  cardSurfacing: Latencies;
  messages: number;
  messageSurfacing: Latencies;
  questionSurfacing: Latencies & {
    /** Question sessions (the bot creates each after posting its card: a question is asked only then). */
    sessions: number;
    /** Chatter not yet shown in the channel when each question was asked (median). */
    backlogAtAskMedian: number;
    /**
     * Each question, in the order asked: seconds after the phase's start it was asked, and its wait (ms,
     * a lower bound when not shown).
     */
    each: Array<{ askedS: number; ms: number; shown: boolean }>;
  };
  calls: {
    total: number;
    ratelimited: number;
    ratelimitedPercent: number;
    byMethod: Record<string, { total: number; ratelimited: number }>;
  };
  missing: number;
  /** A few of the messages not shown, by the text they were looked for with (what to look at first). */
  missingSample: string[];
  duplicated: number;
  /**
   * Naive only (one post per message): the least its p50/p95 can be given Slack's own limit, as the
   * messages still unshown at the end can come at most `burst + t` in the next t seconds.
   */
  slackFloor?: { p50Ms: number; p95Ms: number };
  /** From the first session's start to the last agent message shown (or the end, when some are missing). */
  drainedMs: number;
  complete: boolean;
  /** What the bot's own /metrics said at the end (batch sizes, 429s it saw). */
  botMetrics?: BotMetricsSeen;
  /** Message surfacing if the channel's threads were posted in turn at Slack's limit (round-robin.ts). */
  roundRobinFloor: { p50Ms: number; p95Ms: number };
  /**
   * From the last chatty session's end at the service to the last of their messages shown (≥ when some
   * were never shown); absent until every chatty session finished.
   */
  caughtUp?: { afterMs: number; lowerBound: boolean };
  /**
   * Per thread, seconds after the phase's start: when the service said it finished, when its thread last
   * changed, and each message said -> shown (where the p95 goes: which messages wait, behind what).
   */
  timeline?: ThreadTimeline[];
}

export interface ThreadTimeline {
  kind: Tracked['kind'];
  finishedS?: number;
  lastPostS?: number;
  messages: Array<[number, number | null]>;
}

export interface BotMetricsSeen {
  batches: number;
  batchedMessages: number;
  meanBatchSize: number;
  rateLimitedSeen: number;
}

/**
 * Every message of a session, oldest first, grouped by round: core's listMessages (its cursor neither
 * skips nor repeats a round cut by a page), pages of 200, at most 100 of them.
 */
async function messagesOf(sessions: Sessions, sessionId: string): Promise<Map<string, AgentMessage[]>> {
  const byRound = new Map<string, AgentMessage[]>();
  for await (const { message } of sessions.listMessages(sessionId, { pageSize: 200, maxPages: 100 })) {
    const list = byRound.get(message.roundId) ?? [];
    list.push(message);
    byRound.set(message.roundId, list);
  }
  return byRound;
}

export interface Expected {
  sessionId: string;
  /** The emulator is done with it: finished (chatter) or asking (question); nothing more to come. */
  said: boolean;
  /** Each agent message the bot should show: its needle and when the emulator made it. */
  messages: Array<{ needle: string; at: number; chatty: boolean }>;
  /** When its question was asked (question sessions). */
  askedAt?: number;
  /** When the service said it finished. */
  finishedAt?: number;
}

/** What one side shows of the expected messages, as of `now` (`final`: the phase is over). */
export function evaluate(
  side: Side,
  expected: Map<string, Expected>,
  t0: number,
  now: number,
  frozen: boolean,
): SideFigures {
  const ws = side.sandbox.workspace;
  const channel = ws.messages.get(CHANNEL) ?? [];
  const messageWaits: Array<{ ms: number; censored: boolean }> = [];
  const questionWaits: Array<{ ms: number; censored: boolean; askedAt: number }> = [];
  const chatterShown: Array<{ at: number; shownAt: number | undefined }> = [];
  let missing = 0;
  const missingSample: string[] = [];
  let duplicated = 0;
  let lastShown = t0;
  let messages = 0;
  const cardWaits: Array<{ ms: number; censored: boolean }> = [];
  const demand: ThreadDemand[] = [];
  const chattyEnds: Array<number | undefined> = [];
  const timeline: ThreadTimeline[] = [];
  const sec = (ms: number) => round((ms - t0) / 1000, 1);
  for (const tracked of side.tracked) {
    const card = channel.find((m) => isTopLevel(m) && textOf(m).includes(tracked.goal));
    cardWaits.push(
      card
        ? { ms: Math.max(0, Number(card.ts) * 1000 - tracked.sentAt), censored: false }
        : { ms: now - tracked.sentAt, censored: true },
    );
    const exp = tracked.sessionId ? expected.get(tracked.sessionId) : undefined;
    if (tracked.kind === 'chatty') chattyEnds.push(exp?.finishedAt);
    if (!exp) continue;
    demand.push({
      cardAt: tracked.sentAt,
      messages: exp.messages.map((m) => m.at).sort((a, b) => a - b),
      ...(exp.askedAt === undefined ? {} : { askedAt: exp.askedAt }),
      ...(exp.finishedAt === undefined ? {} : { finishedAt: exp.finishedAt }),
    });
    const replies = card ? ws.replies(CHANNEL, card.ts).map(textOf) : [];
    const seen = card ? (side.appearances.get(card.ts) ?? []) : [];
    /**
     * When each occurrence of `needle` was first shown, in order: a thread message showing it n times (a
     * batch of messages alike, such as tool calls of one name, or a stream as it grows) counts n times,
     * each from the moment it showed that many.
     */
    const shownTimes = (needle: string): number[] => {
      const shown = new Map<string, number>();
      const times: number[] = [];
      for (const a of seen) {
        const n = occurrences(a.text, needle);
        for (let i = shown.get(a.ts) ?? 0; i < n; i++) times.push(a.at);
        shown.set(a.ts, Math.max(n, shown.get(a.ts) ?? 0));
      }
      return times.sort((a, b) => a - b);
    };
    const line: ThreadTimeline = {
      kind: tracked.kind,
      ...(exp.finishedAt === undefined ? {} : { finishedS: sec(exp.finishedAt) }),
      ...(seen.length ? { lastPostS: sec(Math.max(...seen.map((a) => a.at))) } : {}),
      messages: [],
    };
    timeline.push(line);
    const groups = new Map<string, Array<{ at: number; chatty: boolean }>>();
    for (const m of exp.messages) groups.set(m.needle, [...(groups.get(m.needle) ?? []), m]);
    for (const [needle, group] of groups) {
      const found = replies.reduce((n, text) => n + occurrences(text, needle), 0);
      const times = shownTimes(needle);
      group.sort((a, b) => a.at - b.at);
      for (const [i, m] of group.entries()) {
        messages += 1;
        const shownAt = i < found ? times[i] : undefined;
        if (shownAt === undefined) {
          missing += 1;
          if (missingSample.length < 5) missingSample.push(needle.slice(0, 80));
          messageWaits.push({ ms: now - m.at, censored: true });
        } else {
          messageWaits.push({ ms: Math.max(0, shownAt - m.at), censored: false });
          lastShown = Math.max(lastShown, shownAt);
        }
        if (m.chatty) chatterShown.push({ at: m.at, shownAt });
        line.messages.push([sec(m.at), shownAt === undefined ? null : sec(shownAt)]);
      }
      duplicated += Math.max(0, found - group.length);
    }
    if (exp.askedAt !== undefined) {
      const shownAt = shownTimes(QUESTION_PROMPT)[0];
      questionWaits.push(
        shownAt === undefined
          ? { ms: now - exp.askedAt, censored: true, askedAt: exp.askedAt }
          : { ms: Math.max(0, shownAt - exp.askedAt), censored: false, askedAt: exp.askedAt },
      );
    }
  }
  const latencies = (waits: Array<{ ms: number; censored: boolean }>): Latencies => {
    const ms = waits.map((w) => w.ms);
    return {
      count: waits.length,
      p50Ms: percentile(ms, 50),
      p95Ms: percentile(ms, 95),
      maxMs: Math.max(0, ...ms),
      lowerBound: waits.some((w) => w.censored),
    };
  };
  const backlogs = questionWaits.map(
    (q) => chatterShown.filter((c) => c.at <= q.askedAt && (c.shownAt ?? Infinity) > q.askedAt).length,
  );
  const questionsExpected = side.tracked.filter((t) => t.kind === 'question').length;
  const serviceFinished = chattyEnds.every((at) => at !== undefined) ? Math.max(...chattyEnds) : undefined;
  const chatterUnshown = chatterShown.some((c) => c.shownAt === undefined);
  const caughtUpAt = chatterUnshown ? now : Math.max(0, ...chatterShown.map((c) => c.shownAt ?? 0));
  // Once frozen, what was said by the deadline is all there is to show.
  const all = frozen || side.tracked.every((t) => t.sessionId && expected.get(t.sessionId)?.said);
  return {
    strategy: side.strategy,
    sessions: side.tracked.length,
    sessionsStarted: side.tracked.filter((t) => t.sessionId).length,
    cardSurfacing: latencies(cardWaits),
    messages,
    messageSurfacing: latencies(messageWaits),
    questionSurfacing: {
      ...latencies(questionWaits),
      sessions: questionsExpected,
      backlogAtAskMedian: percentile(backlogs, 50),
      each: questionWaits
        .toSorted((a, b) => a.askedAt - b.askedAt)
        .map((q) => ({ askedS: sec(q.askedAt), ms: q.ms, shown: !q.censored })),
    },
    calls: {
      total: side.calls.total,
      ratelimited: side.calls.ratelimited,
      ratelimitedPercent: side.calls.total ? round((100 * side.calls.ratelimited) / side.calls.total, 2) : 0,
      byMethod: Object.fromEntries(side.calls.byMethod),
    },
    missing,
    missingSample,
    duplicated,
    drainedMs: missing ? now - t0 : lastShown - t0,
    roundRobinFloor: demand.length ? roundRobinFloor(demand, POST_RATE) : { p50Ms: 0, p95Ms: 0 },
    ...(serviceFinished === undefined || chattyEnds.length === 0
      ? {}
      : { caughtUp: { afterMs: caughtUpAt - serviceFinished, lowerBound: chatterUnshown } }),
    timeline,
    complete:
      all &&
      missing === 0 &&
      // Frozen, a question session that never got to ask has nothing to show (its card figure says why).
      (frozen || questionWaits.length === questionsExpected) &&
      questionWaits.every((q) => !q.censored),
  };
}

export async function expectedOf(sessions: Sessions, t: Tracked, events: EmulatorEvent[]): Promise<Expected> {
  const sessionId = t.sessionId as string;
  const byRound = await messagesOf(sessions, sessionId);
  const messages: Expected['messages'] = [];
  for (const e of events) {
    if (
      e.sessionId !== sessionId ||
      e.type !== 'message' ||
      e.roundId === undefined ||
      e.position === undefined
    )
      continue;
    const message = byRound.get(e.roundId)?.[e.position];
    if (!message) throw new Error(`${sessionId}: no message at ${e.roundId}#${e.position}`);
    const needle = needleOf(message);
    if (needle) messages.push({ needle, at: e.at, chatty: t.kind === 'chatty' });
  }
  const asked = events.find((e) => e.sessionId === sessionId && e.type === 'human_input_needed');
  const finished = events.find((e) => e.sessionId === sessionId && e.type === 'finished');
  const said =
    t.kind === 'chatty'
      ? events.some((e) => e.sessionId === sessionId && e.type === 'finished')
      : asked !== undefined;
  return {
    sessionId,
    said,
    messages,
    ...(asked ? { askedAt: asked.at } : {}),
    ...(finished ? { finishedAt: finished.at } : {}),
  };
}

/** The sandbox's default `chat.postMessage` limit per channel (Slack's): 60 a minute, bursts of 5. */
const POST_RATE = { perSecond: 1, burst: 5 };

/**
 * A lower bound on a one-post-per-message strategy's percentiles from Slack's limit alone: of the U
 * messages unshown at the end, at most `burst + t` can be shown in the next t seconds, so at least
 * U - burst - t of them wait more than t beyond the end. The nearest-rank p-th of N is at least t when
 * that many is at least N - rank + 1.
 */
export function slackFloor(f: SideFigures): { p50Ms: number; p95Ms: number } {
  const floor = (measuredMs: number, p: number) => {
    const rank = Math.max(1, Math.ceil((p / 100) * f.messages));
    const t = (f.missing - POST_RATE.burst - (f.messages - rank + 1)) / POST_RATE.perSecond;
    return Math.max(measuredMs, t * 1000);
  };
  return { p50Ms: floor(f.messageSurfacing.p50Ms, 50), p95Ms: floor(f.messageSurfacing.p95Ms, 95) };
}

/** The bot's own figures from its /metrics (Prometheus text): batch sizes, 429s it saw. */
export async function botMetrics(bot: Bot): Promise<BotMetricsSeen> {
  const response = await fetch(new URL('/metrics', bot.eventsUrl), { signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(name) && /^[a-z_]+(\{[^}]*\})? /.test(line))
      .filter((line) => line.split(/[ {]/)[0] === name)
      .reduce((n, line) => n + Number(line.split(' ').at(-1)), 0);
  const batches = sum('slack_post_batch_size_count');
  const batchedMessages = sum('slack_post_batch_size_sum');
  return {
    batches,
    batchedMessages,
    meanBatchSize: batches ? round(batchedMessages / batches, 2) : 0,
    rateLimitedSeen: sum('slack_rate_limited_total'),
  };
}
