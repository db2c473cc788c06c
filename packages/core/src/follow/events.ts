import type { HumanInputRequest } from '../human-input/index.js';
import type { FollowedMessage, FollowedSession } from './sessions-reader.js';

interface EventBase {
  sessionId: string;
  /**
   * Stable across re-deliveries of the same fact, so a handler can be idempotent: a message's key is
   * `<roundId>#<position in round>`, a question's is `input:<inputId>`, and so on.
   */
  key: string;
}

export interface MessageEvent extends EventBase {
  type: 'message';
  roundId: string;
  position: number;
  message: FollowedMessage;
}

export interface StatusEvent extends EventBase {
  type: 'status';
  status: string;
  /** null on the first poll of a session. */
  previousStatus: string | null;
  /** False for a status value the contract does not list: shown raw, treated as not terminal. */
  known: boolean;
  session: FollowedSession;
}

export interface HumanInputNeededEvent extends EventBase {
  type: 'human_input_needed';
  request: HumanInputRequest;
  /**
   * The key of the message event that announced the question (delivered before this event), when a
   * message carried it; absent when it was read from a round object.
   */
  messageKey?: string;
}

/**
 * The session's snapshot changed (cost, rounds, updatedAt or status): for views that show the session as a
 * whole, such as a status card. Emitted at most once per poll, after that poll's other events.
 */
export interface SessionUpdateEvent extends EventBase {
  type: 'update';
  session: FollowedSession;
}

export interface CostLimitEvent extends EventBase {
  type: 'cost_limit';
  session: FollowedSession;
}

export interface FinishedEvent extends EventBase {
  type: 'finished';
  status: string;
  /** completed / complete: the agent reached its goal. */
  succeeded: boolean;
  session: FollowedSession;
}

export interface ErrorEvent extends EventBase {
  type: 'error';
  error: Error;
  /** True when following this session has ended because of it (403, 404). */
  fatal: boolean;
  consecutiveFailures: number;
}

/**
 * A request with the human_input_needed name that could not be turned into something a person can
 * answer (no inputId, content that isn't JSON). Reported, never dropped.
 */
export interface InvalidHumanInputEvent extends EventBase {
  type: 'invalid_human_input';
  reason: string;
  raw: unknown;
}

/**
 * The session waits on a person, but no pending question could be read from its messages or round
 * objects: raised once per wait, with the raw data, so a person can still answer (as text, to `inputId`
 * when one was found) or cancel instead of the session waiting forever with nothing to click.
 */
export interface HumanInputUnreadableEvent extends EventBase {
  type: 'human_input_unreadable';
  status: string;
  /** An input id found in the raw data, when there is one. */
  inputId?: string;
  raw: {
    /** The status's round objects as sent. */
    rounds: unknown[];
    /** The session's most recent messages as read (bounded: RECENT_MESSAGES_KEPT). */
    messages: unknown[];
  };
}

export type FollowEvent =
  | MessageEvent
  | StatusEvent
  | SessionUpdateEvent
  | HumanInputNeededEvent
  | CostLimitEvent
  | FinishedEvent
  | ErrorEvent
  | InvalidHumanInputEvent
  | HumanInputUnreadableEvent;

export type FollowEventType = FollowEvent['type'];
export type FollowEventOf<T extends FollowEventType> = Extract<FollowEvent, { type: T }>;
