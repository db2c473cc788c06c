/** What the outbound queue is asked to send, how it is told about Slack's limits, and `queuedChat` over it. */
import { type Clock, TokenBucket } from '@agent-sessions/core';
import type { SlackChat, SlackClient } from './slack.js';

/**
 * What goes first in a channel: prompts, answers and refusals (a person is waiting), then a session's
 * outcome (its report, once its chatter is out), then card edits, then the agent's chatter (which batches
 * while it waits). Priority only orders calls that spend the same limit: a call whose limit has room never
 * waits behind one whose limit has none.
 */
export type OutboundPriority = 'urgent' | 'outcome' | 'edit' | 'chatter';
export const PRIORITIES: readonly OutboundPriority[] = ['urgent', 'outcome', 'edit', 'chatter'];

/**
 * Which of Slack's limits a call spends. `turn`: no call at all, only a turn in the queue (a batch waits
 * for its turn, then queues its post); `history` runs in a lane of its own, so a crash look-up (Slack may
 * allow one a minute) never holds the channel's posts.
 */
export type OutboundMethod =
  | 'post'
  | 'update'
  | 'upload'
  | 'tier2'
  | 'tier3'
  | 'tier4'
  | 'history'
  | 'turn'
  | StreamMethod;
/**
 * Slack's streaming methods, each with a limit of its own for the workspace: chat.appendStream Tier 4
 * (not chat.postMessage's per-channel one), chat.startStream and chat.stopStream Tier 2.
 */
export type StreamMethod = 'stream-start' | 'stream-append' | 'stream-stop';

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
   * chat.postMessage per channel: Slack allows about 1 a second with short bursts (5 by default, as the
   * sandbox models them). Every post the bot makes goes through here (a session's first card too), so the
   * queue may spend the whole of it; chatter and reports only its top token.
   */
  postPerSecond?: number;
  postBurst?: number;
  /**
   * chat.update (Tier 3, 50+ a minute) for the whole workspace, and the edits it may send at once: Slack
   * counts its tiers per minute and tolerates bursts, so a minute's worth by default.
   */
  updatePerMinute?: number;
  updateBurst?: number;
  /** agents.sessions.setStatus / rename (Tier 3, 50+ a minute) for the whole workspace. */
  tier3PerMinute?: number;
  /** Tier 2 methods that are no stream's (code channels' create and archive), for the workspace. */
  tier2PerMinute?: number;
  /** views / ephemerals (Tier 4, ~100 a minute) for the whole workspace. */
  tier4PerMinute?: number;
  /**
   * conversations.replies / history (crash look-ups only): Tier 3 for most apps. Where Slack allows one a
   * minute (commercial apps outside the Marketplace), its 429s pause the look-ups' lane, nothing else.
   */
  historyPerMinute?: number;
  /** chat.appendStream (Tier 4) and chat.startStream / chat.stopStream (Tier 2), a minute, workspace-wide. */
  streamAppendPerMinute?: number;
  streamStartPerMinute?: number;
  streamStopPerMinute?: number;
  /** A 429 without a usable Retry-After pauses the limit it hit this long. */
  defaultRetryAfterMs?: number;
  clock?: Clock;
  /**
   * Slack's limits shared with the other replicas (the database's token buckets): a channel's posts and
   * the workspace's edits are spent from there; without it each process paces alone.
   */
  shared?: SharedBudgets;
}

/** Token buckets every replica spends from (store/slack-budgets.ts). */
export interface SharedBudgets {
  /**
   * Takes a token, leaving `keep`: 0 when taken, else the milliseconds until one may be. `flight`: held
   * in flight, for every replica, until `landed`.
   */
  take(
    key: string,
    rate: { perSecond: number; burst: number },
    keep?: number,
    flight?: string,
  ): Promise<number>;
  pause(key: string, ms: number): Promise<void>;
  /**
   * The call of a token taken with `flight` was answered (or failed, or never went): while calls are in
   * flight the bucket holds at most the burst less their number.
   */
  landed(key: string, rate: { perSecond: number; burst: number }, flight: string): Promise<void>;
}

/** A 429 from Slack: Bolt's client with `rejectRateLimitedCalls`, or a raw `ratelimited` answer. */
export function rateLimitedRetryAfterMs(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; retryAfter?: unknown; data?: { error?: unknown } };
  if (e.code !== 'slack_webapi_rate_limited_error' && e.data?.error !== 'ratelimited') return undefined;
  return typeof e.retryAfter === 'number' && e.retryAfter >= 0 ? e.retryAfter * 1000 : -1;
}

/**
 * The streaming methods' limits, workspace-wide: Tier 4 appends; starts and stops Tier 2. Slack counts
 * tiers a minute and tolerates bursts: each may spend a minute's worth at once, as card edits do.
 */
export function streamBuckets(options: OutboundOptions, clock: Clock): Map<OutboundMethod, TokenBucket> {
  const perMinute = (n: number) =>
    new TokenBucket({ ratePerSecond: n / 60, burst: Math.max(1, Math.floor(n)), clock });
  return new Map<OutboundMethod, TokenBucket>([
    ['stream-append', perMinute(options.streamAppendPerMinute ?? 90)],
    ['stream-start', perMinute(options.streamStartPerMinute ?? 18)],
    ['stream-stop', perMinute(options.streamStopPerMinute ?? 18)],
    // Other Tier 2 methods (a code channel's create and archive): about 20 a minute for the workspace.
    ['tier2', perMinute(options.tier2PerMinute ?? 18)],
  ]);
}

/**
 * `chat` for a service that posts or edits on a person's behalf (a new session's card, a prompt marked
 * answered): through the channel's queue, first in it, so it never races the queue for Slack's limits.
 */
export function queuedChat(
  client: SlackClient,
  outbound: { run<T>(call: OutboundCall<T>): Promise<T> },
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
