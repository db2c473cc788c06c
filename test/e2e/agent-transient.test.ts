import { describe, expect, it } from 'vitest';
import { BOB, CHANNEL, useHarness, WAIT_MS } from './harness.js';
import { isPrompt } from './helpers.js';

// Slack busy, down or slow: a 5xx, `ratelimited`, `fatal_error` or a lost connection on an agent
// method says nothing about the feature, so the surface stays `agent` (/healthz) and the session's status
// reaches Slack at its next change.
const h = useHarness({ env: { AGENT_SLACK_SURFACE: 'auto' } });

describe('transient answers from Slack', () => {
  it('never flip the surface to classic; the status catches up', async () => {
    const method = 'agents.sessions.setStatus';
    h.sandbox.failNext({ method, error: 'internal_error', status: 500 });
    h.sandbox.failNext({ method, error: 'ratelimited' });
    h.sandbox.failNext({ method, error: 'fatal_error' });
    h.sandbox.failNext({ method: 'chat.startStream', error: 'service_unavailable', status: 503 });
    const { cardTs } = await h.start('scenario:approval ship despite the weather');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    await h.sandbox.agent.waitForStatus(CHANNEL, cardTs, 'suspended', { timeoutMs: WAIT_MS });
    await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.sandbox.agent.waitForStatus(CHANNEL, cardTs, 'closed', { timeoutMs: WAIT_MS });
    const failed = h.sandbox.workspace.apiCalls
      .filter((c) => c.method === method && !c.ok)
      .map((c) => c.error);
    expect(failed).toEqual(expect.arrayContaining(['internal_error', 'ratelimited', 'fatal_error']));
    const body = (await (await fetch(`${h.bot.url}/healthz`)).json()) as {
      surface?: Record<string, unknown>;
    };
    expect(body.surface).toEqual({ setting: 'auto', current: 'agent' });
  });
});
