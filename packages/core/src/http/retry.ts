import {
  type AgentSessionsError,
  ConnectionError,
  RateLimitError,
  ServiceError,
  TimeoutError,
} from './errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** A server-requested wait longer than this is not slept through: the error is raised with it. */
  maxRetryAfterMs: number;
  /** Backoff ceiling. */
  maxBackoffMs: number;
  /** First backoff step. */
  initialBackoffMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 2,
  maxRetryAfterMs: 60_000,
  maxBackoffMs: 8_000,
  initialBackoffMs: 500,
};

/**
 * How long the service asked us to wait, from `retry-after-ms`, `retry-after` (seconds or an HTTP date),
 * or `ratelimit-reset` / `x-ratelimit-reset` (seconds from now, or an epoch when that is clearly meant).
 */
export function serverRequestedDelayMs(
  headers: Record<string, string>,
  now = Date.now(),
): number | undefined {
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const retryAfter = headers['retry-after'];
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (retryAfter.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const reset = headers['ratelimit-reset'] ?? headers['x-ratelimit-reset'];
  if (reset !== undefined) {
    const value = Number(reset);
    if (Number.isFinite(value) && value >= 0) {
      // Some services send an epoch (seconds) rather than a delta.
      return value > 1_000_000_000 ? Math.max(0, value * 1000 - now) : value * 1000;
    }
  }
  return undefined;
}

/** Full jitter: a uniformly random wait up to the exponential step (AWS's "full jitter"). */
export function backoffMs(retryNumber: number, policy: RetryPolicy, random = Math.random): number {
  const ceiling = Math.min(policy.initialBackoffMs * 2 ** Math.max(0, retryNumber - 1), policy.maxBackoffMs);
  return Math.round(random() * ceiling);
}

export type RetryVerdict = { retry: false } | { retry: true; serverDelayMs: number | undefined };

/**
 * Whether a failed attempt may be tried again. GETs are retried on anything transient. A POST only when
 * the service can't have acted on it — refused before sending, a 429, a 503 that says when to come back,
 * or an explicit `x-should-retry: true` — so a retry never makes a second session, signal or answer.
 */
export function retryVerdict(error: AgentSessionsError, idempotent: boolean): RetryVerdict {
  if (error instanceof ServiceError) {
    const should = error.headers['x-should-retry'];
    const serverDelayMs =
      error instanceof RateLimitError ? error.retryAfterMs : serverRequestedDelayMs(error.headers);
    if (should === 'true') return { retry: true, serverDelayMs };
    if (should === 'false') return { retry: false };
    const status = error.status;
    if (status === 429) return { retry: true, serverDelayMs };
    if (status === 503 && serverDelayMs !== undefined) return { retry: true, serverDelayMs };
    if (idempotent && (status === 408 || status === 409 || status >= 500))
      return { retry: true, serverDelayMs };
    return { retry: false };
  }
  if (error instanceof ConnectionError) {
    return idempotent || error.beforeSend ? { retry: true, serverDelayMs: undefined } : { retry: false };
  }
  if (error instanceof TimeoutError)
    return idempotent ? { retry: true, serverDelayMs: undefined } : { retry: false };
  return { retry: false };
}
