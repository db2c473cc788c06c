import { describe, expect, it } from 'vitest';
import { BOB, CAROL, CHANNEL, textOf, useHarness } from './harness.js';
import { isPrompt } from './helpers.js';

// The default rule, as README and docs/bot.md tell it: anyone starts a session in a channel they are in;
// its starter and the approvers (Bob, under npm start) answer and steer it; Carol is in #general only.
const GENERAL = 'C0GENERAL';
const h = useHarness({ env: { AGENT_APPROVERS: BOB } });

describe('who may start, answer and steer under the default policy', () => {
  it('Carol can’t start a session in #agents, a channel she is not in; nothing is posted or started', async () => {
    expect(h.sandbox.workspace.members(CHANNEL)).not.toContain(CAROL);
    const before = (await h.emulator.admin.sessions()).length;
    const cards = (h.sandbox.workspace.messages.get(CHANNEL) ?? []).length;
    await h.driver.command({ user: CAROL, channel: CHANNEL, text: 'start ship it' });
    await h.waitForEphemeral(CAROL, /You’re not in <#C0AGENTS>, so you can’t start a session there/);
    expect((await h.emulator.admin.sessions()).length).toBe(before);
    expect((h.sandbox.workspace.messages.get(CHANNEL) ?? []).length).toBe(cards);
  });

  it('in #general, where she is, Carol starts one; she can’t answer or steer Alice’s', async () => {
    await h.driver.command({ user: CAROL, channel: GENERAL, text: 'start scenario:complete tidy the docs' });
    await h.sandbox.workspace.waitFor(
      () =>
        (h.sandbox.workspace.messages.get(GENERAL) ?? []).find((m) =>
          /[Ss]tarted by <@U0CAROL>/.test(textOf(m)),
        ),
      { what: 'Carol’s card in #general' },
    );

    const { cardTs } = await h.start('scenario:approval deploy v2');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    await h.driver.act({ user: CAROL, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitForEphemeral(CAROL, /Only <@U0ALICE> or <@U0BOB> can do that/);
    const refusals = () => h.ephemeralsFor(CAROL).filter((t) => /Only <@U0ALICE> or <@U0BOB>/.test(t));
    await h.driver.act({ user: CAROL, channel: CHANNEL, ts: cardTs, actionId: 'session_pause' });
    await h.sandbox.workspace.waitFor(() => (refusals().length === 2 ? true : undefined), {
      what: 'Carol refused the Pause too',
    });
    // Bob, the approver, answers.
    await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitInThread(cardTs, (m) => /Approved by <@U0BOB>/.test(textOf(m)), 'approved by Bob');
    expect((await h.emulator.admin.sessions()).filter((x) => x.status === 'paused')).toEqual([]);
  });
});
