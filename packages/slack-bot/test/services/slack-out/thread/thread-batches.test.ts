import { ManualClock } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { OutboundQueue } from '../../../../src/services/slack-out/outbound/index.js';
import { type BatchItem, ThreadBatches } from '../../../../src/services/slack-out/thread/thread-batches.js';
import { batchMessage, takeBatch } from '../../../../src/services/slack-out/thread/thread-layout.js';
import type { Place, ThreadMessage } from '../../../../src/services/slack-out/thread/thread-place.js';
import { logger, metrics } from '../../../fakes.js';

// How a session's chatter coalesces while its channel is held back by Slack's one post a second: what the
// queue's clock allows (a hand-moved clock), and what one post of Block Kit holds.

/** An agent message as the thread shows it: a `markdown` block, its text a glance cut at 3,000. */
const note = (words: string): ThreadMessage => ({
  text: words.length > 3_000 ? `${words.slice(0, 2_999)}…` : words,
  blocks: [{ type: 'markdown', text: words } as KnownBlock],
});
const longNote = (n: number) =>
  note(`Note ${n}: ${'the agent explains its reasoning at length. '.repeat(60)}`);
const short = (n: number) => note(`Observation ${n}.`);

const place: Place = { sessionId: 'sess_busy', channelId: 'C0BUSY', cardTs: '1.000' };

/** A channel at Slack's pace (one post a second, no burst) and the posts its batches made, in order. */
function channel() {
  const clock = new ManualClock(1_000_000);
  const outbound = new OutboundQueue(logger, metrics(), { postPerSecond: 1, postBurst: 1, clock });
  const posts: Array<{ keys: string[]; message: ThreadMessage }> = [];
  const batches = new ThreadBatches({
    outbound,
    metrics: metrics(),
    logger,
    begin: async () => undefined,
    posted: async () => undefined,
    deliver: async (_place, keys, message) => {
      posts.push({ keys, message });
      return `ts.${posts.length}`;
    },
    cannotPost: () => undefined,
  });
  const shown = new Map<string, string>();
  const push = (key: string, message: ThreadMessage) => {
    const item: BatchItem = {
      key,
      message,
      begun: false,
      resolve: (ts) => shown.set(key, ts),
      reject: () => {},
    };
    batches.push(place, item);
  };
  return { clock, batches, posts, shown, push };
}

/** Lets the queue's loop and the batch's turn run (no time passes on the manual clock). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('a session held back by the channel coalesces its waiting messages', () => {
  it('long notes and the short messages between them: one post, not one per 3,000 characters of text', async () => {
    const c = channel();
    c.push('msg:0', short(0));
    await settle();
    expect(c.posts).toHaveLength(1);
    // Held back: the channel's token is spent for the next second, while the agent says 20 things.
    for (let i = 1; i <= 20; i++) c.push(`msg:${i}`, i % 6 === 0 ? longNote(i) : short(i));
    await settle();
    expect(c.posts).toHaveLength(1);
    await c.clock.advance(1_000);
    await settle();
    expect(c.posts).toHaveLength(2);
    expect(c.posts[1]?.keys).toEqual(Array.from({ length: 20 }, (_, i) => `msg:${i + 1}`));
    for (let i = 1; i <= 20; i++) expect(c.shown.get(`msg:${i}`)).toBe('ts.2');
    // The post's text is the notification's glance, within Slack's: the words are all in the blocks.
    expect(c.posts[1]?.message.text.length).toBeLessThanOrEqual(3_000);
    expect(c.posts[1]?.message.blocks).toHaveLength(20);
    expect(c.batches.waiting()).toBe(0);
  });

  it("more than a post's 50 blocks: the next post takes the rest at the channel's next second", async () => {
    const c = channel();
    c.push('msg:0', short(0));
    await settle();
    for (let i = 1; i <= 60; i++) c.push(`msg:${i}`, short(i));
    await settle();
    await c.clock.advance(1_000);
    await settle();
    expect(c.posts.map((p) => p.keys.length)).toEqual([1, 50]);
    await c.clock.advance(1_000);
    await settle();
    expect(c.posts.map((p) => p.keys.length)).toEqual([1, 50, 10]);
    // In order, each once.
    expect(c.posts.flatMap((p) => p.keys)).toEqual(Array.from({ length: 61 }, (_, i) => `msg:${i}`));
  });
});

describe("a busy channel's pace", () => {
  it("while one post waits for Slack's answer, the next session's turn is taken: not a second plus the round trip", async () => {
    const clock = new ManualClock(1_000_000);
    // Slack's figures: a post a second, bursts of five (four kept for what a person waits for).
    const outbound = new OutboundQueue(logger, metrics(), { postPerSecond: 1, postBurst: 5, clock });
    const delivered: string[] = [];
    const answers = new Map<string, () => void>();
    const batches = new ThreadBatches({
      outbound,
      metrics: metrics(),
      logger,
      begin: async () => undefined,
      posted: async () => undefined,
      deliver: (at, keys) =>
        new Promise<string>((resolve) => {
          delivered.push(at.sessionId);
          answers.set(at.sessionId, () => resolve(`ts.${keys[0]}`));
        }),
      cannotPost: () => undefined,
    });
    const push = (sessionId: string) =>
      batches.push(
        { ...place, sessionId },
        { key: `msg:${sessionId}`, message: short(1), begun: false, resolve: () => {}, reject: () => {} },
      );
    push('sess_a');
    await settle();
    expect(delivered).toEqual(['sess_a']);
    // Slack has not answered a's post yet: b's turn is taken now, c's not before a's answer and a second.
    push('sess_b');
    push('sess_c');
    await settle();
    await clock.advance(1_000);
    await settle();
    expect(delivered).toEqual(['sess_a', 'sess_b']);
    answers.get('sess_a')?.();
    await settle();
    await clock.advance(1_000);
    await settle();
    expect(delivered).toEqual(['sess_a', 'sess_b', 'sess_c']);
  });
});

describe('a channel whose burst is one post', () => {
  it('while its one post waits for an answer, no other turn is taken before the token refills', async () => {
    const clock = new ManualClock(1_000_000);
    const outbound = new OutboundQueue(logger, metrics(), { postPerSecond: 1, postBurst: 1, clock });
    const delivered: string[] = [];
    const batches = new ThreadBatches({
      outbound,
      metrics: metrics(),
      logger,
      begin: async () => undefined,
      posted: async () => undefined,
      // Slack never answers here: the first post's token stays in flight.
      deliver: (at) =>
        new Promise<string>(() => {
          delivered.push(at.sessionId);
        }),
      cannotPost: () => undefined,
    });
    for (const sessionId of ['sess_a', 'sess_b'])
      batches.push(
        { ...place, sessionId },
        { key: `msg:${sessionId}`, message: short(1), begun: false, resolve: () => {}, reject: () => {} },
      );
    await settle();
    expect(delivered).toEqual(['sess_a']);
    await clock.advance(999);
    await settle();
    expect(delivered).toEqual(['sess_a']);
  });
});

describe('what one post holds (takeBatch)', () => {
  it("blocks up to Slack's 50, and block text up to what Slack takes in one message", () => {
    const shorts = Array.from({ length: 60 }, (_, i) => ({ message: short(i) }));
    expect(takeBatch(shorts)).toHaveLength(50);
    // Each long note is ~2,700 characters of blocks: four fit in 11,000, the fifth waits.
    const longs = Array.from({ length: 5 }, (_, i) => ({ message: longNote(i) }));
    expect(takeBatch(longs)).toHaveLength(4);
    expect(longs).toHaveLength(1);
  });

  it('a message shown as its text (no blocks) never shares a post with blocks, which would hide it', () => {
    const items = [{ message: short(1) }, { message: { text: 'Only text.' } }, { message: short(2) }];
    expect(takeBatch(items).map((i) => i.message.text)).toEqual(['Observation 1.']);
    expect(takeBatch(items).map((i) => i.message.text)).toEqual(['Only text.']);
    expect(takeBatch(items).map((i) => i.message.text)).toEqual(['Observation 2.']);
  });

  it("a batch's text: within 3,000 characters, the last message's whole (a carried question's)", () => {
    const question: ThreadMessage = {
      text: 'The agent asks: Deploy v2.3.1 to production?',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*The agent asks:* Deploy v2.3.1?' } }],
    };
    const { text, blocks } = batchMessage([longNote(1), longNote(2), question]);
    expect(text.length).toBeLessThanOrEqual(3_000);
    expect(text.endsWith(question.text)).toBe(true);
    expect(text.startsWith('Note 1:')).toBe(true);
    expect(blocks).toHaveLength(3);
  });
});
