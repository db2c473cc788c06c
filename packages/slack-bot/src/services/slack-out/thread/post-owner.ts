import { type CannotPostHereError, type Place, PostWithdrawnError } from './thread-place.js';

export interface PostOwnerDeps {
  /** Whether this process follows the session (holds its lease); absent: always. */
  follows?: (sessionId: string) => boolean;
  /**
   * Takes or renews this process's claim on a finished session's leftovers (`store/recovery-claims.ts`):
   * whether it holds it now. Absent: one process, nothing to share.
   */
  claim?: (sessionId: string) => Promise<boolean>;
}

type CannotPost = (place: Place, error: CannotPostHereError) => Promise<void>;

/**
 * Who sends a session's posts from this process: the holder of its lease while it is followed, the holder
 * of its claim on the leftovers once it is finished, no one here once its lease moved to another replica.
 * The thread poster, the stream poster and the publisher share one, and ask it before each post; it also
 * tells whoever listens when a post found its channel closed to the bot.
 */
export class PostOwner {
  /** Finished sessions whose leftovers this process sends under its claim (renewed before each post). */
  readonly #claimed = new Set<string>();
  /** Sessions whose lease moved to another replica (`withdraw`) and has not come back. */
  readonly #withdrawn = new Set<string>();
  /** Per session, how many of its posts are being delivered here now (their retries ask again). */
  readonly #delivering = new Map<string, number>();
  readonly #cannotPost: CannotPost[] = [];

  constructor(private readonly deps: PostOwnerDeps = {}) {}

  /** Whether this process follows the session (a poll still in flight after its lease went: no). */
  owns(sessionId: string): boolean {
    return this.deps.follows?.(sessionId) !== false;
  }

  /** Takes or renews the claim on a finished session's leftovers: whether this process holds it. */
  claim(sessionId: string): Promise<boolean> {
    return this.deps.claim ? this.deps.claim(sessionId) : Promise.resolve(true);
  }

  /** This process sends the finished session's leftovers under its claim (taken by the caller). */
  claimed(sessionId: string): void {
    this.#claimed.add(sessionId);
  }

  /** The session's lease moved away: none of its posts is made here until it comes back. */
  withdraw(sessionId: string): void {
    this.#withdrawn.add(sessionId);
  }

  /** The session is followed here (again): a recovery as its owner. */
  followed(sessionId: string): void {
    this.#withdrawn.delete(sessionId);
  }

  /** Runs one delivery of the session's posts, counted (an idle session's marks may be forgotten). */
  async delivering<T>(sessionId: string, deliver: () => Promise<T>): Promise<T> {
    this.#delivering.set(sessionId, (this.#delivering.get(sessionId) ?? 0) + 1);
    try {
      return await deliver();
    } finally {
      const left = (this.#delivering.get(sessionId) ?? 1) - 1;
      if (left > 0) this.#delivering.set(sessionId, left);
      else this.#delivering.delete(sessionId);
    }
  }

  /**
   * Right before a post of the session's chatter: a finished session's claim renewed (or lost to another
   * process, which sends the keys); a session whose lease moved away from here is the new owner's.
   */
  async throwIfNotMine(sessionId: string): Promise<void> {
    if (this.#claimed.has(sessionId) && this.deps.claim && !(await this.deps.claim(sessionId))) {
      this.#claimed.delete(sessionId);
      throw new PostWithdrawnError(`another replica holds the claim on session ${sessionId}'s leftovers`);
    }
    if (!this.#withdrawn.has(sessionId)) return;
    this.throwIfMoved(sessionId);
    this.#withdrawn.delete(sessionId); // the lease came back here
  }

  /** Not ours any more: what was to be posted is left for the new owner. */
  throwIfMoved(sessionId: string): void {
    if (!this.owns(sessionId)) throw PostWithdrawnError.moved(sessionId);
  }

  /**
   * Forgets the claims and moved leases of sessions with nothing queued (`busy`) or being sent here: a
   * later post of theirs comes through a recovery, which says again whose it is.
   */
  forgetIdle(busy: (sessionId: string) => boolean): void {
    for (const sessions of [this.#claimed, this.#withdrawn]) {
      for (const sessionId of sessions) {
        if (!busy(sessionId) && !this.#delivering.has(sessionId)) sessions.delete(sessionId);
      }
    }
  }

  /** Listens for posts that found their channel closed to the bot (sent in the background, or streamed). */
  onCannotPost(listener: CannotPost): void {
    this.#cannotPost.push(listener);
  }

  /** A post found its channel closed to the bot: every listener is told. */
  async cannotPost(place: Place, error: CannotPostHereError): Promise<void> {
    for (const listener of this.#cannotPost) await listener(place, error);
  }
}
