import { ManualClock } from '@agent-sessions/core';
import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundQueue } from '../../../src/services/slack-out/outbound.js';
import { logger, metrics as newMetrics } from '../../fakes.js';

const CHANNEL = 'C0AGENTS';
let sandbox: RunningSandbox;
let slack: webApi.WebClient;

beforeAll(async () => {
  // The sandbox's own limits run on real time; here the queue's clock is moved by hand and the one 429 is
  // injected (failNext), so the limits are off and every 429 seen is the injected one.
  sandbox = await startSandbox({ rateLimits: false });
  slack = new webApi.WebClient(sandbox.botToken, {
    slackApiUrl: sandbox.apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
  });
});

afterAll(async () => {
  await sandbox?.close();
});

const postsTo = (channel: string, afterSeq: number) =>
  sandbox.workspace.apiCalls.filter(
    (c) => c.method === 'chat.postMessage' && c.channel === channel && c.seq > afterSeq,
  );
const lastSeq = () => sandbox.workspace.apiCalls.at(-1)?.seq ?? 0;

/** Lets every promise that can settle now settle (the queue's loop runs between awaits). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the outbound queue', () => {
  it('in one channel: prompts and answers first, then card edits, then chatter', async () => {
    const clock = new ManualClock(0);
    const queue = new OutboundQueue(logger, newMetrics(), { postPerSecond: 1, postBurst: 1, clock });
    const order: string[] = [];
    const call = (name: string, priority: 'urgent' | 'edit' | 'chatter', method: 'post' | 'update') =>
      queue.run({
        channel: CHANNEL,
        priority,
        method,
        run: async () => {
          order.push(name);
        },
      });
    const all = [
      call('chatter 1', 'chatter', 'post'),
      call('chatter 2', 'chatter', 'post'),
      call('card edit', 'edit', 'update'),
      call('prompt', 'urgent', 'post'),
    ];
    await settle();
    // The first chatter went at once (the burst); what waited goes by priority, not by arrival.
    expect(order).toEqual(['chatter 1', 'card edit']);
    expect(queue.waiting(CHANNEL)).toBe(2);
    await clock.advance(1_000);
    await settle();
    expect(order).toEqual(['chatter 1', 'card edit', 'prompt']);
    await clock.advance(1_000);
    await Promise.all(all);
    expect(order).toEqual(['chatter 1', 'card edit', 'prompt', 'chatter 2']);
  });

  it("a 429 pauses the channel's whole queue for its Retry-After, once; the refused call goes again first", async () => {
    const clock = new ManualClock(0);
    const metrics = newMetrics();
    const queue = new OutboundQueue(logger, metrics, { postPerSecond: 100, postBurst: 10, clock });
    const channel = CHANNEL;
    const from = lastSeq();
    sandbox.failNext({ method: 'chat.postMessage', error: 'ratelimited', retryAfter: 2, channel });
    const post = (text: string, priority: 'urgent' | 'chatter') =>
      queue.run({
        channel,
        priority,
        method: 'post',
        run: () => slack.chat.postMessage({ channel, text }),
      });
    const first = post('first', 'urgent');
    const second = post('second', 'chatter');
    await sandbox.workspace.waitFor(() => postsTo(channel, from)[0], { what: 'the 429' });
    // The queue is waiting out the Retry-After on its clock.
    await expect.poll(() => clock.pendingSleeps).toBe(1);
    await clock.advance(1_999);
    await settle();
    // Nothing else went out while the channel waited: one call, answered 429.
    expect(postsTo(channel, from).map((c) => c.status)).toEqual([429]);
    await clock.advance(1);
    await Promise.all([first, second]);
    expect(postsTo(channel, from).map((c) => c.status)).toEqual([429, 200, 200]);
    const texts = sandbox.workspace.messages.get(channel)?.map((m) => m.text);
    expect(texts?.filter((t) => t === 'first' || t === 'second')).toEqual(['first', 'second']);
    expect((await metrics.rateLimited.get()).values.map((v) => v.value)).toEqual([1]);
  });

  it('pacing off: every call at once, nothing queued (the naive strategy)', async () => {
    const queue = new OutboundQueue(logger, newMetrics(), {
      pacing: 'off',
      postPerSecond: 0.001,
      postBurst: 1,
    });
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        queue.run({ channel: CHANNEL, priority: 'chatter', method: 'post', run: async () => n }),
      ),
    );
    expect(results).toEqual([1, 2, 3]);
    expect(queue.waiting(CHANNEL)).toBe(0);
  });

  it('reports its depth for /metrics without naming channels (the endpoint is unauthenticated)', async () => {
    const clock = new ManualClock(0);
    const metrics = newMetrics();
    const queue = new OutboundQueue(logger, metrics, { postPerSecond: 1, postBurst: 1, clock });
    const run = async () => {};
    const calls = [1, 2, 3].map(() =>
      queue.run({ channel: 'C0DEPTH', priority: 'chatter', method: 'post', run }),
    );
    await settle();
    const waiting = await metrics.text();
    expect(waiting).toMatch(/^slack_outbound_queue_depth 2$/m);
    expect(waiting).toMatch(/^slack_outbound_queue_channels 1$/m);
    expect(waiting).toMatch(/^slack_outbound_queue_max_depth 2$/m);
    expect(waiting).not.toMatch(/C0DEPTH/);
    await clock.advance(2_000);
    await Promise.all(calls);
    expect(await metrics.text()).toMatch(/^slack_outbound_queue_depth 0$/m);
  });
});
