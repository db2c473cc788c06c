import { ManualClock } from '@agent-sessions/core';
import { describe, expect, it } from 'vitest';
import { useSandboxWithClient } from '../../../../../../test/support/world.js';
import { OutboundQueue } from '../../../../src/services/slack-out/outbound/index.js';
import { ThreadPoster } from '../../../../src/services/slack-out/thread/thread-poster.js';
import { FakePosts, logger, metrics } from '../../../fakes.js';
import { text } from './card-threads.js';

// A message too long for one post (a file, or parts) is posted while the session's follower waits for it.
// Over the real sandbox's Web API; the channel's pace on a hand-moved clock (Slack's limits off here).
const CHANNEL = 'C0AGENTS';
const world = useSandboxWithClient({ rateLimits: false });

async function card(sessionId: string) {
  const posted = await world.slack.chat.postMessage({ channel: CHANNEL, text: `card of ${sessionId}` });
  return { sessionId, channelId: CHANNEL, cardTs: String(posted.ts) };
}

describe('a long message in a busy channel', () => {
  it("goes after its session's chatter, ahead of other sessions' chatter waiting in the channel", async () => {
    const clock = new ManualClock(Date.now());
    const outbound = new OutboundQueue(logger, metrics(), { postPerSecond: 1, postBurst: 1, clock });
    const posts = new FakePosts();
    const poster = new ThreadPoster({
      slack: world.slack,
      posts,
      logger,
      metrics: metrics(),
      // Posts only: what is measured is which post goes first (an edit of b's post would go at once).
      options: { clock, appends: false },
      outbound,
    });
    const a = await card('sess_long_a');
    const b = await card('sess_long_b');
    const replies = (cardTs: string) => world.sandbox.workspace.replies(CHANNEL, cardTs);
    // b's first message takes the channel's one token; its next waits for the next second.
    await poster.enqueueText(b, 'msg:b1', text('B says one.'));
    await world.sandbox.workspace.waitFor(() => replies(b.cardTs)[0], { what: "b's first post" });
    await poster.enqueueText(b, 'msg:b2', text('B says two.'));
    // b2's turn waits in the channel's queue before anything of a's.
    for (let i = 0; i < 40 && outbound.waiting(CHANNEL, 'chatter') === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(outbound.waiting(CHANNEL, 'chatter')).toBe(1);
    // a says something short, then something too long for a message: a file, which a's follower awaits.
    await poster.enqueueText(a, 'msg:a1', text('A says one.'));
    const long = poster.enqueueText(a, 'msg:a2', text(`Audit: ${'every line read. '.repeat(4_000)}`));
    // Before the channel's next second: a's follower has handed the long message over (its chatter moved
    // up to go first); on a build that queues it as chatter, nothing moves and the second comes anyway.
    for (let i = 0; i < 40 && outbound.waiting(CHANNEL, 'outcome') === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // a's chatter goes at the channel's next second; its file then at once: an upload spends Slack's Tier 4
    // for files, not the channel's one post a second, so it waits for no second of its own.
    for (let i = 0; i < 6 && replies(a.cardTs).length < 1; i++) {
      await clock.advance(1_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await long;
    const [a1, file] = replies(a.cardTs);
    expect(a1?.text).toContain('A says one.');
    expect(file?.files?.length).toBe(1);
    // b's chatter, queued before all of a's, still waits for the channel's next second.
    expect(replies(b.cardTs)).toHaveLength(1);
    for (let i = 0; i < 6 && replies(b.cardTs).length < 2; i++) await clock.advance(1_000);
    await world.sandbox.workspace.waitFor(() => replies(b.cardTs)[1], { what: "b's second post" });
    expect(Number(file?.ts)).toBeLessThan(Number(replies(b.cardTs)[1]?.ts));
  });
});
