import type { Clock } from './clock.js';

export interface TokenBucketOptions {
  /** Sustained requests per second. */
  ratePerSecond: number;
  /** Requests that may go at once after a quiet spell. Default: one second's worth, at least 1. */
  burst?: number;
  clock: Clock;
  /**
   * How long a token taken for a call (`tryTake`'s `flight`) counts as in flight at most, when nothing
   * says it landed (a call never answered). Default 15 s: well above what a call takes, and short, since a
   * call that may spend only a full burst waits that long for a lost one.
   */
  flightExpiryMs?: number;
}

/**
 * The request budget of one API key. Every request any follower makes with that key takes a token first;
 * a 429 pauses the whole bucket, because the service limits the key, not the session.
 */
export class TokenBucket {
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #refilledAt: number;
  #pausedUntil = 0;
  readonly #flightExpiryMs: number;
  /** Tokens taken for calls not yet answered, with when each was taken. */
  readonly #flights = new Map<string, number>();
  // Waiters are served first come, first served; only the head of the queue sleeps for the next token.
  #queue: Array<() => void> = [];
  #draining = false;

  constructor(options: TokenBucketOptions) {
    if (!(Number.isFinite(options.ratePerSecond) && options.ratePerSecond > 0)) {
      throw new RangeError(`ratePerSecond must be a positive number, got ${String(options.ratePerSecond)}`);
    }
    const burst = options.burst ?? Math.max(1, Math.floor(options.ratePerSecond));
    if (!(Number.isFinite(burst) && burst >= 1)) {
      throw new RangeError(`burst must be a number >= 1, got ${String(options.burst)}`);
    }
    this.ratePerSecond = options.ratePerSecond;
    this.burst = burst;
    this.#clock = options.clock;
    this.#tokens = burst;
    this.#refilledAt = options.clock.now();
    this.#flightExpiryMs = options.flightExpiryMs ?? 15_000;
  }

  /** Requests waiting for a token right now. */
  get waiting(): number {
    return this.#queue.length;
  }

  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** Tokens taken for calls that have not landed yet (see `tryTake`'s `flight`). */
  get inFlight(): number {
    this.#expireFlights();
    return this.#flights.size;
  }

  /**
   * Takes a token if one is free and nobody is queued ahead; never waits. `keep`: only if that many
   * tokens stay after it (a call that may spend only what would otherwise go unused keeps `burst - 1`).
   * `flight`: the token is taken for a call the limit counts when it arrives, some time before its
   * answer; until `landed(flight)` the bucket holds at most `burst` minus the tokens in flight (see
   * `landed`).
   */
  tryTake(keep = 0, flight?: string): boolean {
    if (this.#queue.length > 0) return false;
    this.#refill();
    if (this.#clock.now() < this.#pausedUntil || this.#tokens < 1 + keep) return false;
    this.#tokens -= 1;
    if (flight !== undefined) this.#flights.set(flight, this.#clock.now());
    return true;
  }

  /**
   * The call a token was taken for (`tryTake`'s `flight`) was answered, failed, or never went. The limit
   * counted it somewhere between its token and now; until then its own bucket stayed full whenever
   * nothing else spent it, refilling no further, while this one went on refilling. So while calls are
   * in flight this bucket holds at most `burst` minus their number, never more than the limit would
   * still let through once they arrive; landed, the call no longer holds a token back.
   */
  landed(flight: string): void {
    this.#refill();
    this.#flights.delete(flight);
  }

  /** A token taken for something that turned out not to count goes back (never past the ceiling). */
  giveBack(): void {
    this.#refill();
    this.#tokens = Math.min(this.burst - this.inFlight, this.#tokens + 1);
  }

  /** Waits for a token. Rejects with the signal's reason if it aborts while queued. */
  take(signal?: AbortSignal): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.#queue = this.#queue.filter((g) => g !== grant);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(grant);
      void this.#drain();
    });
  }

  /** Nobody gets a token until `ms` from now (a 429's Retry-After). Pauses only ever lengthen. */
  pauseFor(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#clock.now() + Math.max(0, ms));
    // What was saved up before the 429 is not a license to burst straight after it.
    this.#tokens = Math.min(this.#tokens, 1);
  }

  /** Milliseconds until a token could be taken (0 when one is free now), `keep` tokens staying after it. */
  msUntilAvailable(keep = 0): number {
    this.#refill();
    const now = this.#clock.now();
    const pause = Math.max(0, this.#pausedUntil - now);
    const want = Math.min(1 + keep, this.burst);
    const refill = this.#tokens >= want ? 0 : ((want - this.#tokens) * 1000) / this.ratePerSecond;
    return Math.max(pause, Math.ceil(refill));
  }

  #refill(): void {
    const now = this.#clock.now();
    const elapsed = Math.max(0, now - this.#refilledAt);
    // The ceiling changes only where the tokens are counted (a take, a landing): it held since the last.
    const ceiling = this.burst - this.inFlight;
    this.#tokens = Math.min(ceiling, this.#tokens + (elapsed * this.ratePerSecond) / 1000);
    this.#refilledAt = now;
  }

  /** A flight never said to land stops holding a token back after `flightExpiryMs` (its call long over). */
  #expireFlights(): void {
    const before = this.#clock.now() - this.#flightExpiryMs;
    for (const [flight, at] of this.#flights) if (at <= before) this.#flights.delete(flight);
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#queue.length > 0) {
        const wait = this.msUntilAvailable();
        if (wait > 0) {
          await this.#clock.sleep(wait);
          continue;
        }
        const grant = this.#queue.shift();
        if (!grant) break;
        this.#tokens -= 1;
        grant();
      }
    } finally {
      this.#draining = false;
    }
  }
}
