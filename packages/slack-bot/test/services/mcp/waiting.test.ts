import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SessionWaiter } from '../../../src/services/mcp/index.js';

/** A follower's events as the waiter hears them: subscribe to every event, get the way to unsubscribe. */
function events() {
  const emitter = new EventEmitter();
  return {
    on: (_type: '*', handler: (event: { type: string; sessionId: string }) => void) => {
      emitter.on('event', handler);
      return () => emitter.off('event', handler);
    },
    emit: (type: string, sessionId: string) => emitter.emit('event', { type, sessionId }),
    listeners: () => emitter.listenerCount('event'),
  };
}

/** A waiter on `bus` for sessions this replica follows, whose every read is counted and answers `state()`. */
function followedWaiter(bus: ReturnType<typeof events>, state: () => { ended: boolean; asking: boolean }) {
  const counted = { reads: 0 };
  const waiter = new SessionWaiter({
    events: bus,
    isFollowing: () => true,
    state: async () => {
      counted.reads += 1;
      return state();
    },
    recheckMs: 1,
  });
  return { waiter, counted };
}

describe('wait_for_session: woken by the follower, not by a loop of its own', () => {
  it('a followed session is read once at the start and once per event of its own, nothing more', async () => {
    const bus = events();
    let asking = false;
    const { waiter, counted } = followedWaiter(bus, () => ({ ended: false, asking }));
    const seen: string[] = [];
    const waiting = waiter.wait('s1', { maxMs: 60_000, progress: (_n, what) => seen.push(what) });
    await new Promise((resolve) => setImmediate(resolve));
    bus.emit('message', 's2'); // another session's: not even counted
    bus.emit('message', 's1'); // progress, but no read: a message doesn't end or ask
    asking = true;
    bus.emit('human_input_needed', 's1');
    expect(await waiting).toBe('asking');
    expect(counted.reads).toBe(2);
    expect(seen).toEqual(['message', 'human_input_needed']);
    expect(bus.listeners()).toBe(1); // the waiter's own record of changes, none of the waits'
  });

  it('a session that already ended returns at once; an aborted wait returns as timed out', async () => {
    const bus = events();
    const ended = new SessionWaiter({
      events: bus,
      isFollowing: () => true,
      state: async () => ({ ended: true, asking: false }),
      recheckMs: 1,
    });
    expect(await ended.wait('s1', { maxMs: 60_000 })).toBe('ended');
    const running = new SessionWaiter({
      events: bus,
      isFollowing: () => true,
      state: async () => ({ ended: false, asking: false }),
      recheckMs: 1,
    });
    const abort = new AbortController();
    const waiting = running.wait('s1', { maxMs: 60_000, signal: abort.signal });
    abort.abort();
    expect(await waiting).toBe('timeout');
    expect(bus.listeners()).toBe(2); // the two waiters' own records of changes, none of the waits'
  });

  it('a change heard while the caller’s first read was out is read at once, not left to the deadline', async () => {
    const bus = events();
    const { waiter, counted } = followedWaiter(bus, () => ({ ended: false, asking: true }));
    const knownAt = waiter.mark();
    const known = { ended: false, asking: false }; // what the caller read, just before the question came
    bus.emit('human_input_needed', 's1');
    bus.emit('status', 's2'); // another session's change: no read for it
    expect(await waiter.wait('s1', { maxMs: 60_000, known, knownAt })).toBe('asking');
    expect(counted.reads).toBe(1);
    const unchanged = waiter.wait('s2', {
      maxMs: 60_000,
      known,
      knownAt: waiter.mark(),
      signal: AbortSignal.abort(),
    });
    expect(await unchanged).toBe('timeout');
    expect(counted.reads).toBe(1);
  });

  it('a session another replica follows is read again on the one timer until it changes', async () => {
    let reads = 0;
    const waiter = new SessionWaiter({
      events: events(),
      isFollowing: () => false,
      state: async () => {
        reads += 1;
        return { ended: reads >= 3, asking: false };
      },
      recheckMs: 5,
    });
    expect(await waiter.wait('s1', { maxMs: 60_000 })).toBe('ended');
    expect(reads).toBe(3);
  });
});

describe('many waits on one session, admitted together', () => {
  it('share their reads: one per event per session, never one begun before the event', async () => {
    const bus = events();
    let asking = false;
    let reads = 0;
    const gates: Array<() => void> = [];
    const waiter = new SessionWaiter({
      events: bus,
      isFollowing: () => true,
      // Each read sees `asking` as it is when the read starts, and settles when the test says.
      state: () => {
        reads += 1;
        const seen = asking;
        return new Promise((resolve) => gates.push(() => resolve({ ended: false, asking: seen })));
      },
      recheckMs: 1,
    });
    const known = { ended: false, asking: false };
    const waits = Array.from({ length: 50 }, () => waiter.wait('s1', { maxMs: 60_000, known }));
    expect(reads).toBe(0); // the caller's own read is not made again
    bus.emit('status', 's1');
    expect(reads).toBe(1); // fifty waits, one read
    asking = true;
    bus.emit('human_input_needed', 's1'); // asked while that read runs: one more read, after it
    expect(reads).toBe(1);
    gates.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toBe(2);
    gates.shift()?.();
    expect(await Promise.all(waits)).toEqual(Array(50).fill('asking'));
    expect(reads).toBe(2);
    expect(bus.listeners()).toBe(1); // the waiter's own record of changes, none of the waits'
  });

  it('admitted a few at a time, each on a later turn of the event loop', async () => {
    const waiter = new SessionWaiter(
      {
        events: events(),
        isFollowing: () => true,
        state: async () => ({ ended: false, asking: false }),
        recheckMs: 1,
      },
      2,
    );
    let inside = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const admitted = Array.from({ length: 6 }, () =>
      waiter.admit(async () => {
        inside += 1;
        most = Math.max(most, inside);
        await new Promise<void>((resolve) => releases.push(resolve));
        inside -= 1;
      }),
    );
    expect(inside).toBe(0); // none synchronously: a Slack request already waiting goes first
    for (let released = 0; released < 6; ) {
      const next = releases.shift();
      if (next) {
        next();
        released += 1;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(admitted);
    expect(most).toBe(2);
  });
});
