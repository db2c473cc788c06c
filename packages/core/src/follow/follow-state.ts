import {
  createCursor,
  type MessagesCursor,
  type MessagesCursorV1,
  upgradeCursor,
} from '../messages/index.js';

/** How far following one session got. Small and plain JSON: it is what a `CursorStore` persists. */
export interface FollowState {
  version: 2;
  sessionId: string;
  /** Where the next messages read starts; never past a round that may still grow. */
  cursor: MessagesCursor;
  /** The status seen at the last poll; null before the first. */
  status: string | null;
  /** updatedAt as the service sent it, compared to tell whether anything changed. */
  updatedAt: string | null;
  roundCount: number;
  /** inputIds already announced, newest last (bounded): a question is announced once. */
  announcedInputs: string[];
  /** The last poll stopped with pages left to read. */
  moreToRead: boolean;
  /** Terminal status seen and the final messages read: nothing more will come. */
  finished: boolean;
  /**
   * While the session waits on a person: the questions announced since it last ran, and whether the
   * wait was reported as unreadable (once per wait). Null while it isn't waiting.
   */
  waiting?: WaitingEpisode | null;
  /** inputIds announced since the session last resumed from a wait (bounded). */
  askedSinceRun?: string[];
}

export interface WaitingEpisode {
  /** Identifies this wait in event keys: the updatedAt (or poll count) at which it was first seen. */
  since: string;
  /** A `human_input_unreadable` event was raised for this wait. */
  unreadableRaised: boolean;
}

/** The state as version 1 saved it: a running deployment's stores still hold these. */
export interface FollowStateV1 extends Omit<FollowState, 'version' | 'cursor' | 'waiting' | 'askedSinceRun'> {
  version: 1;
  cursor: MessagesCursorV1;
}

/** How many announced inputIds a state remembers: far more than a session has pending at once. */
export const ANNOUNCED_INPUTS_KEPT = 50;

export function initialFollowState(sessionId: string): FollowState {
  return {
    version: 2,
    sessionId,
    cursor: createCursor(),
    status: null,
    updatedAt: null,
    roundCount: 0,
    announcedInputs: [],
    moreToRead: false,
    finished: false,
    waiting: null,
    askedSinceRun: [],
  };
}

/**
 * A saved state of any version to the current one, so a deployment that upgrades loses nothing: a
 * version-1 cursor (after, newest round, messages seen of it) says the same thing in the new shape.
 */
export function upgradeFollowState(saved: FollowState | FollowStateV1): FollowState {
  if (saved.version === 2) return { ...saved, cursor: upgradeCursor(saved.cursor) };
  const announcedInputs = Array.isArray(saved.announcedInputs) ? saved.announcedInputs : [];
  return {
    ...saved,
    version: 2,
    cursor: upgradeCursor(saved.cursor),
    announcedInputs,
    // A wait that began before the upgrade: its question is the last one announced (not unreadable).
    askedSinceRun: saved.status === 'waiting_human' ? announcedInputs.slice(-1) : [],
    waiting: null,
  };
}
