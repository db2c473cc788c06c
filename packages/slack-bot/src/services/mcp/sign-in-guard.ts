import { systemClock, TokenBucket } from '@agent-sessions/core';
import type { LRUCache } from 'lru-cache';
import { ttlCache } from '../ttl-cache.js';
import { RequestBudget } from './request-budget.js';
import { hashOf, wellFormedToken } from './tokens.js';

/** How long a token that passed keeps its way past a spent address budget. */
const PASSED_TTL_MS = 10 * 60_000;
const MAX_PASSED = 10_000;

/** Store lookups a second, on this replica, for well-formed tokens from addresses whose budget is spent. */
export const SPENT_ADDRESS_LOOKUPS_PER_SECOND = 20;

/**
 * Whether a token check may go ahead. `charged`: it spent its address's budget, given back by `passed`
 * (only failures count against an address, but the budget is spent before the check so that a burst
 * sent at once can't all be let through while the first are still being looked up).
 */
export type Admission = { allowed: true; charged: boolean } | { allowed: false; retryAfterSeconds: number };

/**
 * A budget for requests that fail the token check, per client address (see `clientAddress`: the TCP
 * peer, or behind a trusted proxy the hop it names). Each unknown token costs a store lookup of its hash;
 * a missing one costs nothing but is counted too, so a flood of either is cut short. After `perMinute`
 * failures from one address (refilled at that rate), a request from it bearing no token, or one not of
 * our tokens' shape, is refused 429 with Retry-After before the store is asked. A well-formed token is
 * still looked up, under one budget per replica for all spent addresses together (the store's load stays
 * bounded), so someone guessing from a shared address (an Ingress, a NAT) can't lock out the people
 * there; a token that passed in the last ten minutes (kept by its hash, never itself) skips both budgets.
 */
export class SignInGuard {
  readonly #failures: RequestBudget;
  readonly #spentLookups: TokenBucket;
  readonly #passed: LRUCache<string, true>;

  constructor(settings: { perMinute: number; lookupsPerSecond?: number; now?: () => number }) {
    this.#failures = new RequestBudget(settings);
    const perSecond = settings.lookupsPerSecond ?? SPENT_ADDRESS_LOOKUPS_PER_SECOND;
    const clock = settings.now ? { now: settings.now, sleep: systemClock.sleep } : systemClock;
    this.#spentLookups = new TokenBucket({ ratePerSecond: perSecond, burst: perSecond, clock });
    this.#passed = ttlCache({
      max: MAX_PASSED,
      ttlMs: PASSED_TTL_MS,
      ...(settings.now ? { now: settings.now } : {}),
    });
  }

  /** Whether a request from `address` with `token` may be checked (spending a try), or when to come back. */
  admit(address: string, token: string | undefined): Admission {
    if (token !== undefined && this.#passed.has(hashOf(token))) return { allowed: true, charged: false };
    const spent = this.#failures.take(address);
    if (spent.allowed) return { allowed: true, charged: true };
    if (token !== undefined && wellFormedToken(token) && this.#spentLookups.tryTake())
      return { allowed: true, charged: false };
    return spent;
  }

  /** `token` passed the check: its try is given back to `address`, and it skips the budgets a while. */
  passed(address: string, token: string, admission: Admission): void {
    if (admission.allowed && admission.charged) this.#failures.refund(address);
    this.#passed.set(hashOf(token), true);
  }
}
