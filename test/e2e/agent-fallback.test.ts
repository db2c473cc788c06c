import { describe, expect, it } from 'vitest';
import { ALICE, CHANNEL, useHarness } from './harness.js';

// A workspace without Slack's agent sessions: the sandbox answers as for an app that is no agent
// (`feature_disabled`, `not_agent_app`), and the bot falls back to its card and thread, once, for good.
const h = useHarness({ env: { AGENT_SLACK_SURFACE: 'auto' }, sandbox: { agent: { features: 'off' } } });

describe('the fallback to the card and thread', () => {
  it('is taken on Slack’s first refusal, shown on /healthz, and sessions go on as before', async () => {
    const { cardTs } = await h.start('scenario:complete write the summary');
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'completed, on the card');
    const body = (await (await fetch(`${h.bot.url}/healthz`)).json()) as Record<string, unknown>;
    expect(body.surface).toMatchObject({
      setting: 'auto',
      current: 'classic',
      refused: { method: 'agents.sessions.setStatus', error: 'feature_disabled' },
    });
    expect(h.sandbox.agent.session(CHANNEL, cardTs)).toBeUndefined();
    // Classic from then on: the Messages tab asks Slack for nothing.
    await h.driver.openMessagesTab({ user: ALICE });
    const second = await h.start('scenario:complete write another');
    await h.waitForCard(second.cardTs, (t) => /Completed/.test(t), 'the next one completes too');
    expect(h.sandbox.agent.prompts(h.sandbox.workspace.channel(ALICE)?.id as string)).toBeUndefined();
    // One refusal, then no agent method is asked again.
    const agentCalls = h.sandbox.workspace.apiCalls.filter((c) => /^agents\.|^assistant\./.test(c.method));
    expect(agentCalls.map((c) => [c.method, c.error])).toEqual([
      ['agents.sessions.setStatus', 'feature_disabled'],
    ]);
  });
});
