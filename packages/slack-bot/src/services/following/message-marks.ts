/**
 * Where the chatter queue stood right after each of a session's latest messages was handled: a prompt
 * waits only for the chatter up to the message that asked it (`ThreadBatches.mark`), not for what the
 * agent said after. Bounded: a question is read in the poll that brings its message, or soon after, so
 * only the newest marks of each session, and of the newest sessions, are kept; a mark not kept makes the
 * prompt wait for all the chatter queued so far (later, never out of order).
 */
const PER_SESSION = 256;
const SESSIONS = 5_000;

export class MessageMarks {
  readonly #bySession = new Map<string, Map<string, number>>();

  set(sessionId: string, messageKey: string, mark: number): void {
    let marks = this.#bySession.get(sessionId);
    if (!marks) {
      marks = new Map();
      this.#bySession.set(sessionId, marks);
      if (this.#bySession.size > SESSIONS) this.#bySession.delete(this.#bySession.keys().next().value ?? '');
    }
    marks.delete(messageKey);
    marks.set(messageKey, mark);
    if (marks.size > PER_SESSION) marks.delete(marks.keys().next().value ?? '');
  }

  get(sessionId: string, messageKey: string | undefined): number | undefined {
    return messageKey === undefined ? undefined : this.#bySession.get(sessionId)?.get(messageKey);
  }

  forget(sessionId: string): void {
    this.#bySession.delete(sessionId);
  }
}
