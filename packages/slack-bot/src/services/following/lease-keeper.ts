import type { Follower, SessionsReader } from '@agent-sessions/core';
import type { Logger } from '../../logger.js';
import type { LeaseRepository } from '../../store/leases.js';
import type { SessionRepository } from '../../store/sessions.js';

export interface LeaseKeeperOptions {
  /** This replica's name in the leases table. */
  owner: string;
  /** A lease not renewed for this long is free for another replica: how long a dead replica's sessions wait. */
  ttlMs?: number;
  /** How often leases are renewed and free sessions taken. Default a third of ttlMs. */
  renewEveryMs?: number;
  /** Sessions one replica follows at most. */
  limit?: number;
  /** How often pokes from other replicas (someone answered there), and sessions without an owner, are picked up. */
  pokeEveryMs?: number;
  /**
   * Called for each session this replica stops following because another may hold it now; not for one
   * that finished (no replica takes it: what this one still has queued for it, such as the notice that the
   * service forgot it, is this one's to post).
   */
  onLost?: (sessionId: string) => void;
  /**
   * Called for each session this replica starts following: at start, and when it takes one over from a
   * replica that died or let its lease go (what Slack shows of it may have moved on meanwhile).
   */
  onFollowed?: (sessionId: string) => void;
  /**
   * The reader (its key's client) to follow a session with, or `waiting` while its key can't be used;
   * without it, the follower's own client.
   */
  readerFor?: (sessionId: string) => Promise<SessionsReader | 'waiting'>;
  /**
   * Whether the bot serves the session's workspace (SLACK_ALLOWED_TEAMS, under OAuth): a session of a
   * workspace it doesn't is not followed. Without it, every session is.
   */
  serves?: (sessionId: string) => Promise<boolean>;
  /** Called after each pass with the number of leases held: the replica's heartbeat, for its metrics. */
  onPassed?: (held: number) => void;
}

/**
 * Decides which sessions this replica follows: the ones it holds a lease on. Renewing takes unleased and
 * expired sessions too, so a dead replica's sessions move to the living within the lease time.
 */
export class LeaseKeeper {
  readonly owner: string;
  readonly #ttlMs: number;
  readonly #renewEveryMs: number;
  readonly #limit: number;
  readonly #pokeEveryMs: number;
  #pokeTimer: NodeJS.Timeout | undefined;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(
    private readonly store: {
      leases: LeaseRepository;
      sessions: Pick<SessionRepository, 'get' | 'update'>;
    },
    private readonly follower: Follower,
    private readonly logger: Logger,
    options: LeaseKeeperOptions,
  ) {
    this.owner = options.owner;
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#renewEveryMs = options.renewEveryMs ?? Math.floor(this.#ttlMs / 3);
    this.#limit = options.limit ?? 5_000;
    this.#pokeEveryMs = options.pokeEveryMs ?? 1_000;
    this.#onLost = options.onLost;
    this.#onFollowed = options.onFollowed;
    this.#onPassed = options.onPassed;
    this.#readerFor = options.readerFor;
    this.#serves = options.serves;
  }

  readonly #serves: LeaseKeeperOptions['serves'];

  readonly #readerFor: LeaseKeeperOptions['readerFor'];

  readonly #onLost: ((sessionId: string) => void) | undefined;
  readonly #onFollowed: ((sessionId: string) => void) | undefined;
  readonly #onPassed: ((held: number) => void) | undefined;

  async start(): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => {
      this.refresh().catch(() => {});
    }, this.#renewEveryMs);
    this.#timer.unref?.();
    this.#pokeTimer = setInterval(() => {
      this.#takePokes().catch(() => {});
    }, this.#pokeEveryMs);
    this.#pokeTimer.unref?.();
  }

  async #takePokes(): Promise<void> {
    if (this.#stopped) return;
    for (const sessionId of await this.store.leases.takePokes(this.owner)) this.follower.poke(sessionId);
    // A session without an owner (let go by a replica going away or beyond its share, or started while
    // every replica was at its share) is taken now, not at the next renewal: a long lease time renews
    // rarely. A replica at its limit has no room for it, and would only renew its leases each second.
    if (this.#followed.size >= this.#limit) return;
    if (await this.store.leases.awaitingOwner()) await this.refresh();
  }

  /** Renews and takes leases now (also right after a session is started here). */
  refresh(): Promise<void> {
    if (this.#tick) {
      this.#again = true;
      return this.#tick;
    }
    this.#tick = this.#renewAndTake().finally(() => {
      this.#tick = undefined;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        this.refresh().catch(() => {});
      }
    });
    return this.#tick;
  }

  async #renewAndTake(): Promise<void> {
    if (this.#stopped) return;
    let held: string[];
    try {
      held = await this.store.leases.acquire(this.owner, { limit: this.#limit, ttlMs: this.#ttlMs });
    } catch (error) {
      // Without the store we can't prove we still hold leases: stop following rather than double-post.
      this.logger.error({ err: error }, 'could not renew leases; following nothing until the store is back');
      held = [];
    }
    const keep = new Set(held);
    // Leases given up first, at once: another replica may take them the moment the transaction commits.
    const gone = [...this.#followed].filter((sessionId) => !keep.has(sessionId));
    for (const sessionId of gone) this.follower.unfollow(sessionId);
    // A finished session's lease just lapsed: nobody takes it over, so nothing of it is withdrawn here.
    const finished = await Promise.all(
      gone.map((sessionId) =>
        this.store.sessions.get(sessionId).then(
          (s) => s?.finished === true,
          () => false,
        ),
      ),
    );
    gone.forEach((sessionId, i) => {
      if (finished[i]) return;
      this.#onLost?.(sessionId);
      this.logger.info({ sessionId, owner: this.owner }, 'lease lost: no longer following');
    });
    for (const sessionId of held) {
      if (this.follower.isFollowing(sessionId)) continue;
      if (this.#serves && !(await this.#serves(sessionId).catch(() => false))) continue;
      const reader = await this.#readerFor?.(sessionId).catch((error: unknown) => {
        this.logger.warn({ err: error, sessionId }, 'could not tell which key a session runs under');
        return 'waiting' as const;
      });
      if (reader === 'waiting') continue;
      const options = reader ? { client: reader } : {};
      const started = await this.follower.follow(sessionId, options).catch((error: unknown) => {
        this.logger.warn({ err: error, sessionId }, 'could not start following a session');
        return undefined;
      });
      if (started === false && !this.follower.isFollowing(sessionId)) {
        // Its saved state says it finished: the session record just hadn't caught up.
        await this.store.sessions.update(sessionId, { finished: true }).catch(() => {});
      } else if (started) {
        this.logger.info({ sessionId, owner: this.owner }, 'following a session');
        this.#onFollowed?.(sessionId);
      }
    }
    this.#followed = keep;
    this.#onPassed?.(held.length);
  }

  #followed = new Set<string>();

  /**
   * Stops renewing and taking leases. The leases held stay this replica's until `release` (or until they
   * lapse): a replica going away finishes its posts first, so the next owner doesn't post them again.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    if (this.#pokeTimer) clearInterval(this.#pokeTimer);
    await this.#tick;
  }

  /** Gives every lease up at once, so the other replicas take these sessions at their next poke pass. */
  async release(): Promise<void> {
    await this.store.leases.release(this.owner).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'could not release leases: they lapse after the lease time');
    });
  }
}
