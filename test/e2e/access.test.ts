import { defaultSeed, type SandboxEphemeral, withExternalMember } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, CHANNEL, textOf, useHarness } from './harness.js';
import { actionIds, HUMAN_INPUT_ROUTE, isPrompt, SIGNAL_ROUTE } from './helpers.js';

// Who may read a session, and who counts as a channel member, through the sandbox with signed requests.
// #agents holds Alice, Bob and Dave — Dave of another organisation, there through Slack Connect; Carol is
// in #general only. No approvers: Bob is an ordinary member. AGENT_ALLOWED_CHANNELS allows #agents only,
// so a DM starts nothing, whichever way it is asked (the Messages tab, `/agent start` typed there).

const DAVE = 'U0DAVE';

describe('who sees a session, who counts as a member, where sessions start', () => {
  const h = useHarness({
    env: {
      AGENT_APPROVAL_POLICY: 'channel-members',
      AGENT_APPROVERS: '',
      AGENT_ALLOWED_CHANNELS: CHANNEL,
    },
    tuning: { policy: { membersTtlMs: 0 } },
    sandbox: { seed: withExternalMember(defaultSeed(), { id: DAVE, name: 'dave', channels: [CHANNEL] }) },
  });

  /** What `/agent <text>` answers `user` privately (through the response URL), run in `channel`. */
  async function ask(user: string, text: string, channel = CHANNEL): Promise<SandboxEphemeral> {
    const ws = h.sandbox.workspace;
    const before = ws.ephemerals.length;
    const response = await h.driver.command({ user, channel, text });
    expect(response.status).toBe(200);
    return ws.waitFor(() => ws.ephemerals.slice(before).find((e) => e.user === user), {
      what: `the answer to /agent ${text} for ${user}`,
    });
  }

  it('status and history: a member outside the session’s channel gets the not-found answer; a member inside gets it', async () => {
    const { sessionId } = await h.start('scenario:approval deploy v2.3.1 to production');
    const missing = 'sess_does_not_exist';
    const notFound = (id: string) => `There is no session \`${id}\` that you can see.`;

    for (const outsider of [CAROL, DAVE]) {
      expect((await ask(outsider, `status ${sessionId}`)).text).toBe(notFound(sessionId));
      expect((await ask(outsider, `status ${missing}`)).text).toBe(notFound(missing));
      expect((await ask(outsider, `history ${sessionId}`)).text).toBe(notFound(sessionId));
      expect((await ask(outsider, `history ${missing}`)).text).toBe(notFound(missing));
    }

    const status = await ask(BOB, `status ${sessionId}`);
    expect(JSON.stringify(status.blocks)).toContain(sessionId);
    expect(status.text).not.toBe(notFound(sessionId));
    const history = await ask(BOB, `history ${sessionId}`);
    expect(history.text).toContain(`*History of session \`${sessionId}\`*`);
    expect(history.text).toContain('<@U0ALICE> started the session');
  });

  it('cancel and redirect by command: an outsider hears what an unknown id gets, and no signal is sent', async () => {
    const { sessionId, cardTs } = await h.start('scenario:long keep indexing --max-iterations 100000');
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    const missing = 'sess_does_not_exist';
    const notFound = (id: string) => `⚠️ There is no session \`${id}\` that you can see.`;
    const signals = async () => (await h.emulator.admin.stats()).requests[SIGNAL_ROUTE] ?? 0;
    const before = await signals();

    for (const outsider of [CAROL, DAVE]) {
      for (const id of [sessionId, missing]) {
        expect((await ask(outsider, `cancel ${id}`)).text).toBe(notFound(id));
        expect((await ask(outsider, `redirect ${id} look elsewhere`)).text).toBe(notFound(id));
      }
    }
    expect(await signals()).toBe(before);
    // Not cancelled (the agent may have paused by itself meanwhile, at its iteration limit, on a busy machine).
    expect((await h.emulator.admin.session(sessionId))?.status).not.toBe('cancelled');
    expect(textOf(h.card(cardTs))).not.toMatch(/Cancelled/);
    expect(h.thread(cardTs).some((m) => /cancelled|redirected/.test(textOf(m)))).toBe(false);

    // Bob, a member of #agents, may see the session and (under channel-members) act on it.
    expect((await ask(BOB, `redirect ${sessionId} look elsewhere`)).text).toBe('↪️ Redirected.');
    expect(await signals()).toBe(before + 1);
  });

  it('Slack Connect: a member from another organisation can’t answer, though Slack lists him in the channel', async () => {
    const { cardTs } = await h.start('scenario:approval rotate the staging keys');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    expect(h.sandbox.workspace.members(CHANNEL)).toContain(DAVE);
    const humanInputPosts = async () => (await h.emulator.admin.stats()).requests[HUMAN_INPUT_ROUTE] ?? 0;
    const before = await humanInputPosts();
    await h.driver.act({ user: DAVE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitForEphemeral(DAVE, /Only members of <#C0AGENTS>/);
    expect(await humanInputPosts()).toBe(before);
    expect(actionIds(h.thread(cardTs).find((m) => m.ts === prompt.ts))).toContain('input_approve');

    await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /Approved by <@U0BOB>/.test(textOf(m)),
      'approved by Bob',
    );
  });

  it('a DM is held to AGENT_ALLOWED_CHANNELS both ways: the Messages tab and /agent start there agree', async () => {
    const ws = h.sandbox.workspace;
    const refusal = "Agent sessions can't be started in direct messages. Allowed: <#C0AGENTS>.";
    const byCommand = await ask(ALICE, 'start summarise my week', ALICE); // in her DM with the bot
    expect(byCommand.text).toBe(`⚠️ ${refusal}`);
    const before = ws.ephemerals.length;
    await h.driver.dm({ user: ALICE, text: 'summarise my week' });
    const byMessage = await ws.waitFor(
      () => ws.ephemerals.slice(before).find((e) => e.user === ALICE && e.channel === 'D0ALICE'),
      { what: 'the refusal in the DM' },
    );
    expect(byMessage.text).toBe(`⚠️ ${refusal}`);
    // Neither posted a card: the DM holds only what Alice wrote.
    expect((ws.messages.get('D0ALICE') ?? []).filter((m) => m.bot_id)).toEqual([]);
  });
});
