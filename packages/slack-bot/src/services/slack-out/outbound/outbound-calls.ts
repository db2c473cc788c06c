/** What the outbound queue is asked to send, how it is told about Slack's limits, and `queuedChat` over it. */
import type { Clock } from '@agent-sessions/core';
import type { BotMetrics } from '../../ops/metrics.js';
import type { SlackChat, SlackClient } from './slack.js';
import type { LimitOverrides, SlackMethod } from './slack-limits.js';

/**
 * What goes first in a channel: prompts, answers and refusals (a person is waiting), then a session's
 * outcome (its report, once its chatter is out), then card edits, then the agent's chatter (which batches
 * while it waits). Priority only orders calls that spend the same limit: a call whose limit has room never
 * waits behind one whose limit has none.
 */
export type OutboundPriority = 'urgent' | 'outcome' | 'edit' | 'chatter';
export const PRIORITIES: readonly OutboundPriority[] = ['urgent', 'outcome', 'edit', 'chatter'];

export interface OutboundCall<T> {
  /** The channel whose queue it waits in (a user id for a DM). */
  channel: string;
  priority: OutboundPriority;
  /** The Slack method it calls: the limit it spends (slack-limits.ts), and the name its 429s are counted by. */
  method: SlackMethod;
  /**
   * No call at all, only a turn for one (of `method`): a batch waits for its turn, takes the token its
   * post then spends, and queues its post (see the queue's `prepaid`).
   */
  turn?: true;
  run: () => Promise<T>;
  /** Whose call it is (a session id): `promote` moves a session's waiting calls ahead. */
  tag?: string;
  /**
   * Asked when the call could go: true while it may spend only what its limit would otherwise lose (a
   * card's progress): it waits for a full bucket, so what is saved up stays for what matters more.
   */
  spare?: () => boolean;
}

/** How the queue paces: Slack's limits (slack-limits.ts, here overridden), and what it does beside them. */
export interface OutboundOptions extends LimitOverrides {
  /** `off`: every call runs at once and 429s are left to the Web API client (the benchmark's naive way). */
  pacing?: 'on' | 'off';
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
 * One Slack call counted by its method, ok or error (`slack_api_calls_total`): the one wrapper every
 * caller counts its calls with.
 */
export async function countedCall<T>(
  metrics: Pick<BotMetrics, 'slackCalls'>,
  method: SlackMethod,
  run: () => Promise<T>,
): Promise<T> {
  try {
    const result = await run();
    metrics.slackCalls.inc({ method, outcome: 'ok' });
    return result;
  } catch (error) {
    // A 429 is counted by the queue (slack_rate_limited_total), and the call goes again.
    if (rateLimitedRetryAfterMs(error) === undefined) metrics.slackCalls.inc({ method, outcome: 'error' });
    throw error;
  }
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
          method: 'chat.postMessage',
          run: () => client.chat.postMessage(args),
        }),
      update: (args) =>
        outbound.run({
          channel: args.channel,
          priority: 'urgent',
          method: 'chat.update',
          run: () => client.chat.update(args),
        }),
      delete: (args) =>
        outbound.run({
          channel: args.channel,
          priority: 'urgent',
          method: 'chat.delete',
          run: () => client.chat.delete(args),
        }),
    },
  };
}
