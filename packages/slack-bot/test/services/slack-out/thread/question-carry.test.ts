import { ManualClock } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { useSandboxWithClient } from '../../../../../../test/support/world.js';
import { OutboundQueue } from '../../../../src/services/slack-out/outbound/index.js';
import { ThreadPoster } from '../../../../src/services/slack-out/thread/thread-poster.js';
import { FakePosts, logger, metrics as newMetrics } from '../../../fakes.js';
import { cardThreads, text } from './card-threads.js';

// A question asked while its session's chatter waits for the channel (a busy channel): the chatter up to
// the message that asked goes in the question's own post, ahead of it. The real sandbox over HTTP, the
// queue on a hand-moved clock: one post a second, no burst.
const CHANNEL = 'C0AGENTS';
const world = useSandboxWithClient({ rateLimits: false });

const { thread, replies } = cardThreads(world, CHANNEL, 'q');

const question = {
  text: 'The agent asks: Deploy?',
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*The agent asks:* Deploy?' } }] as KnownBlock[],
};

function pacedPoster(appends = true) {
  const clock = new ManualClock(Date.now());
  const m = newMetrics();
  const outbound = new OutboundQueue(logger, m, { postPerSecond: 1, postBurst: 1, clock });
  const posts = new FakePosts();
  const poster = new ThreadPoster({
    slack: world.slack,
    posts,
    logger,
    metrics: m,
    outbound,
    options: { retryBaseMs: 5, clock, appends },
  });
  return { poster, posts, clock, outbound };
}

/** Moves the clock once the queue waits for the channel's next token (not before it started waiting). */
async function nextSecond(clock: ManualClock) {
  await expect.poll(() => clock.pendingSleeps).toBeGreaterThan(0);
  await clock.advance(1_000);
}

/** The channel's one token goes to another session: what this one queues next waits a second. */
async function spendTheToken(p: ThreadPoster, other: Awaited<ReturnType<typeof thread>>, key: string) {
  const before = replies(other.cardTs).length;
  await new Promise<void>((posted) => void p.enqueueText(other, key, text(`Other session, ${key}.`), posted));
  expect(replies(other.cardTs).length).toBe(before + 1);
}

describe('a question asked while its chatter waits', () => {
  it('carries that chatter in its one post, ahead of it; what was said after keeps its pace', async () => {
    const place = await thread();
    const other = await thread();
    const { poster: p, posts, clock, outbound } = pacedPoster();
    await spendTheToken(p, other, 'msg:o1');
    await p.enqueueText(place, 'msg:1', text('Built and tested.'));
    await p.enqueueText(place, 'msg:2', text('I need approval.'));
    const through = p.mark();
    await p.enqueueText(place, 'msg:3', text('Said after asking.'));
    const carried: KnownBlock[][] = [];
    const asked = p.postAfterChatter(place, 'input:in_1', question, through, async (blocks) => {
      carried.push(blocks);
    });
    await expect.poll(() => outbound.waiting(CHANNEL, 'urgent')).toBe(1);
    await nextSecond(clock);
    const ts = await asked;
    // One post, one second: the chatter, then the question.
    expect(replies(place.cardTs).map((m) => m.ts)).toEqual([ts]);
    const shown = JSON.stringify(replies(place.cardTs)[0]?.blocks);
    expect(shown.indexOf('Built and tested.')).toBeLessThan(shown.indexOf('I need approval.'));
    expect(shown.indexOf('I need approval.')).toBeLessThan(shown.indexOf('Deploy?'));
    expect(shown).not.toContain('Said after asking.');
    // Its text (notifications, search) says all of it too, in the same order.
    expect(replies(place.cardTs)[0]?.text).toBe(
      'Built and tested.\n\nI need approval.\n\nThe agent asks: Deploy?',
    );
    expect(await posts.ts(place.sessionId, 'msg:1')).toBe(ts);
    expect(await posts.ts(place.sessionId, 'msg:2')).toBe(ts);
    expect(await posts.ts(place.sessionId, 'input:in_1')).toBe(ts);
    // Told before the post, for the question's later edits.
    expect(JSON.stringify(carried)).toContain('I need approval.');
    expect(JSON.stringify(carried)).not.toContain('Deploy?');
    await nextSecond(clock);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[1], { what: 'the later chatter' });
    expect(replies(place.cardTs)[1]?.text).toBe('Said after asking.');
  });

  it('takes the turn its chatter waited for out of the queue: the next second goes to the next post', async () => {
    const place = await thread();
    const other = await thread();
    // Posts only: the other session's next chatter would otherwise go into its post by an edit.
    const { poster: p, clock, outbound } = pacedPoster(false);
    await spendTheToken(p, other, 'msg:o1');
    await p.enqueueText(place, 'msg:1', text('Waiting for its turn.'));
    const asked = p.postAfterChatter(place, 'input:in_1', question, p.mark(), async () => {});
    await expect.poll(() => outbound.waiting(CHANNEL, 'urgent')).toBe(1);
    await nextSecond(clock);
    await asked;
    // The other session's chatter, queued after the emptied turn, has the channel's next token.
    await p.enqueueText(other, 'msg:o2', text('Other session, next.'));
    await nextSecond(clock);
    await world.sandbox.workspace.waitFor(() => replies(other.cardTs)[1], { what: "the other's next post" });
    expect(replies(place.cardTs).length).toBe(1);
  });

  it('keeps the chatter in its place when what it carried could not be kept', async () => {
    const place = await thread();
    const other = await thread();
    const { poster: p, clock } = pacedPoster();
    await spendTheToken(p, other, 'msg:o1');
    await p.enqueueText(place, 'msg:1', text('Built and tested.'));
    const through = p.mark();
    await p.enqueueText(place, 'msg:2', text('Said after asking.'));
    const failed = new Error('the store is down');
    await expect(
      p.postAfterChatter(place, 'input:in_1', question, through, () => Promise.reject(failed)),
    ).rejects.toBe(failed);
    await nextSecond(clock);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[0], { what: 'the chatter' });
    expect(replies(place.cardTs).map((m) => m.text)).toEqual(['Built and tested.\n\nSaid after asking.']);
  });

  it('with nothing waiting, posts the question alone', async () => {
    const place = await thread();
    const { poster: p } = pacedPoster();
    let told = false;
    await p.postAfterChatter(place, 'input:in_1', question, p.mark(), async () => {
      told = true;
    });
    expect(replies(place.cardTs).map((m) => m.text)).toEqual(['The agent asks: Deploy?']);
    expect(told).toBe(false);
  });
});
