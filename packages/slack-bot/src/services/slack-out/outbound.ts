/**
 * The paced outbound queue. Over 300 lines because choosing the next call (its priority, its limit, the
 * limits that have room), sending it and answering a 429 share one lane's state and read best together.
 */
import { type Clock, systemClock, TokenBucket } from '@agent-sessions/core';
import type { Logger } from '../../logger.js';
import type { BotMetrics } from '../ops/metrics.js';
import type { SlackChat, SlackClient } from './slack.js';

/**
 * What goes first in a channel: prompts, answers and refusals (a person is waiting), then a session's
 * outcome (its report, once its chatter is out), then card edits, then the agent's chatter (which batches
 * while it waits). Priority only orders calls that spend the same limit: a call whose limit has room never
 * waits behind one whose limit has none.
 */
export type OutboundPriority = 'urgent' | 'outcome' | 'edit' | 'chatter';
const PRIORITIES: readonly OutboundPriority[] = ['urgent', 'outcome', 'edit', 'chatter'];

/**
 * Which of Slack's limits a call spends. `turn`: no call at all, only a turn in the queue (a batch waits
 * for its turn, then queues its post); `history` runs in a lane of its own, so a crash look-up (Slack may
 * allow one a minute) never holds the channel's posts.
 */
export type OutboundMethod = 'post' | 'update' | 'upload' | 'tier4' | 'history' | 'turn';

export interface OutboundCall<T> {
  /** The channel whose queue it waits in (a user id for a DM). */
  channel: string;
  priority: OutboundPriority;
  method: OutboundMethod;
  run: () => Promise<T>;
  /** Whose call it is (a session id): `promote` moves a session's waiting calls ahead. */
  tag?: string;
  /**
   * Asked when the call could go: true while it may spend only what its limit would otherwise lose (a
   * card's progress): it waits for a full bucket, so what is saved up stays for what matters more.
   */
  spare?: () => boolean;
}

export interface OutboundOptions {
  /** `off`: every call runs at once and 429s are left to the Web API client (the benchmark's naive way). */
  pacing?: 'on' | 'off';
  /**
   * chat.postMessage per channel: Slack allows about 1 a second with short bursts. Every post the bot
   * makes goes through here (a session's first card too), so the queue may spend the whole of it.
   */
  postPerSecond?: number;
  postBurst?: number;
  /**
   * chat.update (Tier 3, 50+ a minute) for the whole workspace, and the edits it may send at once: Slack
   * counts its tiers per minute and tolerates bursts, so a minute's worth by default.
   */
  updatePerMinute?: number;
  updateBurst?: number;
  /** views / ephemerals (Tier 4, ~100 a minute) for the whole workspace. */
  tier4PerMinute?: number;
  /**
   * conversations.replies / history (crash look-ups only): Tier 3 for most apps. Where Slack allows one a
   * minute (commercial apps outside the Marketplace), its 429s pause the look-ups' lane, nothing else.
   */
  historyPerMinute?: number;
  /** A 429 without a usable Retry-After pauses the limit it hit this long. */
  defaultRetryAfterMs?: number;
  clock?: Clock;
}

interface Job {
  call: OutboundCall<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  channel: string;
  queues: Record<OutboundPriority, Job[]>;
  post: TokenBucket;
  running: boolean;
  /** Calls of this lane sent and not yet answered (only those that need no order: edits, views). */
  inFlight: number;
  /** Wakes the lane's wait early: a call came that may go sooner. */
  wake: AbortController | undefined;
}

/** A 429 from Slack: Bolt's client with `rejectRateLimitedCalls`, or a raw `ratelimited` answer. */
export function rateLimitedRetryAfterMs(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; retryAfter?: unknown; data?: { error?: unknown } };
  if (e.code !== 'slack_webapi_rate_limited_error' && e.data?.error !== 'ratelimited') return undefined;
  return typeof e.retryAfter === 'number' && e.retryAfter >= 0 ? e.retryAfter * 1000 : -1;
}

/**
 * One queue per channel, paced to Slack's limits so it normally never meets a 429. Each call spends one
 * limit (the channel's posts, or the workspace's edits, views, look-ups); the queue sends the most urgent
 * call whose limit has room, so a post never waits for an edit the workspace's edit budget holds back.
 * Calls spending the same limit go in priority order, first in first out within a priority, so a thread's
 * posts keep their order. When a 429 comes, the limit it hit waits the Retry-After once and the call goes
 * again first; nothing is dropped. Every Slack call the bot makes on its own should go through here.
 */
export class OutboundQueue {
  readonly pacing: 'on' | 'off';
  readonly #lanes = new Map<string, Lane>();
  readonly #update: TokenBucket;
  readonly #tier4: TokenBucket;
  readonly #history: TokenBucket;
  readonly #clock: Clock;
  readonly #postPerSecond: number;
  readonly #postBurst: number;
  readonly #defaultRetryAfterMs: number;
  rateLimited = 0;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: BotMetrics,
    options: OutboundOptions = {},
  ) {
    this.pacing = options.pacing ?? 'on';
    this.#clock = options.clock ?? systemClock;
    this.#postPerSecond = options.postPerSecond ?? 1;
    this.#postBurst = options.postBurst ?? 3;
    this.#defaultRetryAfterMs = options.defaultRetryAfterMs ?? 5_000;
    const clock = this.#clock;
    this.#update = new TokenBucket({
      ratePerSecond: (options.updatePerMinute ?? 50) / 60,
      burst: options.updateBurst ?? 50,
      clock,
    });
    this.#tier4 = new TokenBucket({ ratePerSecond: (options.tier4PerMinute ?? 90) / 60, burst: 5, clock });
    this.#history = new TokenBucket({
      ratePerSecond: (options.historyPerMinute ?? 40) / 60,
      burst: 3,
      clock,
    });
    metrics.registerOutbound(() => this.depths());
  }

  /** Runs the call when the channel's queue and Slack's limits allow; settles as the call does. */
  run<T>(call: OutboundCall<T>): Promise<T> {
    if (this.pacing === 'off') return call.run();
    return new Promise<T>((resolve, reject) => {
      const lane = this.#lane(call.method === 'history' ? `${call.channel} history` : call.channel);
      lane.queues[call.priority].push({
        call: call as OutboundCall<unknown>,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      lane.wake?.abort();
      this.#drain(lane);
    });
  }

  /**
   * Moves a tag's waiting calls in a channel up to `priority`, in their order (a session that finished:
   * its last chatter, then its report, go ahead of other sessions' chatter).
   */
  promote(channel: string, tag: string, priority: OutboundPriority): number {
    const lane = this.#lanes.get(channel);
    if (!lane) return 0;
    const rank = PRIORITIES.indexOf(priority);
    let moved = 0;
    for (const p of PRIORITIES.slice(rank + 1)) {
      const keep: Job[] = [];
      for (const job of lane.queues[p]) {
        if (job.call.tag === tag) {
          lane.queues[priority].push({ ...job, call: { ...job.call, priority } });
          moved++;
        } else keep.push(job);
      }
      lane.queues[p] = keep;
    }
    if (moved > 0) lane.wake?.abort();
    return moved;
  }

  /** A channel's waiting calls may go sooner than its queue thought (a spare call now matters more). */
  nudge(channel: string): void {
    this.#lanes.get(channel)?.wake?.abort();
  }

  /** Calls waiting, per channel. */
  depths(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [channel, lane] of this.#lanes) {
      const depth = PRIORITIES.reduce((n, p) => n + lane.queues[p].length, 0);
      if (depth > 0) out.set(channel, depth);
    }
    return out;
  }

  /** Calls of this priority waiting in a channel. */
  waiting(channel: string, priority?: OutboundPriority): number {
    const lane = this.#lanes.get(channel);
    if (!lane) return 0;
    return priority
      ? lane.queues[priority].length
      : PRIORITIES.reduce((n, p) => n + lane.queues[p].length, 0);
  }

  #lane(channel: string): Lane {
    let lane = this.#lanes.get(channel);
    if (!lane) {
      lane = {
        channel,
        queues: { urgent: [], outcome: [], edit: [], chatter: [] },
        post: new TokenBucket({
          ratePerSecond: this.#postPerSecond,
          burst: this.#postBurst,
          clock: this.#clock,
        }),
        running: false,
        inFlight: 0,
        wake: undefined,
      };
      this.#lanes.set(channel, lane);
    }
    return lane;
  }

  #bucket(lane: Lane, method: OutboundMethod): TokenBucket | undefined {
    switch (method) {
      case 'turn':
        return undefined;
      case 'update':
        return this.#update;
      case 'tier4':
        return this.#tier4;
      case 'history':
        return this.#history;
      default:
        return lane.post;
    }
  }

  #next(lane: Lane): Job | undefined {
    for (const p of PRIORITIES) if (lane.queues[p].length > 0) return lane.queues[p][0];
    return undefined;
  }

  /**
   * The most urgent call whose limit lets it go now (its token taken), or how long until one may. Calls
   * behind one whose limit has no room are skipped only when they spend another limit: first in, first
   * out per limit within a priority (so a thread's posts keep their order).
   */
  #take(lane: Lane): Job | number {
    let waitMs = Number.POSITIVE_INFINITY;
    const full = new Set<TokenBucket>();
    for (const p of PRIORITIES) {
      const queue = lane.queues[p];
      for (let i = 0; i < queue.length; i++) {
        const job = queue[i] as Job;
        const bucket = this.#bucket(lane, job.call.method);
        if (bucket && full.has(bucket)) continue;
        const keep = bucket && job.call.spare?.() ? bucket.burst - 1 : 0;
        if (!bucket || bucket.tryTake(keep)) {
          queue.splice(i, 1);
          return job;
        }
        // A spare call finding no spare tokens says nothing about the calls behind it.
        if (keep === 0) full.add(bucket);
        waitMs = Math.min(waitMs, Math.max(1, bucket.msUntilAvailable(keep)));
      }
    }
    return waitMs;
  }

  async #wait(lane: Lane, ms: number): Promise<void> {
    const wake = new AbortController();
    lane.wake = wake;
    try {
      await this.#clock.sleep(ms, wake.signal);
    } catch {
      // Woken early by a new call.
    } finally {
      lane.wake = undefined;
    }
  }

  #drain(lane: Lane): void {
    if (lane.running) return;
    lane.running = true;
    void this.#loop(lane).finally(() => {
      lane.running = false;
      // The lane stays (its tokens say how much of the channel's burst is spent).
      if (this.#next(lane)) this.#drain(lane);
    });
  }

  async #loop(lane: Lane): Promise<void> {
    for (;;) {
      if (!this.#next(lane)) return;
      const taken = this.#take(lane);
      if (typeof taken === 'number') {
        await this.#wait(lane, taken);
        continue;
      }
      // A post is answered before the next is sent (Slack orders a thread by arrival); an edit, a view or a
      // look-up needs no order, so the channel's posts do not wait for its answer either.
      if (taken.call.method === 'post' || taken.call.method === 'upload') await this.#send(lane, taken);
      else {
        lane.inFlight++;
        void this.#send(lane, taken).finally(() => {
          lane.inFlight--;
        });
      }
    }
  }

  async #send(lane: Lane, job: Job): Promise<void> {
    try {
      job.resolve(await job.call.run());
    } catch (error) {
      const retryAfterMs = rateLimitedRetryAfterMs(error);
      if (retryAfterMs === undefined) {
        job.reject(error);
        return;
      }
      // Once for the limit it hit, not per call: everything spending that limit waits, then this goes first.
      const pauseMs = retryAfterMs >= 0 ? retryAfterMs : this.#defaultRetryAfterMs;
      this.rateLimited++;
      this.metrics.rateLimited.inc({ method: job.call.method });
      this.#bucket(lane, job.call.method)?.pauseFor(pauseMs);
      lane.queues[job.call.priority].unshift(job);
      lane.wake?.abort();
      this.#drain(lane);
      this.logger.warn(
        { channel: lane.channel, method: job.call.method, pauseMs },
        'Slack rate limited a call: pausing what spends its limit',
      );
    }
  }
}

/**
 * `chat` for a service that posts or edits on a person's behalf (a new session's card, a prompt marked
 * answered): through the channel's queue, first in it, so it never races the queue for Slack's limits.
 */
export function queuedChat(
  client: SlackClient,
  outbound: OutboundQueue,
): SlackChat<'postMessage' | 'update' | 'delete'> {
  return {
    chat: {
      postMessage: (args) =>
        outbound.run({
          channel: args.channel,
          priority: 'urgent',
          method: 'post',
          run: () => client.chat.postMessage(args),
        }),
      update: (args) =>
        outbound.run({
          channel: args.channel,
          priority: 'urgent',
          method: 'update',
          run: () => client.chat.update(args),
        }),
      delete: (args) =>
        outbound.run({
          channel: args.channel,
          priority: 'urgent',
          method: 'update',
          run: () => client.chat.delete(args),
        }),
    },
  };
}
