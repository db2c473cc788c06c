import { ManualClock, TokenBucket } from '@agent-sessions/core';
import { describe, expect, it } from 'vitest';
import { useSandboxWithClient } from '../../../../../../test/support/world.js';
import { BotMetrics } from '../../../../src/services/ops/metrics.js';
import { OutboundQueue } from '../../../../src/services/slack-out/outbound/outbound.js';
import type {
  OutboundOptions,
  OutboundPriority,
  SharedBudgets,
} from '../../../../src/services/slack-out/outbound/outbound-calls.js';
import { SLACK_METHODS } from '../../../../src/services/slack-out/outbound/slack-limits.js';
import { ThreadBatches } from '../../../../src/services/slack-out/thread/thread-batches.js';
import { logger, metrics as newMetrics } from '../../../fakes.js';

const CHANNEL = 'C0AGENTS';
// The sandbox's own limits run on real time; here the queue's clock is moved by hand and the one 429 is
// injected (failNext), so the limits are off and every 429 seen is the injected one.
const world = useSandboxWithClient({ rateLimits: false });

const postsTo = (channel: string, afterSeq: number) =>
  world.sandbox.workspace.apiCalls.filter(
    (c) => c.method === 'chat.postMessage' && c.channel === channel && c.seq > afterSeq,
  );
const lastSeq = () => world.sandbox.workspace.apiCalls.at(-1)?.seq ?? 0;

/** Lets every promise that can settle now settle (the queue's loop runs between awaits). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A queue on a clock the test moves by hand. */
function queueAt(options: OutboundOptions = {}, metrics = newMetrics()) {
  const clock = new ManualClock(0);
  return { clock, queue: new OutboundQueue(logger, metrics, { clock, ...options }) };
}

/** What each kind of call spends: a post and a turn for one the channel's posts, an edit the workspace's edits. */
const KINDS = {
  post: { method: 'chat.postMessage' },
  turn: { method: 'chat.postMessage', turn: true },
  edit: { method: 'chat.update' },
} as const;

interface CallOptions {
  priority?: OutboundPriority;
  kind?: keyof typeof KINDS;
  tag?: string;
  /** What the call does after it is recorded (its answer may be slow). */
  answering?: () => Promise<void>;
}

/** Calls into one channel of the queue, each recording its name in `order` as it runs. */
function recorder(queue: OutboundQueue) {
  const order: string[] = [];
  const call = (name: string, { priority = 'urgent', kind = 'post', tag, answering }: CallOptions = {}) =>
    queue.run({
      channel: CHANNEL,
      priority,
      ...KINDS[kind],
      ...(tag ? { tag } : {}),
      run: async () => {
        order.push(name);
        await answering?.();
      },
    });
  return { order, call };
}

/** A promise and what settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('the outbound queue', () => {
  it('in one channel: prompts and answers first, then card edits, then chatter', async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 1 });
    const { order, call } = recorder(queue);
    const all = [
      call('chatter 1', { priority: 'chatter' }),
      call('chatter 2', { priority: 'chatter' }),
      call('card edit', { priority: 'edit', kind: 'edit' }),
      call('prompt'),
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

  it('chatter and reports spend only the top token of the burst (two of three left): a question and the chatter before it go at once in a busy channel', async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 3 });
    const { order, call } = recorder(queue);
    const post = (name: string, priority: OutboundPriority) => call(name, { priority });
    const chatter = [1, 2, 3, 4].map((i) => post(`chatter ${i}`, 'chatter'));
    const report = post('report', 'outcome');
    await settle();
    // Of a full burst of three, chatter takes one; the two left are for what a person waits for.
    expect(order).toEqual(['chatter 1']);
    await clock.advance(1_000);
    await settle();
    // A second on, the budget is full again: the report goes, at the channel's pace, not out of the burst.
    expect(order).toEqual(['chatter 1', 'report']);
    const question = [post('its chatter', 'urgent'), post('question', 'urgent')];
    await settle();
    expect(order).toEqual(['chatter 1', 'report', 'its chatter', 'question']);
    await Promise.all(question);
    for (let i = 0; i < 6; i++) await clock.advance(1_000);
    await Promise.all([...chatter, report]);
    expect(order.slice(4)).toEqual(['chatter 2', 'chatter 3', 'chatter 4']);
  });

  it("by default chatter spends only the top token of the channel's burst of five: two questions asked together and their chatter go at once", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1 });
    const { order, call } = recorder(queue);
    const post = (name: string, priority: OutboundPriority) => call(name, { priority });
    const chatter = [1, 2].map((i) => post(`chatter ${i}`, 'chatter'));
    await settle();
    expect(order).toEqual(['chatter 1']);
    const questions = ['a chatter', 'a question', 'b chatter', 'b question'].map((name) =>
      post(name, 'urgent'),
    );
    await Promise.all(questions);
    await settle();
    expect(order).toEqual(['chatter 1', 'a chatter', 'a question', 'b chatter', 'b question']);
    // The burst is spent: chatter waits until it is full again, a token a second.
    for (let i = 0; i < 4; i++) {
      await clock.advance(1_000);
      await settle();
      expect(order).toHaveLength(5);
    }
    await clock.advance(1_000);
    await Promise.all(chatter);
    expect(order.at(-1)).toBe('chatter 2');
  });

  it("a question goes right after the chatter it waited for, ahead of another question's chatter queued meanwhile", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 1 });
    const { order: calls, call } = recorder(queue);
    const order = { posts: () => calls.filter((name) => !name.endsWith('turn')) };
    const aChatter = gate();
    /** As a thread's question goes: its chatter's turn, that batch's post, then the question's post. */
    const ask = async (tag: string, then?: () => Promise<void>) => {
      await call(`${tag} turn`, { tag, kind: 'turn' });
      await call(`${tag} chatter`, { tag, ...(then ? { answering: then } : {}) });
      await call(`${tag} question`, { tag });
    };
    const a = ask('a', () => aChatter.opened);
    await settle();
    expect(order.posts()).toEqual(['a chatter']);
    // Another session asks while a's chatter is being sent: its chatter's turn queues first.
    const b = ask('b');
    await settle();
    aChatter.open();
    await settle();
    for (let i = 0; i < 3; i++) {
      await clock.advance(1_000);
      await settle();
    }
    await Promise.all([a, b]);
    expect(order.posts()).toEqual(['a chatter', 'a question', 'b chatter', 'b question']);
  });

  it('questions whose chatter went at once: each goes in the order its chatter took its turn', async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 2 });
    const { order, call } = recorder(queue);
    // Both chatters' turns take the burst's two tokens, and their batches go.
    await Promise.all([
      call('a turn', { tag: 'a', kind: 'turn' }),
      call('b turn', { tag: 'b', kind: 'turn' }),
    ]);
    await Promise.all([call('a chatter', { tag: 'a' }), call('b chatter', { tag: 'b' })]);
    // Both questions wait for the next tokens; a's chatter went first, so a's question does.
    const questions = [call('a question', { tag: 'a' }), call('b question', { tag: 'b' })];
    await settle();
    for (let i = 0; i < 2; i++) {
      await clock.advance(1_000);
      await settle();
    }
    await Promise.all(questions);
    expect(order.filter((name) => name.endsWith('question'))).toEqual(['a question', 'b question']);
  });

  it("a batch posted a while after its turn took the token counts then: the channel's burst is one short after it", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 5 });
    const { order, call } = recorder(queue);
    await call('turn', { priority: 'chatter', kind: 'turn', tag: 's' });
    // The batch is made (its keys recorded) while the channel's budget fills up again.
    await clock.advance(2_000);
    await call('batch', { priority: 'chatter', tag: 's' });
    const urgent = [1, 2, 3, 4, 5].map((i) => call(`urgent ${i}`));
    await settle();
    expect(order).toEqual(['turn', 'batch', 'urgent 1', 'urgent 2', 'urgent 3', 'urgent 4']);
    await clock.advance(1_000);
    await Promise.all(urgent);
    expect(order.at(-1)).toBe('urgent 5');
  });

  it("a post answered a while after it was sent from a full burst: the channel's burst is one short after it", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 5 });
    const { order, call } = recorder(queue);
    const answer = gate();
    const slow = call('slow', { answering: () => answer.opened });
    await settle();
    // Slack may have counted it only as it answered: its bucket was full until then.
    await clock.advance(2_000);
    answer.open();
    await slow;
    const urgent = [1, 2, 3, 4, 5].map((i) => call(`urgent ${i}`));
    await settle();
    expect(order).toEqual(['slow', 'urgent 1', 'urgent 2', 'urgent 3', 'urgent 4']);
    await clock.advance(1_000);
    await Promise.all(urgent);
    expect(order.at(-1)).toBe('urgent 5');
  });

  it('turns in flight together, their batches posted together a while later: the queue lets through no post Slack would refuse', async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 5 });
    // Slack's own budget for the channel: it counts a post when the post arrives.
    const slack = new TokenBucket({ ratePerSecond: 1, burst: 5, clock });
    const { order, call } = recorder(queue);
    const sent = order;
    const refused: string[] = [];
    const post = (name: string, tag?: string) =>
      call(name, {
        ...(tag ? { tag } : {}),
        answering: async () => {
          if (!slack.tryTake()) refused.push(name);
        },
      });
    const tags = ['s1', 's2', 's3', 's4', 's5'];
    // Five sessions' turns take the whole burst at once.
    await Promise.all(tags.map((tag) => call(`turn ${tag}`, { kind: 'turn', tag })));
    // Their batches are made (their keys recorded) for 2 s: Slack's budget stays full all along.
    await clock.advance(2_000);
    const batches = tags.map((tag) => post(`batch ${tag}`, tag));
    const others = [1, 2, 3].map((i) => post(`urgent ${i}`));
    await Promise.all(batches);
    await settle();
    // Slack's burst is spent by the five batches: nothing else goes before it refills.
    expect(sent.filter((name) => name.startsWith('urgent'))).toEqual([]);
    for (let i = 1; i <= 3; i++) {
      await clock.advance(1_000);
      await settle();
      expect(sent.filter((name) => name.startsWith('urgent'))).toHaveLength(i);
    }
    await Promise.all(others);
    expect(refused).toEqual([]);
  });

  it("a turn whose batch posts nothing holds no token once it is over: the channel's chatter goes on", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 5 });
    const { order, call: record } = recorder(queue);
    const call = (name: string, kind: 'turn' | 'post', tag: string) =>
      record(name, { priority: 'chatter', kind, tag });
    await call('turn a', 'turn', 'a');
    // Its batch was posted already (a re-delivery): nothing to post, its turn is over.
    queue.turnOver(CHANNEL, 'a');
    const chatter = call('chatter b', 'post', 'b');
    await settle();
    expect(order).toEqual(['turn a']);
    await clock.advance(1_000);
    await settle();
    expect(order).toEqual(['turn a', 'chatter b']);
    await chatter;
    // The token a's turn took was not its next post's: that one waits its turn like any chatter.
    const next = call('chatter a', 'post', 'a');
    await settle();
    expect(order).toEqual(['turn a', 'chatter b']);
    await clock.advance(1_000);
    await next;
    expect(order).toEqual(['turn a', 'chatter b', 'chatter a']);
  });

  it("with replicas, each post's token is in flight in the shared budget from its take (or its turn's) to its answer", async () => {
    const inFlight = new Set<string>();
    const seen: string[] = [];
    const shared: SharedBudgets = {
      take: async (_key, _rate, _keep, flight) => {
        if (flight) inFlight.add(flight);
        return 0;
      },
      pause: async () => {},
      landed: async (_key, _rate, flight) => {
        inFlight.delete(flight);
      },
    };
    const queue = new OutboundQueue(logger, newMetrics(), { shared });
    const call = (name: string, kind: 'turn' | 'post', tag?: string) =>
      queue.run({
        channel: CHANNEL,
        priority: 'urgent',
        ...KINDS[kind],
        ...(tag ? { tag } : {}),
        run: async () => {
          seen.push(`${name}: ${inFlight.size} in flight`);
        },
      });
    await call('post', 'post');
    await call('turn', 'turn', 's');
    // The turn's token stays in flight while its batch is made, until the batch's post is answered.
    expect(inFlight.size).toBe(1);
    await call('batch', 'post', 's');
    expect(inFlight.size).toBe(0);
    expect(seen).toEqual(['post: 1 in flight', 'turn: 1 in flight', 'batch: 1 in flight']);
    // A turn that posts nothing: its token is no longer held once it is over.
    await call('turn 2', 'turn', 't');
    queue.turnOver(CHANNEL, 't');
    await settle();
    expect(inFlight.size).toBe(0);
  });

  it("a batch whose keys were all posted already (a re-delivery) posts nothing and holds no token: the channel's chatter goes on", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 5 });
    const batches = new ThreadBatches({
      outbound: queue,
      metrics: newMetrics(),
      logger,
      // Every key was posted already: the batch has nothing to post.
      begin: async () => '1.0',
      posted: async () => '1.0',
      deliver: async () => {
        throw new Error('nothing should be posted');
      },
      cannotPost: () => undefined,
    });
    const place = { sessionId: 'a', channelId: CHANNEL, cardTs: '1.0' };
    const told = new Promise<string>((resolve, reject) =>
      batches.push(place, { key: 'k', message: { text: 'again' }, begun: false, resolve, reject }),
    );
    expect(await told).toBe('1.0');
    await settle();
    const { order, call } = recorder(queue);
    const chatter = call('chatter b', { priority: 'chatter', tag: 'b' });
    await settle();
    // The turn took the top token a second ago: another session's chatter goes once it is back.
    await clock.advance(1_000);
    await settle();
    expect(order).toEqual(['chatter b']);
    await chatter;
  });

  it("a 429 pauses the channel's posts for its Retry-After, once; the refused call goes again first", async () => {
    const metrics = newMetrics();
    const { clock, queue } = queueAt({ postPerSecond: 100, postBurst: 10 }, metrics);
    const channel = CHANNEL;
    const from = lastSeq();
    world.sandbox.failNext({ method: 'chat.postMessage', error: 'ratelimited', retryAfter: 2, channel });
    const post = (text: string, priority: 'urgent' | 'chatter') =>
      queue.run({
        channel,
        priority,
        method: 'chat.postMessage',
        run: () => world.slack.chat.postMessage({ channel, text }),
      });
    // Both urgent: the refused call must go again ahead of a call queued behind it with the same priority.
    const first = post('first', 'urgent');
    const second = post('second', 'urgent');
    await world.sandbox.workspace.waitFor(() => postsTo(channel, from)[0], { what: 'the 429' });
    // The queue is waiting out the Retry-After on its clock.
    await expect.poll(() => clock.pendingSleeps).toBe(1);
    await clock.advance(1_999);
    await settle();
    // Nothing else went out while the channel waited: one call, answered 429.
    expect(postsTo(channel, from).map((c) => c.status)).toEqual([429]);
    await clock.advance(1);
    await Promise.all([first, second]);
    expect(postsTo(channel, from).map((c) => c.status)).toEqual([429, 200, 200]);
    const texts = world.sandbox.workspace.messages.get(channel)?.map((m) => m.text);
    expect(texts?.filter((t) => t === 'first' || t === 'second')).toEqual(['first', 'second']);
    // One 429 counted, by Slack's name for the method; every method's series exists from the start at zero.
    const rateLimited = (await metrics.rateLimited.get()).values;
    expect(rateLimited.filter((v) => v.value > 0)).toEqual([
      expect.objectContaining({ labels: { method: 'chat.postMessage' }, value: 1 }),
    ]);
    expect(rateLimited.map((v) => v.labels.method)).toEqual(expect.arrayContaining(SLACK_METHODS));
  });

  it('pacing off: every call at once, nothing queued (the naive strategy)', async () => {
    const queue = new OutboundQueue(logger, newMetrics(), {
      pacing: 'off',
      postPerSecond: 0.001,
      postBurst: 1,
    });
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        queue.run({ channel: CHANNEL, priority: 'chatter', method: 'chat.postMessage', run: async () => n }),
      ),
    );
    expect(results).toEqual([1, 2, 3]);
    expect(queue.waiting(CHANNEL)).toBe(0);
  });

  it('reports its depth for /metrics without naming channels (the endpoint is unauthenticated)', async () => {
    const clock = new ManualClock(0);
    // The queue counts its calls in the metrics, which read its depths once it exists, as the composition does.
    const metrics = new BotMetrics(() => undefined);
    const queue = new OutboundQueue(logger, metrics, { postPerSecond: 1, postBurst: 1, clock });
    metrics.readQueue(() => queue.depths());
    const run = async () => {};
    const calls = [1, 2, 3].map(() =>
      queue.run({ channel: 'C0DEPTH', priority: 'chatter', method: 'chat.postMessage', run }),
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

  it("a post that can go never waits behind an edit the workspace's edit budget holds back", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 5, updatePerMinute: 60, updateBurst: 1 });
    const { order, call } = recorder(queue);
    // The first edit's answer is slow: the channel's posts don't wait for it either.
    const firstEdit = gate();
    const all = [
      call('edit 1', { kind: 'edit', answering: () => firstEdit.opened }),
      call('edit 2', { kind: 'edit' }),
      call('prompt'),
      call('card edit', { priority: 'edit', kind: 'edit' }),
      call('chatter', { priority: 'chatter' }),
    ];
    await settle();
    // Edits spend the workspace's budget (one now); posts the channel's: the prompt at once, past edit 2.
    expect(order).toEqual(['edit 1', 'prompt']);
    await clock.advance(1_000);
    await settle();
    // The channel's burst is full again: the chatter goes, past the card edit the edit budget holds back.
    expect(order).toEqual(['edit 1', 'prompt', 'edit 2', 'chatter']);
    await clock.advance(1_000);
    await settle();
    expect(order.at(-1)).toBe('card edit');
    firstEdit.open();
    await Promise.all(all);
  });

  it('a 429 on an edit pauses the edits only: the channel goes on posting', async () => {
    const { clock, queue } = queueAt({ postPerSecond: 100, postBurst: 10 });
    const channel = CHANNEL;
    const card = String((await world.slack.chat.postMessage({ channel, text: 'card' })).ts);
    const from = lastSeq();
    world.sandbox.failNext({ method: 'chat.update', error: 'ratelimited', retryAfter: 3, channel });
    const edit = queue.run({
      channel,
      priority: 'urgent',
      method: 'chat.update',
      run: () => world.slack.chat.update({ channel, ts: card, text: 'card, edited' }),
    });
    const calls = () =>
      world.sandbox.workspace.apiCalls.filter((c) => c.seq > from).map((c) => `${c.method} ${c.status}`);
    await world.sandbox.workspace.waitFor(() => calls()[0], { what: 'the 429' });
    await queue.run({
      channel,
      priority: 'chatter',
      method: 'chat.postMessage',
      run: () => world.slack.chat.postMessage({ channel, text: 'chatter while edits wait' }),
    });
    expect(calls()).toEqual(['chat.update 429', 'chat.postMessage 200']);
    await clock.advance(3_000);
    await edit;
    expect(calls()).toEqual(['chat.update 429', 'chat.postMessage 200', 'chat.update 200']);
  });

  it("promotes a session's waiting calls ahead of other sessions' chatter, in their order", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 1 });
    const { order, call } = recorder(queue);
    const post = (name: string, tag: string) => call(name, { priority: 'chatter', tag });
    const all = [post('a1', 'a'), post('b1', 'b'), post('a2', 'a'), post('b2', 'b')];
    await settle();
    expect(queue.promote(CHANNEL, 'b', 'outcome')).toBe(2);
    for (let i = 0; i < 3; i++) {
      await settle();
      await clock.advance(1_000);
    }
    await Promise.all(all);
    expect(order).toEqual(['a1', 'b1', 'b2', 'a2']);
  });

  it("finished sessions' last chatter goes ahead of the reports of sessions that just finished", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 1 });
    const { order, call } = recorder(queue);
    const post = (name: string, tag: string, priority: OutboundPriority) => call(name, { priority, tag });
    const all = [post('a1', 'a', 'chatter'), post('b1', 'b', 'chatter'), post('a2', 'a', 'chatter')];
    all.push(post('b2', 'b', 'chatter'));
    await settle();
    // b finished first, then a: each one's chatter, then the reports, in the order they finished.
    queue.promote(CHANNEL, 'b', 'outcome');
    queue.promote(CHANNEL, 'a', 'outcome');
    all.push(post('a report', 'a', 'outcome'), post('b report', 'b', 'outcome'));
    for (let i = 0; i < 5; i++) {
      await settle();
      await clock.advance(1_000);
    }
    await Promise.all(all);
    expect(order).toEqual(['a1', 'b1', 'b2', 'a2', 'b report', 'a report']);
  });

  it('sessions finishing together: their last chatter is out in one round, not one session after another', async () => {
    // Each session's report is queued once its chatter is out, as the publisher does. One session after
    // another (chatter, report, next session) the last to finish would wait for every other outcome.
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 1 });
    const { order, call } = recorder(queue);
    const post = (name: string, tag: string, priority: OutboundPriority) => call(name, { priority, tag });
    const first = post('x0', 'x', 'chatter');
    const chatter = ['a', 'b', 'c', 'd'].map((tag) => post(`${tag} last`, tag, 'chatter'));
    const unfinished = post('x1', 'x', 'chatter');
    await settle();
    const reports = ['d', 'c', 'b', 'a'].map((tag) => {
      queue.promote(CHANNEL, tag, 'outcome');
      return chatter['abcd'.indexOf(tag)]?.then(() => post(`${tag} report`, tag, 'outcome'));
    });
    for (let i = 0; i < 10; i++) {
      await settle();
      await clock.advance(1_000);
    }
    await Promise.all([first, ...chatter, unfinished, ...reports]);
    expect(order).toEqual([
      'x0',
      'd last',
      'c last',
      'b last',
      'a last',
      'd report',
      'c report',
      'b report',
      'a report',
      'x1',
    ]);
  });

  it('a report waits for no chatter of a session that finished more than 20 s after it', async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 1 });
    const { order, call } = recorder(queue);
    const post = (name: string, tag: string | undefined, priority: OutboundPriority) =>
      call(name, { priority, ...(tag ? { tag } : {}) });
    // The channel is busy with 30 s of prompts; a finishes at 0 s, b at 25 s, c at 29 s.
    const all = Array.from({ length: 30 }, (_, i) => post(`prompt ${i}`, undefined, 'urgent'));
    all.push(post('b last', 'b', 'chatter'), post('c last', 'c', 'chatter'));
    await settle();
    queue.promote(CHANNEL, 'a', 'outcome');
    all.push(post('a report', 'a', 'outcome'));
    for (let i = 0; i < 40; i++) {
      if (i === 25) queue.promote(CHANNEL, 'b', 'outcome');
      if (i === 29) queue.promote(CHANNEL, 'c', 'outcome');
      await settle();
      await clock.advance(1_000);
    }
    await Promise.all(all);
    expect(order.slice(30)).toEqual(['a report', 'b last', 'c last']);
  });
});

describe("chatter appended by an edit while the channel's posts are behind", () => {
  it("is chosen only while chatter would wait for the channel's posts, and the workspace's edits have room", async () => {
    const { clock, queue } = queueAt({ postPerSecond: 1, postBurst: 5, updatePerMinute: 60, updateBurst: 4 });
    const { call } = recorder(queue);
    // A channel never posted in: chatter posts.
    expect(queue.appendsNow(CHANNEL)).toBe(false);
    await call('card');
    // Chatter spends only the top token of the burst: one post short of it, chatter would wait.
    expect(queue.appendsNow(CHANNEL)).toBe(true);
    await clock.advance(1_000);
    expect(queue.appendsNow(CHANNEL)).toBe(false);
    // Edits spent down to half their burst (what chatter leaves to cards): chatter posts, behind or not.
    await Promise.all([call('card edit 1', { kind: 'edit' }), call('card edit 2', { kind: 'edit' })]);
    await call('prompt');
    expect(queue.appendsNow(CHANNEL)).toBe(false);
    await clock.advance(1_000);
    await call('prompt 2');
    expect(queue.appendsNow(CHANNEL)).toBe(true);
  });

  it("chatter's edits leave half the workspace's edit burst to cards: a card edit queued after them goes first", async () => {
    const { queue } = queueAt({ updatePerMinute: 60, updateBurst: 4 });
    const { order, call } = recorder(queue);
    const all = [
      call('chatter edit 1', { priority: 'chatter', kind: 'edit' }),
      call('chatter edit 2', { priority: 'chatter', kind: 'edit' }),
      call('chatter edit 3', { priority: 'chatter', kind: 'edit' }),
    ];
    await settle();
    expect(order).toEqual(['chatter edit 1', 'chatter edit 2']);
    all.push(call('card edit', { priority: 'edit', kind: 'edit' }));
    await settle();
    expect(order).toEqual(['chatter edit 1', 'chatter edit 2', 'card edit']);
  });

  it('pacing off: never (each message is a post, as the naive strategy makes them)', () => {
    const { queue } = queueAt({ pacing: 'off' });
    expect(queue.appendsNow(CHANNEL)).toBe(false);
  });
});

describe("Slack's limits as the queue spends them", () => {
  it("an upload spends Tier 4 for files, not the channel's one post a second: it goes while chatter waits", async () => {
    const { queue } = queueAt({ postPerSecond: 1, postBurst: 1 });
    const { order, call } = recorder(queue);
    await call('card');
    const waiting = call('chatter', { priority: 'chatter' });
    await queue.run({
      channel: CHANNEL,
      priority: 'outcome',
      method: 'files.uploadV2',
      run: async () => void order.push('file'),
    });
    expect(order).toEqual(['card', 'file']);
    expect(queue.waiting(CHANNEL, 'chatter')).toBe(1);
    void waiting;
  });
});
