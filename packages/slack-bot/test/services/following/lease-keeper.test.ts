import type { Follower } from '@agent-sessions/core';
import { describe, expect, it } from 'vitest';
import { LeaseKeeper } from '../../../src/services/following/lease-keeper.js';
import type { LeaseRepository } from '../../../src/store/leases.js';
import { FakeSessions, logger, session } from '../../fakes.js';

/** Leases as the store hands them out: whatever `held` says at each renewal. */
function world(options: { serves?: (sessionId: string) => Promise<boolean> } = {}) {
  const sessions = new FakeSessions();
  const state = { held: [] as string[] };
  const leases: LeaseRepository = {
    acquire: async () => [...state.held],
    release: async () => {},
    poke: async () => {},
    takePokes: async () => [],
    awaitingOwner: async () => false,
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
});
