/**
 * Slack's limits as the bot paces itself to them, one row per Web API method it calls: which limit the
 * method spends (methods spending one limit share a row), where the limit is counted, how fast it refills
 * and how much of it may go at once. The outbound queue's buckets, the replicas' shared budgets and the
 * metrics' `method` labels all come from here.
 */
import type { Clock } from '@agent-sessions/core';
import { TokenBucket } from '@agent-sessions/core';

/** Where Slack counts a limit: per channel (chat.postMessage), or for the whole workspace (the tiers). */
export type LimitScope = 'channel' | 'workspace';

export interface SlackLimit {
  /** The limit's name: methods with the same key spend one bucket. */
  key: string;
  scope: LimitScope;
  perMinute: number;
  /** Tokens that may go at once. */
  burst: number;
  /**
   * Spent from the replicas' shared budget (store/slack-budgets.ts) when there is one: the limits busy
   * enough that replicas pacing alone would meet 429s. Its row there is the key (`key:channel` per channel).
   */
  replicas: boolean;
  /**
   * Waits in a lane of its own beside the channel's: a crash look-up (Slack may allow one a minute) never
   * holds the channel's posts.
   */
  ownLane?: boolean;
}

/** Slack counts tiers a minute and tolerates bursts: a minute's worth may go at once. */
const perMinute = (key: string, n: number): SlackLimit => ({
  key,
  scope: 'workspace',
  perMinute: n,
  burst: Math.max(1, Math.floor(n)),
  replicas: false,
});

/** chat.postMessage: about 1 a second per channel, short bursts (5, as the sandbox models them). */
const POST: SlackLimit = {
  key: 'chat.postMessage',
  scope: 'channel',
  perMinute: 60,
  burst: 5,
  replicas: true,
};
/** chat.update (Tier 3, 50+ a minute) for the workspace: a minute's worth may go at once. */
const EDIT: SlackLimit = { key: 'chat.update', scope: 'workspace', perMinute: 50, burst: 50, replicas: true };
/** Tier 2 methods that are no stream's (a code channel's create and archive): about 20 a minute. */
const TIER_TWO = perMinute('tier 2', 18);
/** Tier 3 (50+ a minute): agent sessions' status, a code channel's views. */
const TIER_THREE: SlackLimit = {
  key: 'tier 3',
  scope: 'workspace',
  perMinute: 50,
  burst: 5,
  replicas: false,
};
/** Tier 4 (~100 a minute): ephemerals, the suggested prompts. */
const TIER_FOUR: SlackLimit = { key: 'tier 4', scope: 'workspace', perMinute: 90, burst: 5, replicas: false };
/**
 * A file shared into a thread (files.uploadV2: files.getUploadURLExternal, then
 * files.completeUploadExternal, each Tier 4 by its reference page): not chat.postMessage's one post a
 * second per channel, which Slack documents for that method alone. Shared by the replicas: each would
 * otherwise spend a whole Tier 4 minute of its own.
 */
const UPLOAD: SlackLimit = {
  key: 'files.uploadV2',
  scope: 'workspace',
  perMinute: 90,
  burst: 20,
  replicas: true,
};
/** Crash look-ups: Tier 3 for most apps; where Slack allows one a minute, only look-ups wait for it. */
const LOOK_UP: SlackLimit = {
  key: 'look-ups',
  scope: 'workspace',
  perMinute: 40,
  burst: 3,
  replicas: false,
  ownLane: true,
};

export const SLACK_LIMITS = {
  'chat.postMessage': POST,
  'files.uploadV2': UPLOAD,
  'chat.update': EDIT,
  'chat.delete': EDIT,
  // The streaming methods, each its own limit for the workspace: appends Tier 4, starts and stops Tier 2.
  'chat.startStream': perMinute('chat.startStream', 18),
  'chat.appendStream': perMinute('chat.appendStream', 90),
  'chat.stopStream': perMinute('chat.stopStream', 18),
  'agents.conversations.create': TIER_TWO,
  'agents.conversations.archive': TIER_TWO,
  'canvases.create': TIER_TWO,
  'agents.sessions.setStatus': TIER_THREE,
  'agents.conversations.setCommands': TIER_THREE,
  'agents.conversations.setProperties': TIER_THREE,
  'agents.conversations.setView': TIER_THREE,
  'agents.conversations.setCanvasContent': TIER_THREE,
  'conversations.info': TIER_THREE,
  'conversations.invite': TIER_THREE,
  'functions.completeSuccess': TIER_THREE,
  'functions.completeError': TIER_THREE,
  'chat.postEphemeral': TIER_FOUR,
  'assistant.threads.setSuggestedPrompts': TIER_FOUR,
  'conversations.replies': LOOK_UP,
  'conversations.history': LOOK_UP,
  'conversations.open': LOOK_UP,
} as const satisfies Record<string, SlackLimit>;

/** A Web API method the bot calls on its own, through the outbound queue. */
export type SlackMethod = keyof typeof SLACK_LIMITS;
export const SLACK_METHODS = Object.keys(SLACK_LIMITS) as SlackMethod[];

/** How the deployment may set the limits (tuning, tests): per limit, replacing the table's figure. */
export interface LimitOverrides {
  /** chat.postMessage per channel, a second, and its burst. */
  postPerSecond?: number;
  postBurst?: number;
  /** chat.update for the workspace, a minute, and its burst. */
  updatePerMinute?: number;
  updateBurst?: number;
  tier2PerMinute?: number;
  tier3PerMinute?: number;
  tier4PerMinute?: number;
  /** conversations.replies / history (crash look-ups), a minute. */
  historyPerMinute?: number;
  streamStartPerMinute?: number;
  streamAppendPerMinute?: number;
  streamStopPerMinute?: number;
}

/** Each limit's rate a minute and burst, the table's unless overridden; a burst follows an overridden rate where the table's is a minute's worth. */
function rateOf(limit: SlackLimit, o: LimitOverrides): { perMinute: number; burst: number } {
  const minute = (n: number | undefined) =>
    n === undefined ? limit : { perMinute: n, burst: Math.max(1, Math.floor(n)) };
  switch (limit.key) {
    case POST.key:
      return {
        perMinute: o.postPerSecond === undefined ? limit.perMinute : o.postPerSecond * 60,
        burst: o.postBurst ?? limit.burst,
      };
    case EDIT.key:
      return { perMinute: o.updatePerMinute ?? limit.perMinute, burst: o.updateBurst ?? limit.burst };
    case TIER_THREE.key:
      return { perMinute: o.tier3PerMinute ?? limit.perMinute, burst: limit.burst };
    case TIER_FOUR.key:
      return { perMinute: o.tier4PerMinute ?? limit.perMinute, burst: limit.burst };
    case LOOK_UP.key:
      return { perMinute: o.historyPerMinute ?? limit.perMinute, burst: limit.burst };
    case TIER_TWO.key:
      return minute(o.tier2PerMinute);
    case 'chat.startStream':
      return minute(o.streamStartPerMinute);
    case 'chat.appendStream':
      return minute(o.streamAppendPerMinute);
    case 'chat.stopStream':
      return minute(o.streamStopPerMinute);
    default:
      return limit;
  }
}

/** The limit a method spends. */
export function limitOf(method: SlackMethod): SlackLimit {
  return SLACK_LIMITS[method];
}

/** A fresh bucket for a limit, at its (overridden) rate. */
export function bucketFor(limit: SlackLimit, overrides: LimitOverrides, clock: Clock): TokenBucket {
  const { perMinute: n, burst } = rateOf(limit, overrides);
  return new TokenBucket({ ratePerSecond: n / 60, burst, clock });
}
