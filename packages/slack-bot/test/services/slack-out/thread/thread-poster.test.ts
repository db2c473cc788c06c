import { ManualClock } from '@agent-sessions/core';
import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { useSandboxWithClient } from '../../../../../../test/support/world.js';
import type { MessageText } from '../../../../src/blocks/agent-message.js';
import { agentMessageText, layoutText, promptMessage } from '../../../../src/blocks/index.js';
import type { BotMetrics } from '../../../../src/services/ops/metrics.js';
import { OutboundQueue } from '../../../../src/services/slack-out/outbound/index.js';
import {
  POST_EVENT_TYPE,
  PostInProgressError,
} from '../../../../src/services/slack-out/thread/thread-lookup.js';
import { CannotPostHereError } from '../../../../src/services/slack-out/thread/thread-place.js';
import {
  ThreadPoster,
  type ThreadPosterOptions,
} from '../../../../src/services/slack-out/thread/thread-poster.js';
import { isHonest, linksIn } from '../../../blocks/link-check.js';
import { unexpectedPings } from '../../../blocks/ping-check.js';
import { FakePosts, logger, metrics as newMetrics } from '../../../fakes.js';
import { text } from './card-threads.js';

// Each Slack error a thread post can meet, produced by the real sandbox (failNext) over real HTTP.
const CHANNEL = 'C0AGENTS';
// Slack's limits off here: these tests post their own cards around the queue, and the batch test runs the
// queue on a hand-moved clock. Pacing under the limits is held by outbound.test.ts and the e2e suites.
const world = useSandboxWithClient({ rateLimits: false });

let sessionCount = 0;
async function thread() {
  const sessionId = `sess_${++sessionCount}`;
  const card = await world.slack.chat.postMessage({ channel: CHANNEL, text: `card of ${sessionId}` });
  return { sessionId, channelId: CHANNEL, cardTs: String(card.ts) };
}

const replies = (cardTs: string): SandboxMessage[] => world.sandbox.workspace.replies(CHANNEL, cardTs);

function poster(options: ThreadPosterOptions & { posts?: FakePosts; outbound?: OutboundQueue } = {}) {
  const posts = options.posts ?? new FakePosts();
  const metrics: BotMetrics = newMetrics();
  const outbound = options.outbound ?? new OutboundQueue(logger, metrics);
  const { posts: _posts, outbound: _outbound, ...rest } = options;
  const p = new ThreadPoster({
    slack: world.slack,
    posts,
    logger,
    metrics,
    outbound,
    options: { retryBaseMs: 5, ...rest },
  });
  return { poster: p, posts, metrics, outbound };
}

async function outcomes(metrics: BotMetrics): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const v of (await metrics.postOutcomes.get()).values) out[String(v.labels.outcome)] = v.value;
  return out;
}

describe('a thread post meets a Slack error', () => {
  it('msg_blocks_too_long: sent again as plain text, nothing of it lost', async () => {
    const place = await thread();
    const { poster: p, posts, metrics } = poster();
    world.sandbox.failNext({ method: 'chat.postMessage', error: 'msg_blocks_too_long', channel: CHANNEL });
    const body = `The whole finding, word for word: ${'detail '.repeat(50)}end.`;
    const [ts] = await p.postText(place, 'msg:1', text(body), 'urgent');
    const posted = replies(place.cardTs);
    expect(posted).toHaveLength(1);
    expect(posted[0]?.ts).toBe(ts);
    expect(posted[0]?.text).toContain(body);
    expect(posted[0]?.blocks ?? []).toEqual([]);
    expect(await posts.ts(place.sessionId, 'msg:1')).toBe(ts);
    expect(await outcomes(metrics)).toMatchObject({ as_text: 1 });
  });

  it('a markdown message refused: sent as its whole text in parts, not as its shortened fallback', async () => {
    const place = await thread();
    const { poster: p } = poster();
    world.sandbox.failNext({ method: 'chat.postMessage', error: 'msg_blocks_too_long', channel: CHANNEL });
    const body = `Start of a long note. ${'The agent explains at length. '.repeat(170)}End of the long note.`;
    await p.postText(place, 'msg:md', { mrkdwn: body, plain: body, markdown: body }, 'urgent');
    const shown = replies(place.cardTs)
      .map((m) => (m.text ?? '').replace(/\n\(part \d of \d\)$/, ''))
      .join('');
    expect(body.length).toBeGreaterThan(5_000);
    expect(shown.replace(/\s+/g, ' ')).toBe(body.replace(/\s+/g, ' '));
  });

  it('a question carrying chatter, refused: its plain-text fallback pings nobody and links honestly', async () => {
    const place = await thread();
    const { poster: p } = poster();
    // Shown literally in the blocks (a header, a button): read as mrkdwn once they are the message's text.
    const spoof = '<https://evil.example|https://sso.corp.example> <!channel> @here';
    const chatter = layoutText(
      agentMessageText({ role: 'assistant', content: spoof }, { showReasoning: false }) as MessageText,
      'stem',
    );
    const question = promptMessage(
      {
        inputId: 'in_1',
        kind: 'single_select',
        prompt: spoof,
        options: [{ id: 'o1', label: spoof }],
        raw: {},
      },
      { sessionId: place.sessionId, startedBy: 'U0STARTER' },
    );
    const carried = chatter.kind === 'text' ? chatter.parts.flatMap((part) => part.blocks) : [];
    world.sandbox.failNext({ method: 'chat.postMessage', error: 'msg_blocks_too_long', channel: CHANNEL });
    await p.post(place, 'prompt:in_1', { text: question.text, blocks: [...carried, ...question.blocks] });
    const [posted] = replies(place.cardTs);
    expect(posted?.blocks ?? []).toEqual([]);
    expect(posted?.text).toContain('sso.corp.example');
    expect(unexpectedPings(posted?.text, ['user:U0STARTER'])).toEqual([]);
    expect(linksIn(posted?.text).filter((l) => !isHonest(l))).toEqual([]);
  });

  it('refused as blocks and as text: uploaded as a file holding all of it', async () => {
    const place = await thread();
    const { poster: p, metrics } = poster();
    world.sandbox.failNext({ method: 'chat.postMessage', error: 'invalid_blocks', channel: CHANNEL });
    world.sandbox.failNext({ method: 'chat.postMessage', error: 'msg_too_long', channel: CHANNEL });
    const body = `Everything the agent said ${'again '.repeat(40)}— the end.`;
    await p.postText(place, 'msg:2', text(body), 'urgent');
    const files = replies(place.cardTs).flatMap((m) => m.files ?? []);
    expect(files).toHaveLength(1);
    const content = world.sandbox.workspace.files.get(files[0]?.id ?? '')?.content;
    expect(content).toBe(body);
    expect(await outcomes(metrics)).toMatchObject({ as_file: 1 });
  });

  it.each(['not_in_channel', 'channel_not_found', 'is_archived'])(
    '%s: CannotPostHereError, no retry, the key free again',
    async (code) => {
      const place = await thread();
      const { poster: p, posts, metrics } = poster();
      world.sandbox.failNext({ method: 'chat.postMessage', error: code, channel: CHANNEL, times: 5 });
      const error = await p.post(place, 'input:q1', { text: 'Deploy?' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CannotPostHereError);
      expect((error as CannotPostHereError).code).toBe(code);
      // Tried once: a permanent refusal is not retried.
      expect(world.sandbox.faults.list()[0]?.remaining).toBe(4);
      expect(await posts.begin(place.sessionId, 'input:q1')).toEqual({ state: 'new' });
      expect(await outcomes(metrics)).toMatchObject({ cant_post_here: 1 });
    },
  );

  it('an unknown error: a bounded number of tries, then a visible "couldn\'t post" note; never a loop', async () => {
    const place = await thread();
    const { poster: p, posts, metrics } = poster({ maxAttempts: 3 });
    world.sandbox.failNext({ method: 'chat.postMessage', error: 'fatal_error', channel: CHANNEL, times: 3 });
    const ts = await p.post(place, 'msg:3', { text: 'lost?' });
    expect(ts).toBe('gave-up');
    const shown = replies(place.cardTs).map((m) => m.text ?? '');
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/couldn't post .*fatal_error/);
    // Done with: a re-delivery of the same event does not try again.
    expect(await posts.begin(place.sessionId, 'msg:3')).toEqual({ state: 'posted', ts: 'gave-up' });
    expect(await outcomes(metrics)).toMatchObject({ retried: 2, gave_up: 1 });
  });
});

describe('batches and crashes', () => {
  it("a thread behind: the session's waiting messages go out as one post, every key recorded once", async () => {
    const place = await thread();
    const clock = new ManualClock(Date.now());
    const m = newMetrics();
    // One post a second, no burst: while the first waits to be posted, the rest pile up behind it.
    const outbound = new OutboundQueue(logger, m, { postPerSecond: 1, postBurst: 1, clock });
    const { poster: p, posts } = poster({ outbound, clock });
    let firstAnswered: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      firstAnswered = resolve;
    });
    for (let i = 1; i <= 5; i++) {
      await p.enqueueText(
        place,
        `msg:${i}`,
        text(`Message number ${i}.`),
        i === 1 ? firstAnswered : undefined,
      );
    }
    // Answered before the clock moves: a post counts against the channel's budget as of its answer.
    await first;
    expect(replies(place.cardTs)).toHaveLength(1);
    await clock.advance(1_000);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[1], { what: 'the batch' });
    const posted = replies(place.cardTs);
    expect(posted).toHaveLength(2);
    const all = posted.map((x) => x.text ?? '').join('\n');
    for (let i = 1; i <= 5; i++) expect(all.split(`Message number ${i}.`)).toHaveLength(2);
    const batch = posted[1] as SandboxMessage;
    const keys = Array.from({ length: 5 }, (_, i) => `msg:${i + 1}`);
    // The first post is made when the channel has room (the message, and any that came meanwhile); the
    // rest waited for the next token and went as one post: each key recorded with the post holding it.
    const inBatch = keys.filter((k) => (batch.text ?? '').includes(`Message number ${k.slice(4)}.`));
    expect(inBatch.length).toBeGreaterThanOrEqual(3);
    expect(inBatch).toEqual(keys.slice(5 - inBatch.length));
    for (const key of inBatch) await expect.poll(() => posts.ts(place.sessionId, key)).toBe(batch.ts);
    // Found again by its metadata after a crash: every key of the batch is in it.
    const metadata = batch.metadata as { event_type: string; event_payload: { keys: string } };
    expect(metadata.event_type).toBe(POST_EVENT_TYPE);
    expect(JSON.parse(metadata.event_payload.keys)).toEqual(inBatch);
  });

  it("a lease moved to another replica: the session's waiting chatter is withdrawn here, left for the new owner", async () => {
    const place = await thread();
    const other = await thread();
    const clock = new ManualClock(Date.now());
    // No burst: the first message of `other` takes the channel's token, the session's wait behind it.
    const outbound = new OutboundQueue(logger, newMetrics(), { postPerSecond: 1, postBurst: 1, clock });
    const { poster: p, posts } = poster({ outbound, clock });
    await p.enqueueText(other, 'msg:x', text('Other session.'));
    await world.sandbox.workspace.waitFor(() => replies(other.cardTs)[0], {
      what: "the other session's post",
    });
    for (let i = 1; i <= 3; i++) await p.enqueueText(place, `msg:${i}`, text(`Waiting message ${i}.`));
    p.withdraw(place.sessionId);
    await clock.advance(5_000);
    // Nothing of it was posted here, and every message is still recorded with its content, unsent: the
    // new owner's recovery finds and posts them.
    expect(replies(place.cardTs)).toEqual([]);
    expect((await posts.unsent(place.sessionId)).map((r) => r.key).sort()).toEqual([
      'msg:1',
      'msg:2',
      'msg:3',
    ]);
    const { poster: next } = poster({ posts });
    await next.recover(place);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[0], { what: "the new owner's post" });
    const shown = replies(place.cardTs)
      .map((m) => m.text ?? '')
      .join('\n');
    for (let i = 1; i <= 3; i++) expect(shown.split(`Waiting message ${i}.`)).toHaveLength(2);
  });

  it('after a crash: a recorded post found in the thread is not posted again; one never made is posted once', async () => {
    const place = await thread();
    const posts = new FakePosts();
    // Before the crash: msg:a was posted (its ts never recorded), msg:b only recorded.
    await posts.begin(place.sessionId, 'msg:a', JSON.stringify({ text: 'Alpha.' }));
    await posts.begin(place.sessionId, 'msg:b', JSON.stringify({ text: 'Beta.' }));
    await world.slack.chat.postMessage({
      channel: CHANNEL,
      thread_ts: place.cardTs,
      text: 'Alpha.',
      metadata: { event_type: POST_EVENT_TYPE, event_payload: { session_id: place.sessionId, key: 'msg:a' } },
    });
    const { poster: p } = poster({ posts });
    await p.recover(place);
    await world.sandbox.workspace.waitFor(() => replies(place.cardTs)[1], { what: 'the unsent post' });
    await p.recover(place); // once per process: nothing more
    expect(replies(place.cardTs).map((m) => m.text)).toEqual(['Alpha.', 'Beta.']);
    expect(await posts.ts(place.sessionId, 'msg:a')).toBe(replies(place.cardTs)[0]?.ts);
    await expect.poll(() => posts.ts(place.sessionId, 'msg:b')).toBe(replies(place.cardTs)[1]?.ts);
  });

  it('after a crash, only the bot’s own messages and files count: a member’s look-alikes are not ours', async () => {
    const place = await thread();
    const { poster: p, posts } = poster();
    const file = { filename: 'agent-report.md', content: '# all of it', comment: 'the report' };
    await posts.begin(place.sessionId, 'msg:a', JSON.stringify({ text: 'Alpha.' }));
    await posts.begin(place.sessionId, 'final-report');
    posts.posts.set(`${place.sessionId}|final-report`, { ts: null, since: new Date(0).toISOString() });
    // Carol posts what a crashed bot would have left: our metadata with the key, a file with our name.
    const ws = world.sandbox.workspace;
    ws.post({
      channel: CHANNEL,
      thread_ts: place.cardTs,
      user: 'U0CAROL',
      text: 'Alpha.',
      metadata: { event_type: POST_EVENT_TYPE, event_payload: { session_id: place.sessionId, key: 'msg:a' } },
    });
    ws.post({
      channel: CHANNEL,
      thread_ts: place.cardTs,
      user: 'U0CAROL',
      text: 'look',
      files: [
        {
          id: 'F0CAROL',
          name: file.filename,
          title: file.filename,
          size: 1,
          content: 'x',
          channels: [CHANNEL],
        },
      ],
    });
    await p.recover(place);
    const mine = () => replies(place.cardTs).filter((m) => m.bot_id === world.sandbox.workspace.seed.botId);
    await world.sandbox.workspace.waitFor(() => mine().find((m) => m.text === 'Alpha.'), {
      what: 'the bot’s own Alpha',
    });
    expect(await p.upload(place, 'final-report', file)).toBe(mine().find((m) => m.files?.length)?.ts);
    expect(mine().flatMap((m) => m.files ?? [])).toHaveLength(1);
  });

  it('a key pending with no ts: waited for inside the grace period, posted once past it', async () => {
    const place = await thread();
    const posts = new FakePosts();
    await posts.begin(place.sessionId, 'input:q2');
    const since = Date.parse(posts.posts.get(`${place.sessionId}|input:q2`)?.since ?? '');
    const clock = new ManualClock(since + 1_000);
    const { poster: p } = poster({ posts, clock, pendingGraceMs: 5_000 });
    await expect(p.post(place, 'input:q2', { text: 'Deploy?' })).rejects.toBeInstanceOf(PostInProgressError);
    expect(replies(place.cardTs)).toHaveLength(0);
    await clock.advance(5_000);
    const ts = await p.post(place, 'input:q2', { text: 'Deploy?' });
    expect(replies(place.cardTs).map((m) => m.ts)).toEqual([ts]);
    expect(await p.post(place, 'input:q2', { text: 'Deploy?' })).toBe(ts);
    expect(replies(place.cardTs)).toHaveLength(1);
  });

  it('a DM Slack took but whose ts was never recorded is found in the DM by its metadata, not sent twice', async () => {
    // The reminder DM goes to the person's user id; reading it back needs the DM's own id.
    const dm = { sessionId: `sess_${++sessionCount}`, channelId: 'U0BOB', cardTs: null };
    const other = { ...dm, sessionId: `sess_${++sessionCount}` };
    const { poster: p, posts } = poster();
    const ts = await p.post(dm, 'remind-dm:in_1:1', { text: 'Still waiting.' });
    // Another session's DM with the same key is not this one's.
    await p.post(other, 'remind-dm:in_1:2', { text: 'Other session.' });
    // The crash: the key was recorded before posting, the ts never was.
    posts.posts.set(`${dm.sessionId}|remind-dm:in_1:1`, { ts: null, since: new Date(0).toISOString() });
    posts.posts.set(`${dm.sessionId}|remind-dm:in_1:2`, { ts: null, since: new Date(0).toISOString() });
    expect(await p.post(dm, 'remind-dm:in_1:1', { text: 'Still waiting.' })).toBe(ts);
    await p.post(dm, 'remind-dm:in_1:2', { text: 'Step two.' });
    const texts = (world.sandbox.workspace.messages.get('D0BOB') ?? []).map((m) => m.text);
    expect(texts).toEqual(['Still waiting.', 'Other session.', 'Step two.']);
  });

  it('where the bot may post but not read (a public channel it is not in), a lost record means posting again', async () => {
    const card = await world.slack.chat.postMessage({ channel: 'C0RANDOM', text: 'card' });
    const place = { sessionId: `sess_${++sessionCount}`, channelId: 'C0RANDOM', cardTs: String(card.ts) };
    const { poster: p, posts } = poster();
    await p.post(place, 'msg:a', { text: 'Alpha.' });
    posts.posts.set(`${place.sessionId}|msg:a`, { ts: null, since: new Date(0).toISOString() });
    // No look-up is possible (not_in_channel): the post is made again rather than never.
    await p.post(place, 'msg:a', { text: 'Alpha.' });
    expect(world.sandbox.workspace.replies('C0RANDOM', place.cardTs).map((m) => m.text)).toEqual([
      'Alpha.',
      'Alpha.',
    ]);
  });

  it('an uploaded file whose ts was never recorded is found again by its name, not uploaded twice', async () => {
    const place = await thread();
    const { poster: p, posts } = poster();
    const file = { filename: 'agent-report.md', content: '# all of it', comment: 'the report' };
    const ts = await p.upload(place, 'final-report', file);
    // The crash: the record keeps the key but lost the ts.
    posts.posts.set(`${place.sessionId}|final-report`, { ts: null, since: new Date(0).toISOString() });
    expect(await p.upload(place, 'final-report', file)).toBe(ts);
    expect(replies(place.cardTs).flatMap((m) => m.files ?? [])).toHaveLength(1);
  });
});
