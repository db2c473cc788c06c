export { type Clock, ManualClock, systemClock } from './clock.js';
export { type CursorStore, InMemoryCursorStore } from './cursor-store.js';
export type { AroundHandler, FollowEventHandler } from './event-handlers.js';
export type {
  CostLimitEvent,
  ErrorEvent,
  FinishedEvent,
  FollowEvent,
  FollowEventOf,
  FollowEventType,
  HumanInputNeededEvent,
  HumanInputUnreadableEvent,
  InvalidHumanInputEvent,
  MessageEvent,
  StatusEvent,
} from './events.js';
export {
  ANNOUNCED_INPUTS_KEPT,
  type FollowState,
  type FollowStateV1,
  initialFollowState,
  upgradeFollowState,
  type WaitingEpisode,
} from './follow-state.js';
export {
  Follower,
  type FollowerLogger,
  type FollowerOptions,
  type FollowerStats,
  type FollowOptions,
} from './follower.js';
export { defaultSchedulePolicy, type SchedulePolicy, type SessionActivity } from './schedule-policy.js';
export {
  activityOf,
  MAX_PAGES_PER_POLL,
  MESSAGES_PAGE_SIZE,
  type PollContext,
  type PollResult,
  RECENT_MESSAGES_KEPT,
  SessionFollower,
} from './session-follower.js';
export type {
  FollowedMessage,
  FollowedMessagesPage,
  FollowedSession,
  ReadOptions,
  SessionsReader,
} from './sessions-reader.js';
export { TokenBucket, type TokenBucketOptions } from './token-bucket.js';
