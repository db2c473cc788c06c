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

  it('giveBack returns a token taken for nothing, never past the burst', () => {
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 2, clock: new ManualClock(0) });
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, false]);
    bucket.giveBack();
    expect([bucket.tryTake(), bucket.tryTake()]).toEqual([true, false]);
    for (let i = 0; i < 5; i++) bucket.giveBack();
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, false]);
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
    expect(bucket.tryTake(0, 'a')).toBe(true);
    // Its call goes 2 s later: the limit was full all along, and is one short of full after it.
    await clock.advance(2_000);
    bucket.landed('a');
    for (let i = 0; i < 4; i++) expect(bucket.tryTake()).toBe(true);
    expect(bucket.tryTake()).toBe(false);
  });

  it('calls in flight together: the bucket never holds more than the limit will let through', async () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 5, clock });
    // Five calls take the burst at once; the limit counts them when they arrive, 2 s later.
    for (const id of ['a', 'b', 'c', 'd', 'e']) expect(bucket.tryTake(0, id)).toBe(true);
    expect(bucket.inFlight).toBe(5);
    await clock.advance(2_000);
    // Meanwhile nothing refilled: the limit stayed full until they came, and is empty after them.
    expect(bucket.tryTake()).toBe(false);
    for (const id of ['a', 'b', 'c', 'd', 'e']) bucket.landed(id);
    expect(bucket.inFlight).toBe(0);
    expect(bucket.tryTake()).toBe(false);
    await clock.advance(1_000);
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.tryTake()).toBe(false);
  });

  it('a call in flight holds one token back, and a flight never said to land expires', async () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 3, clock, flightExpiryMs: 60_000 });
    expect(bucket.tryTake(0, 'lost')).toBe(true);
    await clock.advance(10_000);
    // A call that leaves the rest of the burst (keep 2) waits for a full bucket: not while one is out.
    expect(bucket.tryTake(2)).toBe(false);
    expect(bucket.tryTake(1)).toBe(true);
    await clock.advance(60_000);
    expect(bucket.inFlight).toBe(0);
    expect(bucket.tryTake(2)).toBe(true);
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
