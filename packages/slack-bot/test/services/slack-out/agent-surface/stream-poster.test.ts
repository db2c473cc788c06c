import { ManualClock } from '@agent-sessions/core';
import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { useSandboxWithClient } from '../../../../../../test/support/world.js';
import { streamStart } from '../../../../src/blocks/stream-plan.js';
import { StreamPoster } from '../../../../src/services/slack-out/agent-surface/stream-poster.js';
import type {
  SlackSurface,
  SurfaceChoice,
} from '../../../../src/services/slack-out/agent-surface/surface.js';
import { botIdentity, OutboundQueue } from '../../../../src/services/slack-out/outbound/index.js';
import { POST_EVENT_TYPE, PostOwner, ThreadPoster } from '../../../../src/services/slack-out/thread/index.js';
import type { StreamInFlight, StreamRecord, StreamRepository } from '../../../../src/store/index.js';
import { FakePosts, gate, HeldPosts, logger, metrics as newMetrics } from '../../../fakes.js';
import { postKeys } from '../thread/card-threads.js';

// The stream poster against the real sandbox (its chat.startStream / appendStream / stopStream as Slack's
// pages describe them) over real HTTP; the store in memory (its SQL: test/store/streams.test.ts).
const CHANNEL = 'C0AGENTS';
const world = useSandboxWithClient({ rateLimits: false });

/** StreamRepository in memory, sharing FakePosts' records as the SQL one shares posted_messages. */
class FakeStreams implements StreamRepository {
  readonly rows = new Map<string, StreamRecord>();
  constructor(private readonly posts: FakePosts) {}
  #all(sessionId: string) {
    return [...this.rows.values()].filter((r) => r.sessionId === sessionId).sort((a, b) => a.seq - b.seq);
  }
  async latest(sessionId: string) {
    const row = this.#all(sessionId).at(-1);
    return row ? structuredClone(row) : undefined;
  }
  async hadRound(sessionId: string, roundId: string) {
    return this.#all(sessionId).some((r) => r.roundId === roundId);
  }
  async begin(sessionId: string, seq: number, roundId: string | null, inFlight: StreamInFlight) {
    this.rows.set(`${sessionId}|${seq}`, {
      sessionId,
      seq,
      roundId,
      ts: null,
      state: 'starting',
      chars: 0,
      tasks: {},
      inFlight,
    });
  }
  #row(sessionId: string, seq: number): StreamRecord {
    const row = this.rows.get(`${sessionId}|${seq}`);
    if (!row) throw new Error(`no stream ${sessionId} ${seq}`);
    return row;
  }
  async intend(sessionId: string, seq: number, inFlight: StreamInFlight) {
    this.#row(sessionId, seq).inFlight = inFlight;
  }
  async commit(
    sessionId: string,
    seq: number,
    done: { ts: string; keys: string[]; chars: number; tasks: StreamRecord['tasks'] },
  ) {
    Object.assign(this.#row(sessionId, seq), {
      ts: done.ts,
      state: 'open',
      chars: done.chars,
      tasks: done.tasks,
      inFlight: null,
    });
    for (const key of done.keys) await this.posts.finish(sessionId, key, done.ts);
  }
  async clearInFlight(sessionId: string, seq: number) {
    this.#row(sessionId, seq).inFlight = null;
  }
  async forget(sessionId: string, seq: number) {
    this.rows.delete(`${sessionId}|${seq}`);
  }
  async stopped(sessionId: string, seq: number) {
    Object.assign(this.#row(sessionId, seq), { state: 'stopped', inFlight: null });
  }
  async keysOf(sessionId: string, ts: string) {
    return [...this.posts.posts]
      .filter(([id, p]) => id.startsWith(`${sessionId}|`) && p.ts === ts)
      .map(([id]) => id.split('|')[1] ?? '');
  }
  async unsettledSessions() {
    return [];
  }
}

class Surface implements SurfaceChoice {
  surface: SlackSurface = 'agent';
  readonly fellBack: Array<[string, string]> = [];
  current() {
    return this.surface;
  }
  fallBack(method: string, error: string) {
    this.fellBack.push([method, error]);
    this.surface = 'classic';
  }
}

let sessions = 0;
async function thread() {
  const sessionId = `sess_${++sessions}`;
  const card = await world.slack.chat.postMessage({ channel: CHANNEL, text: `card of ${sessionId}` });
  return { sessionId, channelId: CHANNEL, cardTs: String(card.ts), startedBy: 'U0ALICE' };
}

/** A bot process: its poster and streams over one store (a restart: a new process over the same store). */
function bot(
  store = { posts: new FakePosts() } as { posts: FakePosts; streams?: FakeStreams },
  surface = new Surface(),
  outboundOptions: ConstructorParameters<typeof OutboundQueue>[2] = {},
  extra: Pick<ConstructorParameters<typeof StreamPoster>[0], 'plan'> = {},
) {
  const metrics = newMetrics();
  const outbound = new OutboundQueue(logger, metrics, outboundOptions);
  const owner = new PostOwner();
  const poster = new ThreadPoster({
    slack: world.slack,
    posts: store.posts,
    logger,
    metrics,
    outbound,
    owner,
    options: { retryBaseMs: 5 },
  });
  const streams = store.streams ?? new FakeStreams(store.posts);
  const stream = new StreamPoster({
    slack: world.slack,
    posts: store.posts,
    streams,
    poster,
    outbound,
    owner,
    surface,
    self: botIdentity(world.slack),
    logger,
    metrics,
    showReasoning: false,
    ...extra,
  });
  return { stream, poster, store: { posts: store.posts, streams }, surface };
}

const replies = (cardTs: string): SandboxMessage[] => world.sandbox.workspace.replies(CHANNEL, cardTs);
const say = (text: string) => ({ role: 'assistant', content: text });

describe('the agent work streams, each message exactly once', () => {
  it('a chatty round: one streaming message, every message in it once, each key recorded with its ts', async () => {
    const place = await thread();
    const { stream, store } = bot();
    for (let i = 1; i <= 12; i++)
      await stream.enqueue(place, `msg:r1#${i}`, 'r1', say(`Progress note ${i}.`));
    await stream.close(place, 'closed');
    const posted = replies(place.cardTs);
    expect(posted).toHaveLength(1);
    const [message] = posted;
    for (let i = 1; i <= 12; i++) expect(message?.text.split(`Progress note ${i}.`).length).toBe(2);
    expect((message as { streaming_state?: string } | undefined)?.streaming_state).toBe('completed');
    for (let i = 1; i <= 12; i++)
      expect(await store.posts.ts(place.sessionId, `msg:r1#${i}`)).toBe(message?.ts);
    // Its metadata names every key: the classic crash look-up finds them as it finds any post's.
    expect((message?.metadata as { event_type?: string } | undefined)?.event_type).toBe(POST_EVENT_TYPE);
    expect(
      JSON.parse(
        String((message?.metadata as { event_payload: { keys?: string } } | undefined)?.event_payload.keys),
      ),
    ).toHaveLength(12);
  });

  it('tool calls are tasks in the stream, done with their results', async () => {
    const place = await thread();
    const { stream } = bot();
    await stream.enqueue(place, 'msg:r1#0', 'r1', {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
      ],
    });
    await stream.enqueue(place, 'msg:r1#1', 'r1', {
      role: 'tool',
      name: 'read_file',
      toolCallId: 'call_1',
      content: 'const a = 1;',
    });
    await stream.close(place, 'closed');
    const [message] = replies(place.cardTs);
    expect(message?.blocks).toContainEqual(
      expect.objectContaining({ type: 'task_card', task_id: 'call_1', status: 'complete' }),
    );
  });

  it('AGENT_TASK_DISPLAY=plan: the stream starts in plan mode, titled with the goal; its tasks are the plan', async () => {
    const place = await thread();
    const { stream } = bot(undefined, undefined, undefined, {
      plan: async (_id, continuation) => streamStart('plan', 'Ship  the\nrelease', continuation),
    });
    await stream.enqueue(place, 'msg:r1#0', 'r1', {
      role: 'assistant',
      content: 'Reading.',
      toolCalls: [
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
      ],
    });
    await stream.close(place, 'closed');
    const [record] = world.sandbox.workspace.agent.streams({ channel: CHANNEL, threadTs: place.cardTs });
    expect(record).toMatchObject({ displayMode: 'plan', planTitle: 'Ship the release' });
    const [message] = replies(place.cardTs);
    expect(message?.blocks).toContainEqual(
      expect.objectContaining({
        type: 'plan',
        title: 'Ship the release',
        tasks: [expect.objectContaining({ task_id: 'call_1' })],
      }),
    );
  });

  it("rounds share the session's one open stream: one start for all of them, each message once", async () => {
    const place = await thread();
    const { stream } = bot();
    const starts = () =>
      world.sandbox.workspace.apiCalls.filter((c) => c.method === 'chat.startStream').length;
    const before = starts();
    await stream.enqueue(place, 'msg:r1#0', 'r1', say('Round one.'));
    await stream.drained(place);
    await stream.enqueue(place, 'msg:r2#0', 'r2', say('Round two.'));
    await stream.drained(place);
    await stream.enqueue(place, 'msg:r1#1', 'r1', say('A late word of round one.'));
    await stream.close(place, 'closed');
    expect(starts() - before).toBe(1);
    const posted = replies(place.cardTs);
    expect(posted.map((m) => m.text.trim())).toEqual([
      'Round one.\n\nRound two.\n\nA late word of round one.',
    ]);
    expect((posted[0] as { streaming_state?: string }).streaming_state).toBe('completed');
  });

  it('past 12,000 characters the stream stops and a continuation begins, labelled, nothing twice', async () => {
    const place = await thread();
    const { stream, store } = bot();
    const block = (i: number) => `Finding ${i}: ${'detail '.repeat(400)}end ${i}.`;
    for (let i = 1; i <= 8; i++) await stream.enqueue(place, `msg:r1#${i}`, 'r1', say(block(i)));
    await stream.close(place, 'closed');
    const posted = replies(place.cardTs);
    expect(posted.length).toBeGreaterThan(1);
    for (const m of posted) expect(m.text.length).toBeLessThanOrEqual(12_000);
    expect(posted.slice(1).every((m) => m.text.startsWith('_(continued'))).toBe(true);
    const all = posted.map((m) => m.text).join('\n');
    for (let i = 1; i <= 8; i++) expect(all.split(`end ${i}.`).length).toBe(2);
    const tss = new Set<string>();
    for (let i = 1; i <= 8; i++) tss.add(String(await store.posts.ts(place.sessionId, `msg:r1#${i}`)));
    expect([...tss].sort()).toEqual(posted.map((m) => m.ts).sort());
  });

  it('a message past what a message holds: one file after the stream, not five streams of it; what follows streams below it', async () => {
    const place = await thread();
    const { stream, store } = bot();
    await stream.enqueue(place, 'msg:r1#1', 'r1', say('Before the audit.'));
    const audit = `The full audit: ${'every module read and checked. '.repeat(1_700)}`;
    await stream.enqueue(place, 'msg:r1#2', 'r1', say(audit));
    await stream.enqueue(place, 'msg:r1#3', 'r1', say('After the audit.'));
    await stream.close(place, 'closed');
    const posted = replies(place.cardTs);
    // The stream, the file, a stream below it: two starts, where the audit alone would take five.
    expect(posted).toHaveLength(3);
    const [before, file, after] = posted;
    expect(before?.text).toContain('Before the audit.');
    expect(file?.files).toHaveLength(1);
    expect(after?.text).toContain('After the audit.');
    // Not streamed: neither stream holds any of it.
    for (const m of [before, after]) expect(m?.text).not.toContain('every module read');
    expect(await store.posts.ts(place.sessionId, 'msg:r1#2')).toBe(file?.ts);
  });

  it('a stream Slack no longer takes (Stop button, timeout): the rest goes into a continuation', async () => {
    const place = await thread();
    const { stream } = bot();
    await stream.enqueue(place, 'msg:r1#0', 'r1', say('Before.'));
    await stream.drained(place);
    world.sandbox.failNext({
      method: 'chat.appendStream',
      error: 'message_not_in_streaming_state',
      channel: CHANNEL,
    });
    await stream.enqueue(place, 'msg:r1#1', 'r1', say('After.'));
    await stream.close(place, 'closed');
    const posted = replies(place.cardTs);
    expect(posted.map((m) => m.text.trim())).toEqual([
      'Before.',
      expect.stringMatching(/^_\(continued.*After\.$/s),
    ]);
  });
});

describe('batching becomes appending', () => {
  it('under load, the messages waiting for the append limit go into one append', async () => {
    const place = await thread();
    // One append a minute, on a clock the test moves: the first message starts the stream (no append),
    // the second spends the minute's append, then the next eight wait for the append limit together.
    const clock = new ManualClock(Date.now());
    const { stream } = bot(undefined, undefined, { clock, streamAppendPerMinute: 1 });
    const appends = () =>
      world.sandbox.workspace.apiCalls.filter((c) => c.method === 'chat.appendStream').length;
    const before = appends();
    await stream.enqueue(place, 'msg:r1#1', 'r1', say('Batched 1.'));
    await stream.drained(place);
    await stream.enqueue(place, 'msg:r1#2', 'r1', say('Batched 2.'));
    await stream.drained(place);
    expect(appends() - before).toBe(1);
    for (let i = 3; i <= 10; i++) await stream.enqueue(place, `msg:r1#${i}`, 'r1', say(`Batched ${i}.`));
    while (clock.pendingSleeps === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(appends() - before).toBe(1);
    await clock.advance(60_000);
    await stream.close(place, 'closed');
    expect(appends() - before).toBe(2);
    const [message] = replies(place.cardTs);
    for (let i = 1; i <= 10; i++) expect(message?.text.split(`Batched ${i}.`).length).toBe(2);
  });
});

describe("Slack's stream starts spent (Tier 2)", () => {
  it('a session waiting for a start posts its chatter the classic way, in order, once; it streams once a start is free', async () => {
    const clock = new ManualClock(Date.now());
    const { stream, poster } = bot(undefined, undefined, { clock, streamStartPerMinute: 1 });
    const first = await thread();
    const second = await thread();
    await stream.enqueue(first, 'msg:r1#0', 'r1', say('The first session streams.'));
    await stream.drained(first);
    await stream.enqueue(second, 'msg:r1#0', 'r1', say('No start left: posted.'));
    await stream.enqueue(second, 'msg:r1#1', 'r1', say('Posted after it.'));
    await stream.drained(second);
    // Posted at the channel's pace (a post a second on the queue's clock, moved here by hand).
    let out = false;
    void poster.drained(second).then(() => {
      out = true;
    });
    while (!out) {
      await clock.advance(1_000);
      await new Promise((resolve) => setImmediate(resolve)); // lets the sandbox's answers in
    }
    const classic = () =>
      replies(second.cardTs)
        .filter((m) => !('streaming_state' in m))
        .map((m) => m.text.trim())
        .join('\n\n');
    expect(classic()).toBe('No start left: posted.\n\nPosted after it.');
    expect(replies(second.cardTs).some((m) => 'streaming_state' in m)).toBe(false);
    // A minute on, a start is free: what the session says next streams, below its classic posts.
    await clock.advance(60_000);
    await stream.enqueue(second, 'msg:r1#2', 'r1', say('Streamed at last.'));
    await stream.close(second, 'closed');
    await stream.close(first, 'closed');
    const posted = replies(second.cardTs);
    expect(classic()).toBe('No start left: posted.\n\nPosted after it.');
    expect(posted.at(-1)?.text.trim()).toBe('Streamed at last.');
    expect((posted.at(-1) as { streaming_state?: string }).streaming_state).toBe('completed');
    expect(replies(first.cardTs).map((m) => m.text.trim())).toEqual(['The first session streams.']);
  });

  it('a start Slack answers with 429 (another replica spent the limit): the batch is posted the classic way, once', async () => {
    const place = await thread();
    const { stream, poster } = bot();
    world.sandbox.failNext({ method: 'chat.startStream', error: 'ratelimited', retryAfter: 30 });
    await stream.enqueue(place, 'msg:r1#0', 'r1', say('Refused a start.'));
    await stream.drained(place);
    await poster.drained(place);
    await stream.close(place, 'closed');
    const posted = replies(place.cardTs);
    expect(posted.map((m) => m.text.trim())).toEqual(['Refused a start.']);
    expect(posted.some((m) => 'streaming_state' in m)).toBe(false);
  });
});

describe('a stream call whose answer is lost (the connection dropped)', () => {
  it('is looked for in the stream, not found, and sent again once, into the same stream', async () => {
    const place = await thread();
    const { stream } = bot();
    await stream.enqueue(place, 'msg:r1#0', 'r1', say('Before the drop.'));
    await stream.drained(place);
    world.sandbox.failNext({ method: 'chat.appendStream', drop: true, channel: CHANNEL });
    await stream.enqueue(place, 'msg:r1#1', 'r1', say('Sent through a dropped connection.'));
    await stream.close(place, 'closed');
    const posted = replies(place.cardTs);
    expect(posted.map((m) => m.text.trim())).toEqual([
      'Before the drop.\n\nSent through a dropped connection.',
    ]);
    const reads = world.sandbox.workspace.apiCalls.filter((c) => c.method === 'conversations.replies');
    expect(reads.length).toBeGreaterThan(0);
  });
});

describe('Slack busy or down in a stream', () => {
  it('fatal_error on an append (part may be applied): looked up and tried again, the stream goes on', async () => {
    const place = await thread();
    const { stream, surface } = bot();
    await stream.enqueue(place, 'msg:r1#0', 'r1', say('Before the error.'));
    await stream.drained(place);
    world.sandbox.failNext({ method: 'chat.appendStream', error: 'fatal_error', channel: CHANNEL });
    await stream.enqueue(place, 'msg:r1#1', 'r1', say('Sent through a fatal_error.'));
    await stream.close(place, 'closed');
    expect(replies(place.cardTs).map((m) => m.text.trim())).toEqual([
      'Before the error.\n\nSent through a fatal_error.',
    ]);
    expect(surface.fellBack).toEqual([]);
  });
});

describe('where Slack has no streams: the classic thread, nothing lost, nothing twice', () => {
  it('unknown_method: the surface falls back and the messages are posted as thread replies', async () => {
    const place = await thread();
    const { stream, surface, poster } = bot();
    world.sandbox.failNext({ method: 'chat.startStream', error: 'unknown_method', channel: CHANNEL });
    await stream.enqueue(place, 'msg:r1#0', 'r1', say('First.'));
    await stream.enqueue(place, 'msg:r1#1', 'r1', say('Second.'));
    await stream.drained(place);
    await poster.drained(place);
    expect(surface.fellBack).toEqual([['chat.startStream', 'unknown_method']]);
    const posted = replies(place.cardTs);
    expect(
      posted
        .map((m) => m.text)
        .join('\n')
        .split('First.').length,
    ).toBe(2);
    expect(
      posted
        .map((m) => m.text)
        .join('\n')
        .split('Second.').length,
    ).toBe(2);
    expect(posted.every((m) => (m as { streaming_state?: string }).streaming_state === undefined)).toBe(true);
  });
});

describe('the session goes on while Slack refuses its stream', () => {
  it('a message on its way into the stream, and the next one the classic way: each posted once, in order', async () => {
    // The follower does not wait for the refused chat.startStream: one message was being recorded for the
    // stream when the fallback's look-up read the session's records (its record came after), and the next
    // goes the classic way (enqueueText). The first once went to the thread by a look-up of its own, which
    // read the next one's record before enqueueText queued it: both queued it, its post carried it twice.
    const place = await thread();
    const posts = new HeldPosts();
    const { stream, poster } = bot({ posts });
    world.sandbox.failNext({ method: 'chat.startStream', error: 'unknown_method', channel: CHANNEL });
    const onItsWay = gate();
    posts.beforeBegin.set('msg:r1#1', onItsWay.promise);
    await stream.enqueue(place, 'msg:r1#0', 'r1', say('Before the refusal.'));
    const late = stream.enqueue(place, 'msg:r1#1', 'r1', say('On its way as the stream was refused.'));
    await stream.drained(place); // refused, and the fallback's look-up queued what it read in the thread
    expect(stream.streams(place)).toBe(false);
    // The next message is past its recovery (the fallback's look-up, done) before anything of the one on
    // its way goes on, as when that one's turn waits in the outbound queue; its record answers once a
    // look-up begun meanwhile has read the records (and taken it as not queued).
    const reads = gate();
    posts.unsentHeld = reads.promise;
    const recordAnswered = gate();
    posts.afterBegin.set('msg:r1#2', recordAnswered.promise);
    onItsWay.open();
    const classic = { mrkdwn: 'After the refusal.', plain: 'After the refusal.' };
    const next = poster.enqueueText(place, 'msg:r1#2', classic);
    await late;
    await expect.poll(() => posts.recorded(place.sessionId, 'msg:r1#2')).toBe(true);
    await expect.poll(() => stream.waiting()).toBe(0);
    const read = posts.readingUnsent > 0 ? posts.nextUnsentAnswer() : undefined;
    reads.open();
    await read;
    await new Promise((resolve) => setImmediate(resolve)); // the look-up went on to read the thread
    recordAnswered.open();
    await next;
    await stream.drained(place);
    await expect.poll(() => poster.waiting()).toBe(0);
    expect(postKeys(replies(place.cardTs))).toEqual(['msg:r1#0', 'msg:r1#1', 'msg:r1#2']);
    expect(replies(place.cardTs).some((m) => 'streaming_state' in m)).toBe(false);
  });
});

describe('content a stream refuses: the classic thread for the session, nothing lost, nothing twice', () => {
  it('invalid_chunks: what waits is posted as thread replies; what the stream holds stays there', async () => {
    const place = await thread();
    const { stream, poster, surface } = bot();
    await stream.enqueue(place, 'msg:r1#0', 'r1', say('Streamed.'));
    await stream.drained(place);
    world.sandbox.failNext({ method: 'chat.appendStream', error: 'invalid_chunks', channel: CHANNEL });
    await stream.enqueue(place, 'msg:r1#1', 'r1', say('Refused in a stream.'));
    await stream.drained(place);
    await poster.drained(place);
    expect(surface.fellBack).toEqual([]);
    expect(stream.streams(place)).toBe(false);
    const posted = replies(place.cardTs);
    expect(posted.map((m) => m.text.trim())).toEqual(['Streamed.', 'Refused in a stream.']);
    expect((posted[1] as { streaming_state?: string }).streaming_state).toBeUndefined();
  });
});

describe('after a crash (a new process over the same store)', () => {
  it('an append Slack took whose answer was lost is found in the stream: recorded, not sent again', async () => {
    const place = await thread();
    const first = bot();
    await first.stream.enqueue(place, 'msg:r1#0', 'r1', say('One.'));
    await first.stream.drained(place);
    const open = await first.store.streams.latest(place.sessionId);
    // The process appended "Two." and died before recording it: Slack has it, the store says in flight.
    await first.store.posts.begin(
      place.sessionId,
      'msg:r1#1',
      JSON.stringify({ text: 'Two.', stream: { roundId: 'r1', piece: { markdown: 'Two.\n\n' } } }),
    );
    await world.slack.chat.appendStream({
      channel: CHANNEL,
      ts: String(open?.ts),
      chunks: [{ type: 'markdown_text', text: 'Two.\n\n' }],
    });
    await first.store.streams.intend(place.sessionId, open?.seq ?? 0, {
      keys: ['msg:r1#1'],
      pieces: [{ markdown: 'Two.\n\n' }],
    });
    const second = bot(first.store);
    await second.stream.enqueue(place, 'msg:r1#2', 'r1', say('Three.'));
    await second.stream.close(place, 'closed');
    const posted = replies(place.cardTs);
    expect(posted.map((m) => m.text.trim())).toEqual(['One.\n\nTwo.\n\nThree.']);
    expect(await first.store.posts.ts(place.sessionId, 'msg:r1#1')).toBe(posted[0]?.ts);
  });

  it('an append that never reached Slack is sent once, into the stream that was open', async () => {
    const place = await thread();
    const first = bot();
    await first.stream.enqueue(place, 'msg:r1#0', 'r1', say('One.'));
    await first.stream.drained(place);
    const open = await first.store.streams.latest(place.sessionId);
    await first.store.posts.begin(
      place.sessionId,
      'msg:r1#1',
      JSON.stringify({ text: 'Two.', stream: { roundId: 'r1', piece: { markdown: 'Two.\n\n' } } }),
    );
    await first.store.streams.intend(place.sessionId, open?.seq ?? 0, {
      keys: ['msg:r1#1'],
      pieces: [{ markdown: 'Two.\n\n' }],
    });
    const second = bot(first.store);
    await second.stream.close(place, 'closed');
    expect(replies(place.cardTs).map((m) => m.text.trim())).toEqual(['One.\n\nTwo.']);
  });

  it('a start whose answer was lost: the stream it made is found by what it carries, and continued', async () => {
    const place = await thread();
    const first = bot();
    const body = JSON.stringify({ text: 'One.', stream: { roundId: 'r1', piece: { markdown: 'One.\n\n' } } });
    await first.store.posts.begin(place.sessionId, 'msg:r1#0', body);
    await first.store.streams.begin(place.sessionId, 1, 'r1', {
      keys: ['msg:r1#0'],
      pieces: [{ markdown: 'One.\n\n' }],
    });
    await world.slack.chat.startStream({
      channel: CHANNEL,
      thread_ts: place.cardTs,
      recipient_user_id: 'U0ALICE',
      recipient_team_id: 'T0SANDBOX',
      chunks: [{ type: 'markdown_text', text: 'One.\n\n' }],
    });
    const second = bot(first.store);
    await second.stream.enqueue(place, 'msg:r1#1', 'r1', say('Two.'));
    await second.stream.close(place, 'closed');
    expect(replies(place.cardTs).map((m) => m.text.trim())).toEqual(['One.\n\nTwo.']);
  });
});
