import { boundedCache } from '../../bounded-cache.js';

/** What a wait for a session ends on. */
export type WaitEnd = 'ended' | 'asking' | 'timeout';

/** The follower's events, as a wait hears them: any event of any session. */
export interface SessionEvents {
  on(type: '*', handler: (event: { type: string; sessionId: string }) => void): () => void;
}

export interface WaitSources {
  events: SessionEvents;
  /** This replica follows the session: its events arrive here, and nothing else need be read. */
  isFollowing(sessionId: string): boolean;
  /** Whether the session has ended, or asks a question nobody answered (from the store). */
  state(sessionId: string): Promise<{ ended: boolean; asking: boolean }>;
  /** A session another replica follows is read again this often (its events arrive there). */
  recheckMs: number;
}

/** A session's state as a wait reads it. */
export interface WaitState {
  ended: boolean;
  asking: boolean;
}

/**
 * Waits admitted (their first reads: the session, who may see it) at most this many at once, each let in
 * on a later turn of the event loop: a thousand waits arriving together queue here, not in the store's
 * queue ahead of a Slack ack's reads (PGlite runs one query at a time, on the bot's own thread).
 */
export const ADMITTED_AT_ONCE = 4;

/** Events after which a session may have ended or asked: read its state again. */
const CHANGES = new Set(['status', 'human_input_needed', 'finished', 'update']);
/** Sessions whose last change is remembered (the most recent): far more than change within one read. */
const CHANGES_KEPT = 10_000;

/**
 * Waits for a session to end or ask a person, up to a bound. While this replica follows it, the
 * follower's events wake the wait (one timer: the deadline); when another replica follows it, the one
 * timer also reads the store again every `recheckMs`. Each event of the session is reported as progress.
 */
export class SessionWaiter {
  readonly #reads = new FreshReads<WaitState>();
  readonly #admissions: Admissions;
  /**
   * Each session's last change, as a number of the changes this waiter has heard: a wait whose first read
   * came before one (a change while the read or who-may-see was out) reads again once it listens.
   */
  readonly #changedAt = boundedCache<string, number>({ max: CHANGES_KEPT });
  #changes = 0;

  constructor(
    private readonly sources: WaitSources,
    admittedAtOnce = ADMITTED_AT_ONCE,
  ) {
    this.#admissions = new Admissions(admittedAtOnce);
    sources.events.on('*', (event) => {
      if (CHANGES.has(event.type)) this.#changedAt.set(event.sessionId, ++this.#changes);
    });
  }

  /** Where the changes stand: taken before a first read of a session, given to `wait` as `knownAt`. */
  mark(): number {
    return this.#changes;
  }

  /** A wait's first reads, `fn`, run once admitted (see ADMITTED_AT_ONCE). */
  admit<T>(fn: () => Promise<T>): Promise<T> {
    return this.#admissions.run(fn);
  }

  /**
   * Until the session ends or asks, or `maxMs`. `known`: its state as just read (the caller's own first
   * read), not read again unless the session changed since `knownAt` (`mark()` before that read).
   */
  async wait(
    sessionId: string,
    options: {
      maxMs: number;
      signal?: AbortSignal;
      progress?: (seen: number, what: string) => void;
      known?: WaitState;
      knownAt?: number;
    },
  ): Promise<WaitEnd> {
    const mark = options.knownAt ?? this.#changes;
    const now = options.known ? endOf(options.known) : await this.#check(sessionId);
    if (now) return now;
    const deadline = Date.now() + options.maxMs;
    return new Promise<WaitEnd>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let seen = 0;
      let checking = false;
      let again = false;
      let done = false;
      const finish = (end: WaitEnd) => {
        if (done) return;
        done = true;
        unsubscribe();
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', aborted);
        resolve(end);
      };
      const aborted = () => finish('timeout');
      // One read at a time: events arriving meanwhile ask for one more read after it.
      const recheck = async (): Promise<void> => {
        if (checking) {
          again = true;
          return;
        }
        checking = true;
        try {
          const end = await this.#check(sessionId);
          if (end) finish(end);
        } catch {
          // A failed read is tried again at the next event or tick; the deadline still holds.
        } finally {
          checking = false;
          if (again && !done) {
            again = false;
            void recheck();
          }
        }
      };
      const unsubscribe = this.sources.events.on('*', (event) => {
        if (event.sessionId !== sessionId || done) return;
        seen += 1;
        options.progress?.(seen, event.type);
        if (CHANGES.has(event.type)) void recheck();
      });
      const arm = () => {
        const left = deadline - Date.now();
        if (left <= 0) {
          void this.#check(sessionId)
            .catch(() => undefined)
            .then((end) => finish(end ?? 'timeout'));
          return;
        }
        const step = this.sources.isFollowing(sessionId) ? left : Math.min(left, this.sources.recheckMs);
        timer = setTimeout(() => {
          if (deadline - Date.now() <= 0) return arm();
          void recheck().then(() => {
            if (!done) arm();
          });
        }, step);
      };
      // A host that gave up while the first read was out (its request closed) is not waited for.
      if (options.signal?.aborted) return aborted();
      options.signal?.addEventListener('abort', aborted, { once: true });
      // A change between the first read and listening (no event of it reached the handler above).
      if ((this.#changedAt.get(sessionId) ?? -1) > mark) void recheck();
      arm();
    });
  }

  /** The session's state, one read shared by every wait on it that asks while none has yet started. */
  async #check(sessionId: string): Promise<WaitEnd | undefined> {
    return endOf(await this.#reads.read(sessionId, () => this.sources.state(sessionId)));
  }
}

const endOf = ({ ended, asking }: WaitState): WaitEnd | undefined =>
  ended ? 'ended' : asking ? 'asking' : undefined;

/**
 * Reads shared by key, each answer read no earlier than it was asked for: a read asked while one runs
 * waits for the next, which starts once that one settles and serves everyone who asked meanwhile. A
 * thousand waits on twenty sessions read each session about once per event, not once per wait, and
 * none misses a change made before it asked.
 */
class FreshReads<T> {
  readonly #byKey = new Map<string, { running: Promise<T>; next?: Promise<T> }>();

  read(key: string, fn: () => Promise<T>): Promise<T> {
    const reading = this.#byKey.get(key);
    if (!reading) return this.#start(key, fn);
    if (!reading.next) {
      const settled = reading.running.then(
        () => undefined,
        () => undefined,
      );
      reading.next = settled.then(() => this.#start(key, fn));
    }
    return reading.next;
  }

  #start(key: string, fn: () => Promise<T>): Promise<T> {
    const running = fn();
    const entry: { running: Promise<T>; next?: Promise<T> } = { running };
    this.#byKey.set(key, entry);
    const done = () => {
      if (this.#byKey.get(key) === entry && !entry.next) this.#byKey.delete(key);
    };
    running.then(done, done);
    return running;
  }
}

/** At most `width` runs at once, first come first served, each started on a later turn of the loop. */
class Admissions {
  #running = 0;
  readonly #queue: Array<() => void> = [];

  constructor(private readonly width: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.#queue.push(resolve);
      this.#next();
    });
    try {
      return await fn();
    } finally {
      this.#running -= 1;
      this.#next();
    }
  }

  #next(): void {
    if (this.#running >= this.width) return;
    const admit = this.#queue.shift();
    if (!admit) return;
    this.#running += 1;
    // Let I/O in first (a Slack request waiting on the socket): one admission per turn of the loop.
    setImmediate(admit);
  }
}
