import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../../bounded-cache.js';
import { cacheKey } from '../../workspace.js';

/** A session's key slot as read with it (null: AGENT_API_KEY's). */
interface Slot {
  keyRef: string | null;
}

/**
 * The key slots of sessions that a person of the current workspace was allowed to see, per replica. A slot
 * is set when a session starts and never changes, so get_session can ask the service under it while the
 * store is still read for who may see the session: the service's answer is used only once that read lets
 * this person see it. Kept per workspace, so a call never reaches the service for a session its workspace
 * hasn't been shown.
 */
export class SessionSlots {
  readonly #known: LRUCache<string, Slot>;

  constructor(max = 10_000) {
    this.#known = boundedCache({ max });
  }

  /** The slot of a session seen in the current workspace, if this replica remembers it. */
  of(sessionId: string): Slot | undefined {
    return this.#known.get(cacheKey(sessionId));
  }

  /** A person of the current workspace was allowed to see the session, read with this slot. */
  seen(sessionId: string, keyRef: string | null | undefined): void {
    if (keyRef !== undefined) this.#known.set(cacheKey(sessionId), { keyRef });
  }
}
