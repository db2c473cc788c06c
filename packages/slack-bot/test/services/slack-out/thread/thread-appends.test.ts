import { ManualClock } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { useSandboxWithClient } from '../../../../../../test/support/world.js';
import { OutboundQueue } from '../../../../src/services/slack-out/outbound/index.js';
import { PostOwner } from '../../../../src/services/slack-out/thread/post-owner.js';
import { ThreadPoster } from '../../../../src/services/slack-out/thread/thread-poster.js';
import { FakePosts, logger, metrics as newMetrics } from '../../../fakes.js';
import { cardThreads, text } from './card-threads.js';

// While a channel's posts are held back by Slack's one post a second, a session's waiting chatter goes into
// its latest post by chat.update (Tier 3, the workspace's), so its thread catches up without a post of its
// own. The real sandbox over HTTP; the queue on a hand-moved clock that never moves here unless a test
// says so: one post a second, no burst, so after a post the channel has no token for the rest of it.
const CHANNEL = 'C0AGENTS';
const world = useSandboxWithClient({ rateLimits: false });

const { thread, replies } = cardThreads(world, CHANNEL, 'app');

/** What a reply shows: the words of its blocks, in order. */
function shown(m: { blocks?: unknown[] } | undefined): string {
  const words: string[] = [];
  const walk = (node: unknown, key?: string): void => {
    if (typeof node === 'string') {
      if (key === 'text') words.push(node);
    } else if (node && typeof node === 'object')
      for (const [k, v] of Object.entries(node)) walk(v, Array.isArray(node) ? key : k);
  };
  walk(m?.blocks ?? []);
  return words.join(' | ');
}

function pacedPoster(posts = new FakePosts()) {
  const clock = new ManualClock(Date.now());
  const outbound = new OutboundQueue(logger, newMetrics(), { postPerSecond: 1, postBurst: 1, clock });
  const poster = new ThreadPoster({
    slack: world.slack,
    posts,
    logger,
    metrics: newMetrics(),
    outbound,
    owner: new PostOwner(),
    options: { retryBaseMs: 5, clock },
  });
  return { poster, posts, clock };
}

/** The first message of a session, posted (the channel's token spent for the next second). */
async function firstPost(p: ThreadPoster, place: Awaited<ReturnType<typeof thread>>, words: string) {
  await new Promise<void>((posted) => void p.enqueueText(place, 'msg:1', text(words), posted));
}

describe('chatter while its channel is held back', () => {
  it("goes into the session's latest post by an edit: in order, each key once, recorded with that post", async () => {
    const place = await thread();
    const { poster: p, posts } = pacedPoster();
    await firstPost(p, place, 'First, at once.');
    const [first] = replies(place.cardTs);
    // No post token for the next second (the clock stays): these can only show by an edit.
    const added = ['Second, held back.', 'Third, held back too.'].map(
      (words, i) => new Promise<void>((out) => void p.enqueueText(place, `msg:${i + 2}`, text(words), out)),
    );
    await Promise.all(added);
    const thread_ = replies(place.cardTs);
    expect(thread_).toHaveLength(1);
    expect(shown(thread_[0])).toBe('First, at once. | Second, held back. | Third, held back too.');
    for (const key of ['msg:1', 'msg:2', 'msg:3'])
      expect(await posts.ts(place.sessionId, key)).toBe(first?.ts);
    // The metadata names every key the post shows: a look-up after a crash finds each one there.
    const metadata = thread_[0]?.metadata as { event_payload?: { keys?: string } } | undefined;
    expect(JSON.parse(metadata?.event_payload?.keys ?? '[]')).toEqual(['msg:1', 'msg:2', 'msg:3']);
    expect(p.waiting()).toBe(0);
  });

  it('never goes into a post above something else of the thread: after a question, in a post below it', async () => {
    const place = await thread();
    const { poster: p, clock } = pacedPoster();
    await firstPost(p, place, 'Before the question.');
    const question = {
      text: 'The agent asks: Deploy?',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Deploy?' } }] as KnownBlock[],
    };
    const asked = p.post(place, 'input:in_1', question);
    await expect.poll(() => clock.pendingSleeps).toBeGreaterThan(0);
    await clock.advance(1_000);
    await asked;
    const after = new Promise<void>(
      (out) => void p.enqueueText(place, 'msg:2', text('After the question.'), out),
    );
    for (let i = 0; i < 5 && replies(place.cardTs).length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await clock.advance(1_000);
    }
    await after;
    expect(replies(place.cardTs).map(shown)).toEqual([
      'Before the question.',
      'Deploy?',
      'After the question.',
    ]);
  });

  it('an edit Slack refuses goes as a post of its own: each message shown once, none lost', async () => {
    const place = await thread();
    const { poster: p, posts, clock } = pacedPoster();
    await firstPost(p, place, 'Posted at once.');
    world.sandbox.failNext({ method: 'chat.update', error: 'internal_error', channel: CHANNEL });
    // Chatter whose key is recorded only when its batch goes (postText), unlike enqueueText's.
    const held = p.postText(place, 'msg:2', text('Held back.'));
    for (let i = 0; i < 10 && replies(place.cardTs).length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await clock.advance(1_000);
    }
    await held;
    const shownNow = replies(place.cardTs).map(shown);
    expect(shownNow).toEqual(['Posted at once.', 'Held back.']);
    expect(await posts.ts(place.sessionId, 'msg:2')).toBe(replies(place.cardTs)[1]?.ts);
    expect(p.waiting()).toBe(0);
  });

  it('an edit whose connection is lost is sent again (the same edit twice shows the same post), not posted', async () => {
    const place = await thread();
    const { poster: p } = pacedPoster();
    await firstPost(p, place, 'Posted at once.');
    world.sandbox.failNext({ method: 'chat.update', drop: true, channel: CHANNEL });
    await new Promise<void>((out) => void p.enqueueText(place, 'msg:2', text('Held back.'), out));
    expect(replies(place.cardTs).map(shown)).toEqual(['Posted at once. | Held back.']);
  });
});
