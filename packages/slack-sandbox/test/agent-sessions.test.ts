import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentOptionsFromEnv } from '../src/agent/options.js';
import { type RunningSandbox, startSandbox } from '../src/index.js';
import { botClient } from './bot-client.js';

// agents.sessions.* and assistant.threads.*, driven by Slack's own WebClient (8.2.0 types the arguments),
// answered with the errors their reference pages list; and the switch for a workspace without them.
let sandbox: RunningSandbox;
let client: WebClient;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: false });
  client = botClient(sandbox);
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(() => {
  sandbox.setAgentFeatures('on', { stopEventSubscribed: true });
});

const slackError = async (call: Promise<unknown>) =>
  ((await call.catch((e) => e)) as { data?: Record<string, unknown> }).data;

async function thread(channel = 'C0AGENTS'): Promise<string> {
  const root = await client.chat.postMessage({ channel, text: 'a question for the agent' });
  return root.ts as string;
}

describe('agents.sessions.setStatus', () => {
  it('creates the session with its title and initiator, then changes only its status', async () => {
    const ts = await thread();
    const first = await client.agents.sessions.setStatus({
      channel_id: 'C0AGENTS',
      thread_ts: ts,
      status: 'processing',
      title: 'ship the release notes',
      initiator_user_id: 'U0ALICE',
    });
    expect(first).toMatchObject({ ok: true, status: 'processing', title: 'ship the release notes' });
    expect(first.warning).toBeUndefined();
    // title and initiator count only at creation: later they are ignored, as Slack documents.
    await client.agents.sessions.setStatus({
      channel_id: 'C0AGENTS',
      thread_ts: ts,
      status: 'suspended',
      title: 'another title',
      initiator_user_id: 'U0BOB',
    });
    const session = sandbox.agent.session('C0AGENTS', ts);
    expect(session).toMatchObject({
      status: 'suspended',
      title: 'ship the release notes',
      initiator: 'U0ALICE',
    });
    expect(session?.history.map((h) => h.status)).toEqual(['processing', 'suspended']);
    expect(session?.history.every((h) => h.via === 'agents.sessions.setStatus')).toBe(true);
  });

  it('refuses what its reference page lists', async () => {
    const ts = await thread();
    const set = (args: Record<string, unknown>) =>
      slackError(
        client.agents.sessions.setStatus({
          channel_id: 'C0AGENTS',
          thread_ts: ts,
          status: 'active',
          ...args,
        }),
      );
    expect(await set({ status: 'thinking' })).toMatchObject({ error: 'invalid_status' });
    expect(await set({ thread_ts: undefined })).toMatchObject({ error: 'thread_ts_required' });
    expect(await set({ channel_id: 'C0NOPE' })).toMatchObject({ error: 'channel_not_found' });
    // The bot is not in #random: "The caller is not a member of the specified channel".
    expect(await set({ channel_id: 'C0RANDOM' })).toMatchObject({ error: 'not_authorized' });
    // Carol is not in #agents; U0NOBODY does not exist.
    expect(await set({ initiator_user_id: 'U0CAROL' })).toMatchObject({ error: 'user_not_found' });
    expect(await set({ initiator_user_id: 'U0NOBODY' })).toMatchObject({ error: 'user_not_found' });
    const long = await set({ title: 'x'.repeat(201) });
    expect(long).toMatchObject({ error: 'invalid_arguments' });
    expect(JSON.stringify(long)).toContain('title must be at most 200 characters');
    expect(await set({ thread_ts: '1.000001' })).toMatchObject({ error: 'thread_not_found' });
    expect(sandbox.agent.session('C0AGENTS', ts)).toBeUndefined();
  });

  it('works in the DM with a person, and warns when the app has no agent_session_stopped subscription', async () => {
    const dm = (await client.conversations.open({ users: 'U0ALICE' })).channel?.id as string;
    const ts = await thread(dm);
    sandbox.setAgentFeatures('on', { stopEventSubscribed: false });
    const res = await client.agents.sessions.setStatus({
      channel_id: dm,
      thread_ts: ts,
      status: 'processing',
    });
    expect(res).toMatchObject({ ok: true, warning: 'missing_agent_session_stopped_event_subscription' });
    expect(res.response_metadata?.warnings).toEqual(['missing_agent_session_stopped_event_subscription']);
  });
});

describe('agents.sessions.rename', () => {
  it('renames a session, and refuses one that does not exist', async () => {
    const ts = await thread();
    expect(
      await slackError(client.agents.sessions.rename({ channel_id: 'C0AGENTS', thread_ts: ts, title: 'x' })),
    ).toMatchObject({ error: 'session_not_found' });
    await client.agents.sessions.setStatus({
      channel_id: 'C0AGENTS',
      thread_ts: ts,
      status: 'processing',
      title: 'a',
    });
    expect(
      await client.agents.sessions.rename({ channel_id: 'C0AGENTS', thread_ts: ts, title: 'b' }),
    ).toMatchObject({
      ok: true,
      title: 'b',
    });
    expect(sandbox.agent.session('C0AGENTS', ts)).toMatchObject({ title: 'b', renames: ['b'] });
    expect(
      await slackError(client.agents.sessions.rename({ channel_id: 'C0AGENTS', title: 'c' })),
    ).toMatchObject({ error: 'thread_ts_required' });
    expect(
      await slackError(client.agents.sessions.rename({ channel_id: 'C0AGENTS', thread_ts: ts, title: '' })),
    ).toMatchObject({ error: 'invalid_arguments' });
  });
});

describe('assistant.threads.* for agent view', () => {
  it('keeps suggested prompts for the DM, a thread title and status', async () => {
    const dm = (await client.conversations.open({ users: 'U0BOB' })).channel?.id as string;
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: dm,
      title: 'Try',
      prompts: [{ title: 'Release notes', message: 'ship the release notes' }],
    });
    expect(sandbox.agent.prompts(dm)).toMatchObject({ title: 'Try', prompts: [{ title: 'Release notes' }] });
    const ts = await thread(dm);
    await client.assistant.threads.setTitle({ channel_id: dm, thread_ts: ts, title: 'Release notes' });
    await client.assistant.threads.setStatus({ channel_id: dm, thread_ts: ts, status: 'is thinking…' });
    expect(sandbox.agent.assistantThread(dm, ts)).toMatchObject({
      title: 'Release notes',
      status: 'is thinking…',
    });
    // The app's reply in the thread clears the status, as in Slack.
    await client.chat.postMessage({ channel: dm, thread_ts: ts, text: 'Here they are' });
    expect(sandbox.agent.assistantThread(dm, ts)).toMatchObject({ title: 'Release notes', status: '' });
    expect(
      await slackError(
        client.assistant.threads.setTitle({ channel_id: dm, thread_ts: '1.000001', title: 'x' }),
      ),
    ).toMatchObject({ error: 'invalid_thread_ts' });
    const bad = await slackError(
      client.assistant.threads.setSuggestedPrompts({
        channel_id: dm,
        prompts: [{ title: 'x', message: '' }],
      }),
    );
    expect(JSON.stringify(bad)).toContain('prompts[0].message must be a non-empty string');
  });
});

describe('a workspace without the agent platform', () => {
  it('off: sessions are feature_disabled, prompts not_agent_app, titles a missing scope; streams still work', async () => {
    const ts = await thread();
    sandbox.setAgentFeatures('off');
    expect(
      await slackError(
        client.agents.sessions.setStatus({ channel_id: 'C0AGENTS', thread_ts: ts, status: 'active' }),
      ),
    ).toMatchObject({ error: 'feature_disabled' });
    expect(
      await slackError(client.agents.sessions.rename({ channel_id: 'C0AGENTS', thread_ts: ts, title: 'x' })),
    ).toMatchObject({ error: 'feature_disabled' });
    expect(
      await slackError(
        client.assistant.threads.setSuggestedPrompts({
          channel_id: 'C0AGENTS',
          prompts: [{ title: 'a', message: 'b' }],
        }),
      ),
    ).toMatchObject({ error: 'not_agent_app' });
    expect(
      await slackError(
        client.assistant.threads.setTitle({ channel_id: 'C0AGENTS', thread_ts: ts, title: 'x' }),
      ),
    ).toMatchObject({ error: 'missing_scope', needed: 'assistant:write' });
    const stream = await client.chat.startStream({
      channel: 'C0AGENTS',
      thread_ts: ts,
      recipient_user_id: 'U0ALICE',
      recipient_team_id: 'T0SANDBOX',
      markdown_text: 'hello',
    });
    expect(stream.ok).toBe(true);
  });

  it('unknown: a Slack without these methods answers unknown_method for each', async () => {
    sandbox.setAgentFeatures('unknown');
    const ts = await thread();
    for (const call of [
      client.agents.sessions.setStatus({ channel_id: 'C0AGENTS', thread_ts: ts, status: 'active' }),
      client.chat.startStream({ channel: 'C0AGENTS', thread_ts: ts, markdown_text: 'x' }),
      client.assistant.threads.setTitle({ channel_id: 'C0AGENTS', thread_ts: ts, title: 'x' }),
    ])
      expect(await slackError(call)).toMatchObject({ error: 'unknown_method' });
    // Everything else is as before.
    expect((await client.chat.postMessage({ channel: 'C0AGENTS', text: 'still here' })).ok).toBe(true);
  });

  it('is set from the environment and over /sandbox/agent-features', async () => {
    const other = await startSandbox({ rateLimits: false, agent: { features: 'off' } });
    try {
      expect(other.agent.features).toBe('off');
      const res = await fetch(`${other.url}/sandbox/agent-features`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ features: 'unknown', stopEventSubscribed: false }),
      });
      expect(await res.json()).toEqual({
        ok: true,
        result: { features: 'unknown', stopEventSubscribed: false },
      });
      const bad = await fetch(`${other.url}/sandbox/agent-features`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ features: 'maybe' }),
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toBe(
        'features must be one of on, off, unknown, got "maybe"',
      );
    } finally {
      await other.close();
    }
  });

  it('reads SANDBOX_AGENT_FEATURES / SANDBOX_AGENT_STOP_EVENT, and the CLI takes --agent-features', async () => {
    expect(
      agentOptionsFromEnv({ SANDBOX_AGENT_FEATURES: 'unknown', SANDBOX_AGENT_STOP_EVENT: 'off' }),
    ).toEqual({
      features: 'unknown',
      stopEventSubscribed: false,
    });
    expect(() => agentOptionsFromEnv({ SANDBOX_AGENT_STOP_EVENT: 'no' })).toThrow(
      'SANDBOX_AGENT_STOP_EVENT must be "on" or "off", got "no"',
    );
    const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
    const child = spawn(process.execPath, [cli, '--agent-features', 'sometimes'], {
      env: { PATH: process.env.PATH ?? '', SANDBOX_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('--agent-features must be one of on, off, unknown, got "sometimes"');
  });
});
