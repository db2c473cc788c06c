import { describe, expect, it } from 'vitest';
import { boundedCache } from '../src/bounded-cache.js';

describe('boundedCache (an LRU cache bounded by its count of entries)', () => {
  it('holds at most max entries: the least recently used goes first', () => {
    const cache = boundedCache<string, number>({ max: 3 });
    for (const key of ['a', 'b', 'c']) cache.set(key, 1);
    cache.get('a');
    cache.set('d', 1);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
    expect([...cache.keys()]).toEqual(['k99', 'k98', 'k97']);
  });

  it('takes lru-cache’s other options: a ttl on the caller’s clock', () => {
    let now = 1_000;
    const cache = boundedCache<string, string>({
      max: 10,
      ttl: 100,
      ttlResolution: 0,
      perf: { now: () => now },
    });
    cache.set('a', 'yes');
    now += 99;
    expect(cache.get('a')).toBe('yes');
    now += 2;
    expect(cache.get('a')).toBeUndefined();
  });

  it('grows as entries come: a large bound allocates nothing up front', () => {
    // lru-cache sizes its typed arrays by `max` when given one; bounded by size, they start empty.
    const cache = boundedCache<string, number>({ max: 1_000_000 });
    expect(cache.max).toBe(0);
    expect(cache.maxSize).toBe(1_000_000);
    cache.set('a', 1);
    expect(cache.calculatedSize).toBe(1);
  });
});
