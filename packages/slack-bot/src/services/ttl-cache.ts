import { LRUCache } from 'lru-cache';
import { boundedCache } from '../bounded-cache.js';

/**
 * A cache of answers that go stale: at most `max` entries (the least recently used dropped first), each
 * kept `ttlMs` from when it was set. A `ttlMs` of 0 keeps nothing, every answer asked afresh (the tests'
 * setting); lru-cache reads a ttl of 0 as "forever", so there every entry is made too large to keep. Its
 * clock is `now` (default `Date.now`), read at every check and never rounded (`ttlResolution: 0`:
 * lru-cache would otherwise keep a reading for a moment on a timer), so the cache's time is the caller's
 * and a test that moves `Date.now` moves it too.
 */
export function ttlCache<V extends {}>(options: {
  max: number;
  ttlMs: number;
  now?: () => number;
}): LRUCache<string, V> {
  const now = options.now ?? (() => Date.now());
  if (options.ttlMs <= 0)
    return new LRUCache<string, V>({ max: 1, maxEntrySize: 1, sizeCalculation: () => 2 });
  return boundedCache<string, V>({ max: options.max, ttl: options.ttlMs, ttlResolution: 0, perf: { now } });
}
