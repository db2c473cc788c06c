import type { Follower } from '@agent-sessions/core';
import { describe, expect, it, vi } from 'vitest';
import { patient } from '../../../../../test/support/patience.js';
import { LeaseKeeper } from '../../../src/services/following/lease-keeper.js';
import type { LeaseRepository } from '../../../src/store/leases.js';
import { FakeSessions, logger, session } from '../../fakes.js';

/** Leases as the store hands them out: whatever `held` says at each renewal. */
function world(
  options: { serves?: (sessionId: string) => Promise<boolean>; limit?: number; pokeEveryMs?: number } = {},
) {
  const sessions = new FakeSessions();
  const state = { held: [] as string[], unowned: false, acquired: 0, asked: 0 };
  const leases: LeaseRepository = {
    acquire: async () => {
      state.acquired++;
      return [...state.held];
    },
    release: async () => {},
    poke: async () => {},
    takePokes: async () => [],
    awaitingOwner: async () => {
      state.asked++;
      return state.unowned;
    },
  };
  const following = new Set<string>();
  const follower = {
    follow: async (id: string) => {
      following.add(id);
      return true;
    },
    unfollow: (id: string) => following.delete(id),
    isFollowing: (id: string) => following.has(id),
    poke: () => true,
  } as unknown as Follower;
  const lost: string[] = [];
  const followed: string[] = [];
  const keeper = new LeaseKeeper({ leases, sessions }, follower, logger, {
    owner: 'replica-a',
    onLost: (id) => lost.push(id),
    onFollowed: (id) => followed.push(id),
    ...(options.serves ? { serves: options.serves } : {}),
    ...(options.limit ? { limit: options.limit } : {}),
    // Renewals an hour apart, as a long lease time has them: only the poke pass takes anything meanwhile.
    ttlMs: 3_600_000,
    ...(options.pokeEveryMs ? { pokeEveryMs: options.pokeEveryMs } : {}),
  });
  return { sessions, state, keeper, following, lost, followed };
}

describe('LeaseKeeper', () => {
  it('a session of a workspace the bot no longer serves is not followed, though its lease is held', async () => {
    const w = world({ serves: async (id) => id !== 'sess_dropped' });
    w.sessions.add(session({ sessionId: 'sess_kept' }));
    w.sessions.add(session({ sessionId: 'sess_dropped' }));
    w.state.held = ['sess_kept', 'sess_dropped'];
    await w.keeper.refresh();
    expect([...w.following]).toEqual(['sess_kept']);
    expect(w.followed).toEqual(['sess_kept']);
  });

  it('a session another replica may hold now is withdrawn here; one that finished is only let go', async () => {
    const w = world();
    w.sessions.add(session({ sessionId: 'sess_moved' }));
    w.sessions.add(session({ sessionId: 'sess_done' }));
    w.state.held = ['sess_moved', 'sess_done'];
    await w.keeper.refresh();
    expect([...w.following].sort()).toEqual(['sess_done', 'sess_moved']);
    // One finished here (its record says so: no replica takes it); the other's lease went elsewhere.
    await w.sessions.update('sess_done', { finished: true });
    w.state.held = [];
    await w.keeper.refresh();
    expect(w.following.size).toBe(0);
    // What this replica still has queued for the finished one (the notice that the service forgot it) stays
    // this replica's to post.
    expect(w.lost).toEqual(['sess_moved']);
  });

  it('each session followed anew is said once (a start, a take-over), not at every renewal', async () => {
    const w = world();
    w.sessions.add(session({ sessionId: 'sess_a' }));
    w.sessions.add(session({ sessionId: 'sess_b' }));
    w.state.held = ['sess_a'];
    await w.keeper.refresh();
    await w.keeper.refresh();
    expect(w.followed).toEqual(['sess_a']);
    // Another replica died: its session is taken over here.
    w.state.held = ['sess_a', 'sess_b'];
    await w.keeper.refresh();
    expect(w.followed).toEqual(['sess_a', 'sess_b']);
  });

  it('a session waiting for an owner is taken at the next poke pass, not at the next renewal', async () => {
    const w = world({ pokeEveryMs: 5 });
    w.sessions.add(session({ sessionId: 'sess_mine' }));
    w.sessions.add(session({ sessionId: 'sess_unowned' }));
    w.state.held = ['sess_mine'];
    await w.keeper.start();
    try {
      await vi.waitFor(() => expect(w.state.asked).toBeGreaterThan(0), { timeout: patient(10_000) });
      expect(w.state.acquired).toBe(1);
      w.state.held = ['sess_mine', 'sess_unowned'];
      w.state.unowned = true;
      await vi.waitFor(() => expect(w.followed).toEqual(['sess_mine', 'sess_unowned']), {
        timeout: patient(10_000),
      });
    } finally {
      await w.keeper.stop();
    }
  });

  it('a replica at its limit does not ask: it has no room for another session', async () => {
    const w = world({ pokeEveryMs: 5, limit: 1 });
    w.sessions.add(session({ sessionId: 'sess_mine' }));
    w.sessions.add(session({ sessionId: 'sess_other' }));
    w.state.held = ['sess_mine'];
    w.state.unowned = true;
    await w.keeper.start();
    try {
      // Its sibling below its limit asks at its poke passes; this one, at the same pace, never does.
      const sibling = world({ pokeEveryMs: 5, limit: 2 });
      sibling.state.held = ['sess_other'];
      sibling.state.unowned = true;
      await sibling.keeper.start();
      await vi.waitFor(() => expect(sibling.state.acquired).toBeGreaterThan(2), { timeout: patient(10_000) });
      await sibling.keeper.stop();
      expect(w.state.asked).toBe(0);
      expect(w.state.acquired).toBe(1);
    } finally {
      await w.keeper.stop();
    }
  });
});
