import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, CHANNEL, slackAt, textOf, useHarness, WAIT_MS } from './harness.js';

// Slack's read limits for commercially distributed apps outside the Marketplace, strictly: one
// conversations.replies (or history) a minute per workspace, 15 messages each, a 429 with Retry-After
// otherwise. Every other limit as the other suites have it.
const { history: _tier3History, ...otherLimits } = slackAt(10).limits;
const h = useHarness({ sandbox: { rateLimits: { ...otherLimits, historyProfile: 'non-marketplace' } } });

const ws = () => h.sandbox.workspace;
const SESSION_ID = /session `([^`]+)`/;

/** The session card in a thread, once it says where it came from. */
const cardSaying = (threadTs: string): Promise<SandboxMessage> =>
  ws().waitFor(
    () =>
      ws()
        .replies(CHANNEL, threadTs)
        .find((m) => SESSION_ID.test(textOf(m)) && /Started from this thread/.test(textOf(m))),
    { what: `the session card in thread ${threadTs}`, timeoutMs: WAIT_MS },
  );

const startedFrom = (card: SandboxMessage): string =>
  /Started from this thread, [^"\n]*/.exec(textOf(card))?.[0].replace(/[*_]/g, '') ?? '';

describe('thread context under the non-Marketplace read limits', () => {
  it('three mentions in three threads within a minute all start; each card says how much context it got', async () => {
    // A: its root and reply came as events, so its context needs no read.
    const a = await h.driver.say({ user: BOB, channel: CHANNEL, text: 'A: the nightly deploy failed' });
    await h.driver.replyInThread({
      user: CAROL,
      channel: CHANNEL,
      threadTs: a.message.ts,
      text: 'A: it is the migration step',
    });
    // B and C: their roots were written before the bot was there (no event); one reply came each.
    const roots: string[] = [];
    for (const name of ['B', 'C']) {
      const root = ws().post({ channel: CHANNEL, user: BOB, text: `${name}: a flaky test` });
      await h.driver.replyInThread({
        user: CAROL,
        channel: CHANNEL,
        threadTs: root.ts,
        text: `${name}: only on CI`,
      });
      roots.push(root.ts);
    }
    const readsBefore = ws().apiCalls.filter((c) => c.method === 'conversations.replies').length;
    for (const threadTs of [a.message.ts, ...roots])
      await h.driver.mention({ user: ALICE, channel: CHANNEL, threadTs, text: 'scenario:complete' });

    expect(startedFrom(await cardSaying(a.message.ts))).toBe(
      'Started from this thread, with 2 earlier messages',
    );
    // One of B and C gets the minute's read (its root, so its whole thread); the other starts with the
    // reply it received and says it is not the whole thread.
    const others = (await Promise.all(roots.map(cardSaying))).map(startedFrom).sort();
    expect(others).toEqual([
      'Started from this thread, with 1 earlier message (not the whole thread: its start could not be read, Slack allows 1 thread read a minute)',
      'Started from this thread, with 2 earlier messages',
    ]);
    const reads = ws()
      .apiCalls.filter((c) => c.method === 'conversations.replies')
      .slice(readsBefore);
    expect(reads.map((c) => c.status)).toEqual([200]);
    const sessions = await h.emulator.admin.sessions();
    const contexts = sessions
      .map(
        (s) =>
          (s.context as { slack?: { threadTs: string; messages: Array<{ text: string }> } } | null)?.slack,
      )
      .filter((c) => c !== undefined && [a.message.ts, ...roots].includes(c.threadTs));
    expect(contexts).toHaveLength(3);
    const byThread = new Map(contexts.map((c) => [c?.threadTs, c?.messages.map((m) => m.text)]));
    expect(byThread.get(a.message.ts)).toEqual([
      'A: the nightly deploy failed',
      'A: it is the migration step',
    ]);
  });
});
