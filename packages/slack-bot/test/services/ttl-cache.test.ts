import { afterEach, describe, expect, it, vi } from 'vitest';
import { ttlCache } from '../../src/services/ttl-cache.js';

afterEach(() => vi.restoreAllMocks());

describe('ttlCache (the bot’s caches of answers that go stale)', () => {
  it('keeps an entry for ttlMs on Date.now’s clock, then forgets it', () => {
    const start = Date.now();
    const now = vi.spyOn(Date, 'now').mockReturnValue(start);
    const cache = ttlCache<string>({ max: 10, ttlMs: 60_000 });
    cache.set('a', 'yes');
    now.mockReturnValue(start + 59_999);
    expect(cache.get('a')).toBe('yes');
    now.mockReturnValue(start + 60_001);
    expect(cache.get('a')).toBeUndefined();
  });

  it('a read does not lengthen the life of an entry', () => {
    let now = 1_000;
    const cache = ttlCache<string>({ max: 10, ttlMs: 100, now: () => now });
    cache.set('a', 'yes');
    now += 90;
    expect(cache.get('a')).toBe('yes');
    now += 20;
    expect(cache.get('a')).toBeUndefined();
  });

  it('holds at most max entries: the least recently used goes first', () => {
    const cache = ttlCache<number>({ max: 3, ttlMs: 60_000 });
    for (const key of ['a', 'b', 'c']) cache.set(key, 1);
    cache.get('a');
    cache.set('d', 1);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
  });

  it('a ttlMs of 0 keeps nothing: every answer is asked afresh', () => {
    const cache = ttlCache<string>({ max: 10, ttlMs: 0 });
    cache.set('a', 'yes');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
