import { boundedCache } from '../../bounded-cache.js';

/**
 * Where the chatter queue stood right after each of a session's latest messages was handled: a prompt
 * waits only for the chatter up to the message that asked it (`ThreadBatches.mark`), not for what the
 * agent said after. Bounded: a question is read in the poll that brings its message, or soon after, so
 * only the most recently set or read marks are kept, all sessions together; a mark not kept makes the
 * prompt wait for all the chatter queued so far (later, never out of order). One cache for every session,
 * not one per session: lru-cache sizes its arrays for `max` up front, and a cache per followed session
 * would hold megabytes for nothing. A session's marks are not dropped when it ends: no one asks for them
 * again (a message's key is its own), and newer marks push them out.
 */
const MARKS = 50_000;

export class MessageMarks {
  readonly #marks = boundedCache<string, number>({ max: MARKS });

  set(sessionId: string, messageKey: string, mark: number): void {
    this.#marks.set(keyOf(sessionId, messageKey), mark);
  }

  get(sessionId: string, messageKey: string | undefined): number | undefined {
    return messageKey === undefined ? undefined : this.#marks.get(keyOf(sessionId, messageKey));
  }
}

/** A message key is unique within its session only; a session id has no newline. */
const keyOf = (sessionId: string, messageKey: string) => `${sessionId}\n${messageKey}`;
