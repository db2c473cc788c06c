/**
 * What Slack's limits alone allow a scale run, worked out from the sandbox's limits and the posts the run
 * made: no bot can show the outcomes sooner, so the bot's figures are read as ratios to these floors.
 *
 * - Outcome in thread: every post of a channel spends its budget (one a second, a burst of 5), under the
 *   workspace's post budget. A session starts only once its card is posted (cards first), and at best
 *   each session's other posts then go one session after another, so the k-th report of a channel comes
 *   no sooner than the post numbered cards + k × (its session's other posts).
 *   Nor sooner than the service finished the session: the k-th report no sooner than the k-th session done.
 * - Card final: a card's final edit comes after its report (the thread reads in order), and every final
 *   edit spends the workspace's chat.update budget (Tier 3: 50 a minute, a burst of 50).
 * - The same for both surfaces, each with the posts its run made: on the agent surface (`auto`) a
 *   streamed session's chatter is no post but appends to its stream (chat.appendStream, Tier 4, the
 *   workspace's 100 a minute, which a run's few hundred appends never fill), so the channel's posts are
 *   its cards, the chatter of the sessions that got no stream start, and the reports. A stream's start
 *   and stop (Tier 2, 20 a minute each) lie on no session's way to its outcome: a start is taken only
 *   when one is free (else the chatter is posted), and a stop goes after the report.
 */
import { percentile } from '../stats.js';

export interface Rate {
  perMinute: number;
  burst: number;
}

export interface FloorLimits {
  postPerChannel: Rate;
  postWorkspace: Rate;
  update: Rate;
}

export interface ChannelPosts {
  sessions: number;
  /** Every post the run made in the channel: cards, chatter, reports (and prompts, notes). */
  posts: number;
}

export interface Floors {
  outcomeP50Ms: number;
  outcomeP95Ms: number;
  cardFinalP50Ms: number;
  cardFinalP95Ms: number;
  /** When the last post of the busiest channel could go (all posts at the channel's rate). */
  lastPostMs: number;
}

/** A token bucket in simulated time: when each of a run of calls could go at the soonest. */
class Bucket {
  #tokens: number;
  #at = 0;
  constructor(private readonly rate: Rate) {
    this.#tokens = rate.burst;
  }
  /** The soonest time ≥ `t` a token is free (not taken). */
  when(t: number): number {
    const now = Math.max(t, this.#at);
    const tokens = this.#tokensAt(now);
    return tokens >= 1 ? now : now + ((1 - tokens) * 60_000) / this.rate.perMinute;
  }
  take(t: number): void {
    const now = Math.max(t, this.#at);
    this.#tokens = this.#tokensAt(now) - 1;
    this.#at = now;
  }
  #tokensAt(t: number): number {
    return Math.min(this.rate.burst, this.#tokens + ((t - this.#at) * this.rate.perMinute) / 60_000);
  }
}

/** The time of each post of every channel, all channels posting at once round-robin, as soon as allowed. */
function postTimes(limits: FloorLimits, channels: ChannelPosts[]): number[][] {
  const workspace = new Bucket(limits.postWorkspace);
  const own = channels.map(() => new Bucket(limits.postPerChannel));
  const times: number[][] = channels.map(() => []);
  for (;;) {
    let best = -1;
    let bestAt = Number.POSITIVE_INFINITY;
    for (const [i, c] of channels.entries()) {
      const posted = times[i] as number[];
      if (posted.length >= c.posts) continue;
      const t = (own[i] as Bucket).when(posted.at(-1) ?? 0);
      if (t < bestAt) {
        bestAt = t;
        best = i;
      }
    }
    if (best < 0) return times;
    const t = workspace.when(bestAt);
    workspace.take(t);
    (own[best] as Bucket).take(t);
    (times[best] as number[]).push(t);
  }
}

/** `doneMs`: when the service finished each session, after the start (as the emulator's events say). */
export function floorsOf(limits: FloorLimits, channels: ChannelPosts[], doneMs: number[] = []): Floors {
  const times = postTimes(limits, channels);
  const outcomes: number[] = [];
  for (const [i, c] of channels.entries()) {
    const posts = times[i] as number[];
    if (c.sessions === 0 || posts.length === 0) continue;
    const perSession = Math.max(1, (c.posts - c.sessions) / c.sessions);
    for (let k = 1; k <= c.sessions; k++) {
      const index = Math.min(posts.length, Math.round(c.sessions + k * perSession)) - 1;
      outcomes.push(posts[Math.max(0, index)] as number);
    }
  }
  outcomes.sort((a, b) => a - b);
  const done = [...doneMs].sort((a, b) => a - b);
  for (const [k, t] of outcomes.entries()) outcomes[k] = Math.max(t, done[k] ?? 0);
  const update = new Bucket(limits.update);
  const finals = outcomes.map((t) => {
    const at = update.when(t);
    update.take(at);
    return at;
  });
  return {
    outcomeP50Ms: Math.round(percentile(outcomes, 50)),
    outcomeP95Ms: Math.round(percentile(outcomes, 95)),
    cardFinalP50Ms: Math.round(percentile(finals, 50)),
    cardFinalP95Ms: Math.round(percentile(finals, 95)),
    lastPostMs: Math.round(Math.max(0, ...times.map((t) => t.at(-1) ?? 0))),
  };
}
