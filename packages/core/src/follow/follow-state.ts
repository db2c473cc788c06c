import { createCursor, type MessagesCursor } from '../messages-cursor.js';

/** How far following one session got. Small and plain JSON: it is what a `CursorStore` persists. */
export interface FollowState {
  version: 1;
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
}

/** How many announced inputIds a state remembers: far more than a session has pending at once. */
export const ANNOUNCED_INPUTS_KEPT = 50;

export function initialFollowState(sessionId: string): FollowState {
  return {
    version: 1,
    sessionId,
    cursor: createCursor(),
    status: null,
    updatedAt: null,
    roundCount: 0,
    announcedInputs: [],
    moreToRead: false,
    finished: false,
  };
}
