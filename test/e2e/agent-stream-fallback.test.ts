import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { textOf, useHarness } from './harness.js';
import { duplicates, postKeys } from './helpers.js';

// A Slack without streams: the sandbox answers `unknown_method` for every agent method, and the bot
// is told to use the agent surface all the same (AGENT_SLACK_SURFACE=agent keeps asking). The first
// refused chat.startStream sends the session's chatter to its thread the classic way, from what each message
// was recorded with: every agent message there exactly once, none streamed.
const h = useHarness({ env: { AGENT_SLACK_SURFACE: 'agent' }, sandbox: { agent: { features: 'unknown' } } });

const streamed = (m: SandboxMessage) => (m as { streaming_state?: string }).streaming_state !== undefined;

it(
  'a refused stream: the session goes on in its thread, each message once, nothing streamed',
  async () => {
    const { sessionId, cardTs } = await h.start('scenario:chatty review without streams');
    await h.waitInThread(
      cardTs,
      (m) => /Reviewed 24 modules/.test(textOf(m)),
      'the final report',
      patient(120_000),
    );
    const thread = h.thread(cardTs);
    expect(thread.some(streamed)).toBe(false);
    const calls = h.sandbox.workspace.apiCalls.filter((c) => c.method === 'chat.startStream');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.error === 'unknown_method')).toBe(true);
    const keys = postKeys(thread);
    expect(duplicates(keys)).toEqual([]);
    const written =
      (await h.emulator.admin.sessions()).find((s) => s.sessionId === sessionId)?.messageCount ?? 0;
    const messages = new Set(keys.filter((k) => k.startsWith('msg:')).map((k) => k.replace(/~\d+$/, '')));
    const uploads = thread.filter((m) => /too long for a message/.test(m.text ?? ''));
    expect(written).toBeGreaterThanOrEqual(72);
    expect(messages.size + uploads.length).toBe(written);
  },
  patient(180_000),
);
