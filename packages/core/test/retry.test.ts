import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  ConnectionError,
  defaultRetryPolicy,
  errorFromResponse,
  retryVerdict,
  serverRequestedDelayMs,
  TimeoutError,
} from '../src/index.js';

const now = Date.parse('2026-11-22T12:00:00Z');

describe('serverRequestedDelayMs', () => {
  it.each([
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after': '3' }, 3_000],
    [{ 'retry-after': 'Sun, 22 Nov 2026 12:00:05 GMT' }, 5_000],
    [{ 'retry-after': 'Sun, 22 Nov 2026 11:59:00 GMT' }, 0],
    [{ 'ratelimit-reset': '7' }, 7_000],
    [{ 'x-ratelimit-reset': String(now / 1000 + 9) }, 9_000],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%j -> %s ms', (headers, expected) => {
    expect(serverRequestedDelayMs(headers, now)).toBe(expected);
  });
});

describe('backoffMs', () => {
  it('is full jitter under an exponential ceiling capped at maxBackoffMs', () => {
    expect(backoffMs(1, defaultRetryPolicy, () => 0.999)).toBeLessThanOrEqual(500);
    expect(backoffMs(3, defaultRetryPolicy, () => 0.999)).toBeLessThanOrEqual(2_000);
    expect(backoffMs(30, defaultRetryPolicy, () => 1)).toBe(8_000);
    expect(backoffMs(2, defaultRetryPolicy, () => 0)).toBe(0);
  });
});

describe('retryVerdict', () => {
  const response = (status: number, headers: Record<string, string> = {}) =>
    errorFromResponse({ status, body: {}, headers, method: 'GET', path: '/' });

  it.each([
    ['GET 500', response(500), true, true],
    ['POST 500 (may have been processed)', response(500), false, false],
    ['POST 503 without Retry-After', response(503), false, false],
    ['POST 503 with Retry-After', response(503, { 'retry-after': '1' }), false, true],
    ['POST 429', response(429), false, true],
    ['GET 408', response(408), true, true],
    ['GET 400', response(400), true, false],
    ['GET 404', response(404), true, false],
    ['x-should-retry: false beats a 500', response(500, { 'x-should-retry': 'false' }), true, false],
    ['x-should-retry: true on a POST 500', response(500, { 'x-should-retry': 'true' }), false, true],
    ['POST refused before sending', new ConnectionError('refused', { beforeSend: true }), false, true],
    ['POST reset after sending', new ConnectionError('reset', { beforeSend: false }), false, false],
    ['GET reset', new ConnectionError('reset', { beforeSend: false }), true, true],
    ['POST timeout', new TimeoutError('slow'), false, false],
    ['GET timeout', new TimeoutError('slow'), true, true],
  ])('%s', (_name, error, idempotent, retry) => {
    expect(retryVerdict(error, idempotent).retry).toBe(retry);
  });
});
