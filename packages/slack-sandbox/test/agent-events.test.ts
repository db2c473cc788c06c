import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { boltInSandbox } from './bolt-app.js';

// Slack's Stop button and the Messages tab, as a real Bolt app receives them: agent_session_stopped and
// app_home_opened (tab: messages) through the Events API, signed, and a suggested prompt clicked.
const bolt = boltInSandbox((app, received) => {
  app.event('agent_session_stopped', async ({ event, client }) => {
    received.push(event as unknown as Record<string, unknown>);
    const e = event as unknown as { channel: string; thread_ts: string };
    await client.agents.sessions.setStatus({
      channel_id: e.channel,
      thread_ts: e.thread_ts,
      status: 'closed',
    });
  });
  app.event('app_home_opened', async ({ event, client }) => {
    received.push(event as unknown as Record<string, unknown>);
    if (event.tab !== 'messages') return;
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: event.channel,
      prompts: [
        { title: 'Release notes', message: 'ship the release notes' },
        { title: 'Approval', message: 'start scenario:approval deploy' },
      ],
    });
  });
  app.message(async ({ message }) => {
    received.push(message as unknown as Record<string, unknown>);
  });
});
const { received } = bolt;

async function processingSession(): Promise<{ root: string; stream: string }> {
  const root = bolt.sandbox.workspace.post({ channel: 'C0AGENTS', user: 'U0ALICE', text: 'please work' }).ts;
  const client = bolt.app.client;
  await client.agents.sessions.setStatus({ channel_id: 'C0AGENTS', thread_ts: root, status: 'processing' });
  const stream = await client.chat.startStream({
    channel: 'C0AGENTS',
    thread_ts: root,
    recipient_user_id: 'U0ALICE',
    recipient_team_id: 'T0SANDBOX',
    markdown_text: 'working…',
  });
  return { root, stream: stream.ts as string };
}

describe("Slack's Stop button", () => {
  it('stops the open streams and sends agent_session_stopped; the status stays until the app sets it', async () => {
    const { root, stream } = await processingSession();
    const stop = await bolt.driver.stopAgentSession({ channel: 'C0AGENTS', threadTs: root, user: 'U0BOB' });
    expect(stop.deliveries.map((d) => d.status)).toEqual([200]);
    expect(stop.event).toEqual({
      type: 'agent_session_stopped',
      channel: 'C0AGENTS',
      thread_ts: root,
      user: 'U0BOB',
      streaming_message_ts: [stream],
      event_ts: expect.stringMatching(/^\d+\.\d{6}$/),
    });
    expect(received.at(-1)).toMatchObject({
      type: 'agent_session_stopped',
      user: 'U0BOB',
      streaming_message_ts: [stream],
    });
    // Slack did not change the status; the app did (to closed) in its handler, after acking.
    await bolt.sandbox.agent.waitForStatus('C0AGENTS', root, 'closed');
    expect(bolt.sandbox.agent.session('C0AGENTS', root)?.history.map((h) => h.status)).toEqual([
      'processing',
      'closed',
    ]);
    expect(bolt.sandbox.agent.stops.at(-1)).toMatchObject({ user: 'U0BOB', streamingMessageTs: [stream] });
    // The stopped stream takes no appends, but the app may still close it.
    const err = await bolt.app.client.chat
      .appendStream({ channel: 'C0AGENTS', ts: stream, markdown_text: 'more' })
      .catch((e: { data: unknown }) => e.data);
    expect(err).toMatchObject({ error: 'stopped_by_user' });
    expect((await bolt.app.client.chat.stopStream({ channel: 'C0AGENTS', ts: stream })).ok).toBe(true);
  });

  it('is there only while processing, and only for an app subscribed to the event', async () => {
    const { root } = await processingSession();
    await bolt.app.client.agents.sessions.setStatus({
      channel_id: 'C0AGENTS',
      thread_ts: root,
      status: 'suspended',
    });
    await expect(
      bolt.driver.stopAgentSession({ channel: 'C0AGENTS', threadTs: root, user: 'U0ALICE' }),
    ).rejects.toThrow('Slack shows Stop only while processing; this session is suspended');
    await bolt.app.client.agents.sessions.setStatus({
      channel_id: 'C0AGENTS',
      thread_ts: root,
      status: 'processing',
    });
    // Someone who can't see a DM has no Stop button in it.
    bolt.sandbox.workspace.channel('U0ALICE');
    const dmRoot = bolt.sandbox.workspace.post({ channel: 'D0ALICE', user: 'U0ALICE', text: 'hi' }).ts;
    await bolt.app.client.agents.sessions.setStatus({
      channel_id: 'D0ALICE',
      thread_ts: dmRoot,
      status: 'processing',
    });
    await expect(
      bolt.driver.stopAgentSession({ channel: 'D0ALICE', threadTs: dmRoot, user: 'U0BOB' }),
    ).rejects.toThrow('U0BOB cannot see D0ALICE');
    bolt.sandbox.setAgentFeatures('on', { stopEventSubscribed: false });
    try {
      await expect(
        bolt.driver.stopAgentSession({ channel: 'C0AGENTS', threadTs: root, user: 'U0ALICE' }),
      ).rejects.toThrow('does not subscribe to agent_session_stopped');
    } finally {
      bolt.sandbox.setAgentFeatures('on', { stopEventSubscribed: true });
    }
  });

  it('reaches a bot in Socket Mode as an events_api envelope', async () => {
    const { root } = await processingSession();
    const opened = (await (
      await fetch(`${bolt.sandbox.apiUrl}apps.connections.open`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bolt.sandbox.appToken}` },
      })
    ).json()) as { url: string };
    const ws = new WebSocket(opened.url);
    const payloads: unknown[] = [];
    ws.on('message', (data) => {
      const envelope = JSON.parse(String(data)) as { type: string; envelope_id?: string; payload: unknown };
      if (envelope.type !== 'events_api') return;
      payloads.push(envelope.payload);
      ws.send(JSON.stringify({ envelope_id: envelope.envelope_id }));
    });
    await new Promise((r) => ws.once('open', r));
    try {
      await bolt.sandbox
        .socketDriver()
        .stopAgentSession({ channel: 'C0AGENTS', threadTs: root, user: 'U0ALICE' });
      expect(payloads[0]).toMatchObject({
        type: 'event_callback',
        team_id: 'T0SANDBOX',
        event: { type: 'agent_session_stopped', thread_ts: root, streaming_message_ts: expect.any(Array) },
      });
    } finally {
      ws.close();
    }
  });
});

describe('the Messages tab (agent view)', () => {
  it('opening it sends app_home_opened with tab messages; a suggested prompt becomes a new DM thread', async () => {
    const opened = await bolt.driver.openMessagesTab({ user: 'U0CAROL' });
    expect(opened.deliveries.map((d) => d.status)).toEqual([200]);
    expect(received.at(-1)).toMatchObject({
      type: 'app_home_opened',
      user: 'U0CAROL',
      channel: 'D0CAROL',
      tab: 'messages',
    });
    await bolt.sandbox.workspace.waitFor(() => bolt.sandbox.agent.prompts('D0CAROL'));
    expect(bolt.sandbox.agent.prompts('D0CAROL')?.prompts.map((p) => p.title)).toEqual([
      'Release notes',
      'Approval',
    ]);
    const said = await bolt.driver.clickSuggestedPrompt({ user: 'U0CAROL', title: 'Approval' });
    expect(said.message).toMatchObject({
      channel: 'D0CAROL',
      user: 'U0CAROL',
      text: 'start scenario:approval deploy',
    });
    expect(said.message.thread_ts).toBeUndefined();
    await bolt.sandbox.workspace.waitFor(() =>
      received.find((e) => e.text === 'start scenario:approval deploy'),
    );
    expect(received.at(-1)).toMatchObject({
      type: 'message',
      channel_type: 'im',
      text: 'start scenario:approval deploy',
    });
    const second = await bolt.driver.clickSuggestedPrompt({ user: 'U0CAROL' });
    expect(second.message.text).toBe('ship the release notes');
    expect(second.message.ts).not.toBe(said.message.ts);
    expect(() => bolt.driver.clickSuggestedPrompt({ user: 'U0CAROL', index: 5 })).toThrow(
      'no suggested prompt #5',
    );
  });
});
