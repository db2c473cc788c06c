import { type Clock, systemClock, TokenBucket } from '@agent-sessions/core';
import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../../bounded-cache.js';

export type BudgetAnswer = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Request budgets: a token bucket per key (core's `TokenBucket`: `perMinute` at once after a quiet spell,
 * refilled at `perMinute` a minute), kept in this replica's memory. A spent budget refuses with the
 * seconds until the next request is allowed; nothing waits. With several replicas each keeps its own, so
 * a key may reach its budget once per replica: the bound is on what one key can make one replica do.
 * The endpoint keys one budget by person (their workspace and user id, so more tokens buy no more
 * requests) and another by client address (its failed sign-ins).
 */
export class RequestBudget {
  /** The least recently used key is forgotten first: its bucket is full again when it comes back. */
  readonly #buckets: LRUCache<string, TokenBucket>;
  readonly #clock: Clock;

  constructor(
    private readonly settings: {
      /** The steady rate, and the burst a quiet key may spend at once. */
      perMinute: number;
      now?: () => number;
      /** Keys remembered at most. */
      maxTracked?: number;
    },
  ) {
    if (!(Number.isFinite(settings.perMinute) && settings.perMinute >= 1))
      throw new RangeError(`perMinute must be a number >= 1, got ${String(settings.perMinute)}`);
    this.#clock = settings.now ? { now: settings.now, sleep: systemClock.sleep } : systemClock;
    this.#buckets = boundedCache({ max: settings.maxTracked ?? 10_000 });
  }

  /** Takes one request from `key`'s budget: allowed, or refused with when to try again. */
  take(key: string): BudgetAnswer {
    const bucket = this.#bucket(key);
    return bucket.tryTake() ? { allowed: true } : this.#refusal(bucket);
  }

  /** Gives back a request `take` spent that turned out not to count. */
  refund(key: string): void {
    this.#buckets.get(key)?.giveBack();
  }

  #bucket(key: string): TokenBucket {
    const known = this.#buckets.get(key);
    if (known) return known;
    const { perMinute } = this.settings;
    const bucket = new TokenBucket({ ratePerSecond: perMinute / 60, burst: perMinute, clock: this.#clock });
    this.#buckets.set(key, bucket);
    return bucket;
  }

  #refusal(bucket: TokenBucket): BudgetAnswer {
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(bucket.msUntilAvailable() / 1000)) };
  }
}
