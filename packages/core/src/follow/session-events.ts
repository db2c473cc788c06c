import { isKnownStatus, isSuccessStatus } from '../status.js';
import type { FollowEvent } from './events.js';
import type { FollowedSession } from './sessions-reader.js';

/**
 * The events a poll raises about the session itself: its status changed (and to cost_limit), it
 * finished, or anything of it was updated. Each carries the session as the poll's status read saw it.
 */
export function sessionEvents(input: {
  sessionId: string;
  session: FollowedSession;
  status: string;
  previousStatus: string | null;
  updatedAt: string | null;
  roundCount: number;
  /** Terminal, every page read, and not finished at an earlier poll. */
  newlyFinished: boolean;
  /** Anything new of the session itself (its first read, status, rounds or updatedAt). */
  updated: boolean;
}): FollowEvent[] {
  const { sessionId, session, status, updatedAt } = input;
  const events: FollowEvent[] = [];
  if (status !== input.previousStatus) {
    events.push({
      type: 'status',
      sessionId,
      key: `status:${status}:${updatedAt ?? ''}`,
      status,
      previousStatus: input.previousStatus,
      known: isKnownStatus(status),
      session,
    });
    if (status === 'cost_limit') {
      events.push({ type: 'cost_limit', sessionId, key: `cost_limit:${updatedAt ?? ''}`, session });
    }
  }
  if (input.newlyFinished) {
    events.push({
      type: 'finished',
      sessionId,
      key: `finished:${sessionId}`,
      status,
      succeeded: isSuccessStatus(status),
      session,
    });
  }
  if (input.updated) {
    events.push({
      type: 'update',
      sessionId,
      key: `update:${status}:${updatedAt ?? ''}:${input.roundCount}`,
      session,
    });
  }
  return events;
}
