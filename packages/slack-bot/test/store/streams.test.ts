import { expect, it } from 'vitest';
import { describeWithStore, storeBackends } from './backends.js';

// The streams' bookkeeping in SQL: a stream recorded before it starts, an append in flight before it
// is sent, and its keys given the stream's ts together with the stream's new state.
for (const backend of storeBackends('streams')) {
  describeWithStore(backend, `a session's streams in the store (${backend.name})`, (store) => {
    it('start, append, stop: each key once with the stream ts, what was in flight kept until answered', async () => {
      const s = `sess_${Math.random().toString(36).slice(2)}`;
      await store.posts.begin(s, 'msg:r1#0', '{"text":"a"}');
      await store.streams.begin(s, 1, 'r1', { keys: ['msg:r1#0'], pieces: [{ markdown: 'a' }] });
      expect(await store.streams.latest(s)).toMatchObject({
        seq: 1,
        ts: null,
        state: 'starting',
        inFlight: { keys: ['msg:r1#0'] },
      });
      expect(await store.streams.unsettledSessions(10)).toContain(s);
      await store.streams.commit(s, 1, { ts: '1.1', keys: ['msg:r1#0'], chars: 1, tasks: {} });
      expect(await store.posts.ts(s, 'msg:r1#0')).toBe('1.1');
      expect(await store.posts.unsent(s)).toEqual([]);

      await store.posts.begin(s, 'msg:r1#1', '{"text":"b"}');
      await store.posts.begin(s, 'msg:r1#2', '{"text":"c"}');
      await store.streams.intend(s, 1, { keys: ['msg:r1#1', 'msg:r1#2'], pieces: [] });
      expect((await store.streams.latest(s))?.inFlight?.keys).toEqual(['msg:r1#1', 'msg:r1#2']);
      const tasks = { c1: { title: 'read_file', status: 'complete' } };
      await store.streams.commit(s, 1, { ts: '1.1', keys: ['msg:r1#1', 'msg:r1#2'], chars: 3, tasks });
      expect(await store.streams.latest(s)).toMatchObject({ state: 'open', chars: 3, tasks, inFlight: null });
      expect(await store.streams.keysOf(s, '1.1')).toEqual(['msg:r1#0', 'msg:r1#1', 'msg:r1#2']);
      expect(await store.streams.hadRound(s, 'r1')).toBe(true);
      expect(await store.streams.hadRound(s, 'r2')).toBe(false);

      await store.streams.stopped(s, 1);
      expect((await store.streams.latest(s))?.state).toBe('stopped');
      expect(await store.streams.unsettledSessions(1000)).not.toContain(s);
    });

    it('a start Slack never took is forgotten; an append refused is no longer in flight', async () => {
      const s = `sess_${Math.random().toString(36).slice(2)}`;
      await store.streams.begin(s, 1, 'r1', { keys: ['k'], pieces: [] });
      await store.streams.forget(s, 1);
      expect(await store.streams.latest(s)).toBeUndefined();
      await store.streams.begin(s, 1, 'r1', { keys: ['k'], pieces: [] });
      await store.streams.commit(s, 1, { ts: '2.2', keys: ['k'], chars: 1, tasks: {} });
      await store.streams.forget(s, 1); // started: not forgotten
      await store.streams.intend(s, 1, { keys: ['k2'], pieces: [] });
      await store.streams.clearInFlight(s, 1);
      expect(await store.streams.latest(s)).toMatchObject({ ts: '2.2', inFlight: null });
    });
  });
}
