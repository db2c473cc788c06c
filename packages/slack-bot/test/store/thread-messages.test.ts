import { expect, it } from 'vitest';
import type { ThreadMessage } from '../../src/store/thread-messages.js';
import { describeWithStore, storeBackends } from './backends.js';

// The messages received as events, kept per workspace for threads' context: once each, a thread's read
// back in order, and the limits (how many a workspace keeps, for how long) applied oldest first.
for (const backend of storeBackends('thread_messages')) {
  describeWithStore(backend, `received messages kept for thread context (${backend.name})`, (store) => {
    const message = (channelId: string, threadTs: string, ts: string, text = ts): ThreadMessage => ({
      channelId,
      threadTs,
      ts,
      userId: 'U0BOB',
      text,
      files: [{ name: 'log.txt', permalink: 'https://slack.test/f' }],
    });

    it('kept once each; a thread read back oldest first, before the mention, with its root', async () => {
      const ws = `T${Math.random().toString(36).slice(2)}`;
      const root = '1700000000.000100';
      expect(await store.threadMessages.remember(ws, message('C1', root, root))).toBe(true);
      expect(await store.threadMessages.remember(ws, message('C1', root, root))).toBe(false);
      // A ts with more digits of seconds sorts after, as a number would.
      for (const ts of ['1700000009.000001', '1700000010.000001', '999999999.000001'])
        await store.threadMessages.remember(ws, message('C1', root, ts));
      await store.threadMessages.remember(ws, message('C2', root, '1700000011.000000'));
      await store.threadMessages.remember(`${ws}x`, message('C1', root, '1700000012.000000'));
      const read = await store.threadMessages.thread(ws, 'C1', root, '1700000010.000001', 10);
      expect(read.messages.map((m) => m.ts)).toEqual(['999999999.000001', root, '1700000009.000001']);
      expect(read.kept).toBe(3);
      expect(read.rootKept).toBe(true);
      expect(read.messages[0]?.files).toEqual([{ name: 'log.txt', permalink: 'https://slack.test/f' }]);
      const newest = await store.threadMessages.thread(ws, 'C1', root, '1800000000.000000', 2);
      expect(newest.messages.map((m) => m.ts)).toEqual(['1700000009.000001', '1700000010.000001']);
      expect(newest.kept).toBe(4);
      const elsewhere = await store.threadMessages.thread(ws, 'C2', root, '1800000000.000000', 10);
      expect(elsewhere.rootKept).toBe(false);
    });

    it('past the workspace limit the oldest received go first; past the retention all of them', async () => {
      const ws = `T${Math.random().toString(36).slice(2)}`;
      const other = `${ws}other`;
      for (let i = 0; i < 5; i++)
        await store.threadMessages.remember(ws, message('C1', '1.000001', `2.00000${i}`));
      await store.threadMessages.remember(other, message('C1', '1.000001', '2.000000'));
      expect(await store.threadMessages.prune(ws, { messages: 3, retentionMs: 60_000 })).toBe(2);
      const left = await store.threadMessages.thread(ws, 'C1', '1.000001', '9.000000', 10);
      expect(left.messages.map((m) => m.ts)).toEqual(['2.000002', '2.000003', '2.000004']);
      await store.sql.query(`UPDATE thread_messages SET received_at = now() - interval '2 hours'`);
      expect(await store.threadMessages.prune(ws, { messages: 100, retentionMs: 3_600_000 })).toBe(3);
      // Another workspace's messages are its own business.
      expect((await store.threadMessages.thread(other, 'C1', '1.000001', '9.000000', 10)).kept).toBe(1);
    });
  });
}
