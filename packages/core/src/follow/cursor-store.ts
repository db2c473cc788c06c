import type { FollowState } from './follow-state.js';

/**
 * Where following remembers how far it got, per session, so a restart resumes without loss or repeat.
 * The follower saves only after a batch's events were handled, so a crash in between re-delivers that
 * batch (at least once); every event carries a key so a handler can make itself idempotent.
 */
export interface CursorStore {
  load(sessionId: string): Promise<FollowState | undefined>;
  save(sessionId: string, state: FollowState): Promise<void>;
  delete(sessionId: string): Promise<void>;
}

/** Keeps states as JSON text, so what is saved is exactly what a database-backed store would keep. */
export class InMemoryCursorStore implements CursorStore {
  readonly #states = new Map<string, string>();

  async load(sessionId: string): Promise<FollowState | undefined> {
    const text = this.#states.get(sessionId);
    return text === undefined ? undefined : (JSON.parse(text) as FollowState);
  }

  async save(sessionId: string, state: FollowState): Promise<void> {
    this.#states.set(sessionId, JSON.stringify(state));
  }

  async delete(sessionId: string): Promise<void> {
    this.#states.delete(sessionId);
  }

  /** Session ids with a saved state. */
  keys(): string[] {
    return [...this.#states.keys()];
  }
}
