import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../src/index.js';
import { botClient } from './bot-client.js';

// chat.startStream / appendStream / stopStream through Slack's own WebClient: one message of the thread
// that grows, read back with conversations.replies as a bot reads it after a crash.
let sandbox: RunningSandbox;
let client: WebClient;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: false });
  client = botClient(sandbox);
});
afterAll(async () => {
  await sandbox?.close();
});

const slackError = async (call: Promise<unknown>) =>
  ((await call.catch((e) => e)) as { data?: Record<string, unknown> }).data;
const to = { channel: 'C0AGENTS', recipient_user_id: 'U0ALICE', recipient_team_id: 'T0SANDBOX' };

async function thread(): Promise<string> {
  return (await client.chat.postMessage({ channel: 'C0AGENTS', text: 'do the thing' })).ts as string;
}

describe('a stream of markdown', () => {
  it('grows one reply of the thread; conversations.replies shows it open, then stopped with its metadata', async () => {
    const ts = await thread();
    const start = await client.chat.startStream({ ...to, thread_ts: ts, markdown_text: 'Hello' });
    expect(start).toMatchObject({ ok: true, channel: 'C0AGENTS', ts: expect.any(String) });
    const streamTs = start.ts as string;
    await client.chat.appendStream({ channel: 'C0AGENTS', ts: streamTs, markdown_text: ', world' });
    const open = await client.conversations.replies({ channel: 'C0AGENTS', ts });
    expect(open.messages).toHaveLength(2);
    expect(open.messages?.[1]).toMatchObject({
      ts: streamTs,
      thread_ts: ts,
      bot_id: 'B0AGENTS',
      text: 'Hello, world',
      streaming_state: 'in_progress',
      blocks: [{ type: 'markdown', text: 'Hello, world' }],
    });
    expect(open.messages?.[1]?.metadata).toBeUndefined();
    const metadata = { event_type: 'agent_round', event_payload: { session: 'S1', round: 1 } };
    const stop = await client.chat.stopStream({
      channel: 'C0AGENTS',
      ts: streamTs,
      markdown_text: '!',
      metadata,
      blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'done' }] }],
    });
    expect(stop).toMatchObject({ ok: true, ts: streamTs, message: { streaming_state: 'completed' } });
    const closed = (await client.conversations.replies({ channel: 'C0AGENTS', ts })).messages?.[1];
    expect(closed).toMatchObject({
      text: 'Hello, world!',
      streaming_state: 'completed',
      metadata,
      blocks: [{ type: 'markdown', text: 'Hello, world!' }, { type: 'context' }],
    });
    expect(closed?.edited).toBeUndefined();
    // Stopped: no more appends, no second stop.
    expect(
      await slackError(
        client.chat.appendStream({ channel: 'C0AGENTS', ts: streamTs, markdown_text: 'more' }),
      ),
    ).toMatchObject({ error: 'message_not_in_streaming_state' });
    expect(await slackError(client.chat.stopStream({ channel: 'C0AGENTS', ts: streamTs }))).toMatchObject({
      error: 'message_not_in_streaming_state',
    });
  });

  it('holds blocks chunks to 50 in all, besides the 50 of stopStream', async () => {
    const ts = await thread();
    const divider = { type: 'divider' as const };
    const chunk = (n: number) => [
      { type: 'blocks' as const, blocks: Array.from({ length: n }, () => divider) },
    ];
    const { ts: s } = await client.chat.startStream({ ...to, thread_ts: ts, chunks: chunk(30) });
    const at = { channel: 'C0AGENTS', ts: s as string };
    expect(await slackError(client.chat.appendStream({ ...at, chunks: chunk(21) }))).toMatchObject({
      error: 'msg_blocks_too_many',
    });
    await client.chat.appendStream({ ...at, chunks: chunk(20) });
    const blocks = Array.from({ length: 50 }, () => divider);
    expect((await client.chat.stopStream({ ...at, blocks })).ok).toBe(true);
    expect(sandbox.workspace.findMessage('C0AGENTS', s as string)?.blocks).toHaveLength(100);
  });

  it('holds markdown to 12,000 characters a call and a message', async () => {
    const ts = await thread();
    expect(
      await slackError(client.chat.startStream({ ...to, thread_ts: ts, markdown_text: 'x'.repeat(12_001) })),
    ).toMatchObject({ error: 'msg_too_long' });
    const { ts: streamTs } = await client.chat.startStream({
      ...to,
      thread_ts: ts,
      markdown_text: 'x'.repeat(12_000),
    });
    expect(
      await slackError(
        client.chat.appendStream({ channel: 'C0AGENTS', ts: streamTs as string, markdown_text: 'y' }),
      ),
    ).toMatchObject({ error: 'msg_too_long' });
  });
});

describe('what chat.startStream refuses', () => {
  it('wants a thread, and a recipient outside DMs', async () => {
    const ts = await thread();
    expect(
      await slackError(client.chat.startStream({ channel: 'C0AGENTS', thread_ts: ts, markdown_text: 'x' })),
    ).toMatchObject({ error: 'missing_recipient_user_id' });
    expect(
      await slackError(
        client.chat.startStream({
          channel: 'C0AGENTS',
          thread_ts: ts,
          recipient_user_id: 'U0ALICE',
          markdown_text: 'x',
        }),
      ),
    ).toMatchObject({ error: 'missing_recipient_team_id' });
    expect(
      await slackError(
        client.chat.startStream({ ...to, recipient_user_id: 'U0NOBODY', thread_ts: ts, markdown_text: 'x' }),
      ),
    ).toMatchObject({ error: 'user_not_found' });
    expect(
      await slackError(client.chat.startStream({ ...to, thread_ts: '1.000001', markdown_text: 'x' })),
    ).toMatchObject({ error: 'thread_not_found' });
    expect(await slackError(client.apiCall('chat.startStream', { ...to, markdown_text: 'x' }))).toMatchObject(
      { error: 'invalid_arguments' },
    );
    expect(
      await slackError(
        client.chat.startStream({ ...to, thread_ts: ts, task_display_mode: 'list', markdown_text: 'x' }),
      ),
    ).toMatchObject({ error: 'invalid_arguments' });
    // In the DM with a person no recipient is needed.
    const dm = (await client.conversations.open({ users: 'U0ALICE' })).channel?.id as string;
    const root = (await client.chat.postMessage({ channel: dm, text: 'hi' })).ts as string;
    expect((await client.chat.startStream({ channel: dm, thread_ts: root, markdown_text: 'hi' })).ok).toBe(
      true,
    );
  });
});

describe('typed chunks', () => {
  it('tasks tick through their states in one message, in timeline and in plan view', async () => {
    const ts = await thread();
    const task = (status: string, extra: Record<string, unknown> = {}) => ({
      type: 'task_update' as const,
      id: 'call_1',
      title: 'Read the changelog',
      status: status as 'pending',
      ...extra,
    });
    const { ts: streamTs } = await client.chat.startStream({
      ...to,
      thread_ts: ts,
      chunks: [{ type: 'markdown_text', text: 'Working. ' }, task('pending')],
    });
    const s = streamTs as string;
    await client.chat.appendStream({
      channel: 'C0AGENTS',
      ts: s,
      chunks: [task('in_progress', { details: 'reading' })],
    });
    await client.chat.appendStream({
      channel: 'C0AGENTS',
      ts: s,
      chunks: [task('complete', { output: '3 entries' }), { type: 'markdown_text', text: 'Done.' }],
    });
    const stream = await sandbox.agent.waitForStream(
      'C0AGENTS',
      ts,
      (x) => x.tasks[0]?.status === 'complete',
    );
    expect(stream?.tasks).toEqual([
      expect.objectContaining({
        id: 'call_1',
        status: 'complete',
        statuses: ['pending', 'in_progress', 'complete'],
      }),
    ]);
    const message = sandbox.workspace.findMessage('C0AGENTS', s);
    expect(message?.text).toBe('Working. Done.');
    expect(message?.blocks).toEqual([
      { type: 'markdown', text: 'Working. ' },
      expect.objectContaining({
        type: 'task_card',
        task_id: 'call_1',
        status: 'complete',
        output: expect.any(Object),
      }),
      { type: 'markdown', text: 'Done.' },
    ]);
    // Plan view: every task in one plan block, titled by plan_update.
    const { ts: planTs } = await client.chat.startStream({
      ...to,
      thread_ts: ts,
      task_display_mode: 'plan',
      chunks: [
        { type: 'plan_update', title: 'Release' },
        task('pending'),
        { ...task('pending'), id: 'call_2', title: 'Write' },
      ],
    });
    expect(sandbox.workspace.findMessage('C0AGENTS', planTs as string)?.blocks).toEqual([
      expect.objectContaining({
        type: 'plan',
        title: 'Release',
        tasks: [expect.any(Object), expect.any(Object)],
      }),
    ]);
  });

  it('refuses bad chunks by index and field, mixed modes, and both kinds at once', async () => {
    const ts = await thread();
    const bad = await slackError(
      client.chat.startStream({
        ...to,
        thread_ts: ts,
        chunks: [
          { type: 'task_update', id: 't', title: 'x', status: 'done' as 'pending' },
          { type: 'poem' } as never,
        ],
      }),
    );
    expect(bad).toMatchObject({ error: 'invalid_chunks' });
    expect(bad?.errors).toEqual([
      'chunks[0].status must be one of pending, in_progress, complete, error',
      'chunks[1].type must be one of markdown_text, task_update, plan_update, blocks',
    ]);
    const { ts: s } = await client.chat.startStream({ ...to, thread_ts: ts, markdown_text: 'a' });
    const at = { channel: 'C0AGENTS', ts: s as string };
    expect(
      await slackError(client.chat.appendStream({ ...at, chunks: [{ type: 'markdown_text', text: 'b' }] })),
    ).toMatchObject({ error: 'streaming_mode_mismatch' });
    expect(
      await slackError(
        client.chat.appendStream({
          ...at,
          markdown_text: 'b',
          chunks: [{ type: 'markdown_text', text: 'c' }],
        }),
      ),
    ).toMatchObject({ error: 'cannot_provide_both_markdown_text_and_chunks' });
    expect(await slackError(client.apiCall('chat.appendStream', at))).toMatchObject({
      error: 'markdown_text_or_chunks_required',
    });
    expect(
      await slackError(client.chat.stopStream({ ...at, metadata: { event_type: 'x' } as never })),
    ).toMatchObject({ error: 'invalid_metadata_schema' });
    const persons = sandbox.workspace.post({ channel: 'C0AGENTS', user: 'U0ALICE', text: 'mine' });
    expect(
      await slackError(client.chat.appendStream({ channel: 'C0AGENTS', ts: persons.ts, markdown_text: 'x' })),
    ).toMatchObject({ error: 'message_not_owned_by_app' });
    // The bot's own message that is no stream.
    expect(
      await slackError(client.chat.appendStream({ channel: 'C0AGENTS', ts, markdown_text: 'x' })),
    ).toMatchObject({ error: 'message_not_in_streaming_state' });
    expect(
      await slackError(client.chat.appendStream({ channel: 'C0AGENTS', ts: '1.000001', markdown_text: 'x' })),
    ).toMatchObject({ error: 'message_not_found' });
  });
});

describe('a stream and its session', () => {
  it('stopStream sets the session status (active by default, or session_status)', async () => {
    const ts = await thread();
    await client.agents.sessions.setStatus({ channel_id: 'C0AGENTS', thread_ts: ts, status: 'processing' });
    const first = await client.chat.startStream({ ...to, thread_ts: ts, markdown_text: 'a' });
    await client.chat.stopStream({ channel: 'C0AGENTS', ts: first.ts as string });
    const second = await client.chat.startStream({ ...to, thread_ts: ts, markdown_text: 'b' });
    await client.chat.stopStream({
      channel: 'C0AGENTS',
      ts: second.ts as string,
      session_status: 'suspended',
    });
    expect(sandbox.agent.session('C0AGENTS', ts)?.history.map((h) => [h.status, h.via])).toEqual([
      ['processing', 'agents.sessions.setStatus'],
      ['active', 'chat.stopStream'],
      ['suspended', 'chat.stopStream'],
    ]);
  });

  it("streams with Slack's own ChatStreamer (an empty start, chunks: [] at the end)", async () => {
    const ts = await thread();
    const streamer = client.chatStream({ ...to, thread_ts: ts });
    await streamer.append({ markdown_text: 'short' });
    const stopped = await streamer.stop();
    expect(stopped.ok).toBe(true);
    expect(sandbox.workspace.findMessage('C0AGENTS', stopped.ts as string)).toMatchObject({
      text: 'short',
      streaming_state: 'completed',
    });
  });
});
