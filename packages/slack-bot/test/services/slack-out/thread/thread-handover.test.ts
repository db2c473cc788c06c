import { ManualClock } from '@agent-sessions/core';
import { describe, expect, it } from 'vitest';
import { useSandboxWithClient } from '../../../../../../test/support/world.js';
import { OutboundQueue } from '../../../../src/services/slack-out/outbound/index.js';
import { PostOwner, type PostOwnerDeps } from '../../../../src/services/slack-out/thread/post-owner.js';
import { ThreadPoster } from '../../../../src/services/slack-out/thread/thread-poster.js';
import { FakePosts, gate, HeldPosts, logger, metrics as newMetrics } from '../../../fakes.js';
import { cardThreads, postKeys, text } from './card-threads.js';

// How far a wait for a session's chatter reaches (a prompt's: up to the message that asked), and recovery
// when a session's lease comes back to this process. The real sandbox over HTTP, the queue on a hand-moved
// clock: one post a second, no burst.
const CHANNEL = 'C0AGENTS';
const world = useSandboxWithClient({ rateLimits: false });

const { thread, replies } = cardThreads(world, CHANNEL, 'h');

/** Over half a batch's text: each such message is a post of its own. */
const long = (n: number) => text(`Long message ${n}. ${'x'.repeat(2_000)}`);

function pacedPoster(posts = new FakePosts(), owner: PostOwnerDeps = {}, appends = true) {
  const clock = new ManualClock(Date.now());
  const m = newMetrics();
  const outbound = new OutboundQueue(logger, m, { postPerSecond: 1, postBurst: 1, clock });
  const poster = new ThreadPoster({
    slack: world.slack,
    posts,
    logger,
    metrics: m,
    outbound,
    owner: new PostOwner(owner),
    options: { retryBaseMs: 5, clock, appends },
  });
  return { poster, posts, clock };
}

describe('a wait for a session’s chatter', () => {
  it('up to a mark: settles once the chatter queued by then is out, not what was queued after', async () => {
    const place = await thread();
    const other = await thread();
    const { poster: p, clock } = pacedPoster();
    // The channel's one token goes to another session: the session's chatter waits behind it.
    // Answered before the clock moves: a post counts against the channel's budget as of its answer.
    await new Promise<void>((posted) => void p.enqueueText(other, 'msg:o', text('Other session.'), posted));
    expect(replies(other.cardTs)).toHaveLength(1);
    await p.enqueueText(place, 'msg:1', long(1));
    const first = p.mark();
    await p.enqueueText(place, 'msg:2', long(2));
    const second = p.mark();
    await p.enqueueText(place, 'msg:3', long(3));
    const settled: string[] = [];
    void p.drained(place, 'urgent', first).then(() => settled.push('first'));
    void p.drained(place, 'urgent', second).then(() => settled.push('second'));
    await clock.advance(1_000);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[0], { what: 'the first message' });
    await expect.poll(() => settled).toEqual(['first']);
    // In order: the wait through the second message is not over before that message is out.
    expect(replies(place.cardTs).map((m) => m.text?.slice(0, 14))).toEqual(['Long message 1']);
    await clock.advance(1_000);
    await expect.poll(() => settled).toEqual(['first', 'second']);
    expect(replies(place.cardTs).map((m) => m.text?.slice(0, 14))).toEqual([
      'Long message 1',
      'Long message 2',
    ]);
    // Without a mark: everything, the third too.
    let all = false;
    void p.drained(place, 'urgent').then(() => {
      all = true;
    });
    await clock.advance(1_000);
    await expect.poll(() => all).toBe(true);
    expect(replies(place.cardTs)).toHaveLength(3);
  });
});

describe('a session whose lease comes back', () => {
  it('is recovered again: a poll still in flight after the lease moved does not mark it recovered', async () => {
    const place = await thread();
    let owned = true;
    const { poster: p, posts } = pacedPoster(undefined, { follows: () => owned });
    await p.recover(place);
    // The lease moves to another replica; a poll of this one still in flight handles an event.
    owned = false;
    p.withdraw(place.sessionId);
    await p.recover(place);
    // The other replica records two messages and dies before posting them; the lease comes back here.
    await posts.begin(place.sessionId, 'msg:1', JSON.stringify({ text: 'Recorded by the other, 1.' }));
    await posts.begin(place.sessionId, 'msg:2', JSON.stringify({ text: 'Recorded by the other, 2.' }));
    owned = true;
    await p.recover(place);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[0], { what: 'the recovered messages' });
    expect(replies(place.cardTs).map((m) => m.text)).toEqual([
      'Recorded by the other, 1.\n\nRecorded by the other, 2.',
    ]);
  });

  it('a recovery that finds the lease gone queues nothing here', async () => {
    const place = await thread();
    let owned = false;
    const { poster: p, posts, clock } = pacedPoster(undefined, { follows: () => owned });
    await posts.begin(place.sessionId, 'msg:1', JSON.stringify({ text: 'Left by a crash.' }));
    await p.recover(place);
    expect(p.waits(place, 'msg:1')).toBe(false);
    await clock.advance(5_000);
    owned = true;
    await p.recover(place);
    expect(p.waits(place, 'msg:1')).toBe(true);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[0], { what: 'the recovered message' });
    expect(replies(place.cardTs).map((m) => m.text)).toEqual(['Left by a crash.']);
  });
  it('a recovered key another replica posts while it waits for its turn is not posted again', async () => {
    // Two replicas on one store: the owner recorded the chatter and queued it; the other recovers the
    // session's unsent keys (a finished session's at its start, or a lease moved back and forth) before
    // the owner's post is out, and its own turn comes after.
    const place = await thread();
    const other = await thread();
    const owner = pacedPoster();
    const recovering = pacedPoster(owner.posts);
    // Each replica's channel token goes to another session first: the session's chatter waits a turn.
    await owner.poster.enqueueText(other, 'msg:o1', text('Other session, 1.'));
    await recovering.poster.enqueueText(other, 'msg:o2', text('Other session, 2.'));
    await world.sandbox.workspace.waitFor(() => replies(other.cardTs)[1], {
      what: "the other session's posts",
    });
    await owner.poster.enqueueText(place, 'msg:1', text('Note 19.'));
    await recovering.poster.recover(place);
    expect(recovering.poster.waits(place, 'msg:1')).toBe(true);
    // The owner's turn comes first: its post is out and recorded.
    await owner.clock.advance(1_000);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[0], { what: "the owner's post" });
    await expect.poll(() => owner.posts.ts(place.sessionId, 'msg:1')).toBeTruthy();
    await recovering.clock.advance(1_000);
    await expect.poll(() => recovering.poster.waiting()).toBe(0);
    expect(replies(place.cardTs).map((m) => m.text)).toEqual(['Note 19.']);
  });
});

describe('a look-up that reads the records while chatter is being recorded', () => {
  it('the key it read, queued by enqueueText while it read the thread: posted once', async () => {
    // A look-up begun while the session talks on (Slack refused its stream: the stream poster hands what
    // waited to the thread by recoverAgain) reads a key enqueueText has recorded and not queued yet; each
    // then queues it, and its post carried it twice. Both ask whether it is queued right before they push.
    const place = await thread();
    const other = await thread();
    const posts = new HeldPosts();
    const { poster: p, clock } = pacedPoster(posts);
    // The channel's one token goes to another session: the session's chatter waits for the next second.
    await new Promise<void>((posted) => void p.enqueueText(other, 'msg:o', text('Other session.'), posted));
    await p.recover(place);
    const recordAnswered = gate();
    posts.afterBegin.set('msg:1', recordAnswered.promise);
    const enqueued = p.enqueueText(place, 'msg:1', text('Said once.'));
    await expect.poll(() => posts.recorded(place.sessionId, 'msg:1')).toBe(true);
    const read = posts.nextUnsentAnswer();
    const lookUp = p.recoverAgain(place);
    await read;
    await new Promise((resolve) => setImmediate(resolve)); // the look-up took what it read as unqueued
    recordAnswered.open();
    await enqueued;
    await lookUp;
    await clock.advance(1_000);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[0], { what: 'the post' });
    await expect.poll(() => p.waiting()).toBe(0);
    expect(postKeys(replies(place.cardTs))).toEqual(['msg:1']);
    expect(replies(place.cardTs).map((m) => m.text)).toEqual(['Said once.']);
  });
});

describe('a batch', () => {
  it('is made when the channel can post it: what came while it waited joins it', async () => {
    const place = await thread();
    // Posts only (while the channel is behind, the two would otherwise go into the first post by edits).
    const { poster: p, clock } = pacedPoster(undefined, undefined, false);
    // Answered before the clock moves: the post's token is in flight until its answer, and the channel's
    // budget refills only once it has landed.
    await new Promise<void>((posted) => void p.enqueueText(place, 'msg:1', text('First, at once.'), posted));
    expect(replies(place.cardTs)).toHaveLength(1);
    // No token until the next second: these wait, and the one post then carries both.
    await p.enqueueText(place, 'msg:2', text('Second, waiting.'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await p.enqueueText(place, 'msg:3', text('Third, came while the second waited.'));
    await clock.advance(1_000);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[1], { what: 'the batch' });
    expect(replies(place.cardTs)[1]?.text).toBe('Second, waiting.\n\nThird, came while the second waited.');
  });
});
