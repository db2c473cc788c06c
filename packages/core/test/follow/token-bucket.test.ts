import { describe, expect, it } from 'vitest';
import { ManualClock, TokenBucket } from '../../src/index.js';

describe('TokenBucket', () => {
  it('allows a burst, then one token per 1/rate seconds, first come first served', async () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket({ ratePerSecond: 2, burst: 2, clock });
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.tryTake()).toBe(false);
    const order: number[] = [];
    const a = bucket.take().then(() => order.push(1));
    const b = bucket.take().then(() => order.push(2));
    await clock.advance(499);
    expect(order).toEqual([]);
    await clock.advance(1);
    await a;
    expect(order).toEqual([1]);
    await clock.advance(500);
    await b;
    expect(order).toEqual([1, 2]);
  });

  it('pauses for a 429 and does not burst straight after it', async () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket({ ratePerSecond: 10, burst: 10, clock });
    bucket.pauseFor(3_000);
    expect(bucket.tryTake()).toBe(false);
    expect(bucket.msUntilAvailable()).toBe(3_000);
    await clock.advance(3_000);
    expect(bucket.tryTake()).toBe(true);
  });

  it('a token spent later than taken: what refilled past the brim meanwhile is not there to spend', async () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 5, clock });
    expect(bucket.tryTake()).toBe(true);
    // Its call goes 2 s later: the limit was full all along, and is one short of full after it.
    await clock.advance(2_000);
    bucket.spentNow();
    for (let i = 0; i < 4; i++) expect(bucket.tryTake()).toBe(true);
    expect(bucket.tryTake()).toBe(false);
  });

  it('rejects bad options naming them', () => {
    const clock = new ManualClock();
    expect(() => new TokenBucket({ ratePerSecond: 0, clock })).toThrow(/ratePerSecond/);
    expect(() => new TokenBucket({ ratePerSecond: 1, burst: 0, clock })).toThrow(/burst/);
  });

  it('a queued take rejects when its signal aborts', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 1, clock });
    bucket.tryTake();
    const controller = new AbortController();
    const pending = bucket.take(controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(bucket.waiting).toBe(0);
  });
});
