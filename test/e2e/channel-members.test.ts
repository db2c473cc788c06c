import { describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, CHANNEL, textOf, useHarness } from './harness.js';
import { actionIds, HUMAN_INPUT_ROUTE, isPrompt } from './helpers.js';

// AGENT_APPROVAL_POLICY=channel-members through the sandbox: who is in #agents is what the sandbox's
// conversations.members says (Alice and Bob; Carol is in #general only). No approvers are configured,
// so Bob answers as a member and nothing else. The bot keeps a member list a minute in production; this
// one is tuned to read it on every check, so a join or a leave counts at once without waiting a minute.

const MINUTE = 60_000;
/** The reminders' clock, moved by the test. */
const clock = { at: Date.now(), now: () => new Date(clock.at) };

describe('AGENT_APPROVAL_POLICY=channel-members: anyone in the session’s channel answers', () => {
  const h = useHarness({
    env: {
      AGENT_APPROVAL_POLICY: 'channel-members',
      AGENT_APPROVERS: '',
      AGENT_REMIND_AFTER: '15m',
      AGENT_REMIND_MAX: '1',
    },
    tuning: { reminders: { now: clock.now, tickMs: 100 }, policy: { membersTtlMs: 0 } },
  });
  const humanInputPosts = async () => (await h.emulator.admin.stats()).requests[HUMAN_INPUT_ROUTE] ?? 0;
  const membersCalls = () =>
    h.sandbox.workspace.apiCalls.filter((c) => c.method === 'conversations.members' && c.ok).length;

  it('a non-member is refused privately with the reason and nothing reaches the service; a member answers', async () => {
    const { cardTs } = await h.start('scenario:approval deploy v2.3.1 to production');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    expect(textOf(prompt)).toContain('Anyone in <#C0AGENTS> can answer');

    const before = await humanInputPosts();
    const readsBefore = membersCalls();
    await h.driver.act({ user: CAROL, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    const refusal = await h.waitForEphemeral(CAROL, /Only members of <#C0AGENTS>/);
    expect(refusal).toMatch(/where this session runs/);
    expect(membersCalls()).toBeGreaterThan(readsBefore); // asked of Slack, not guessed from the click
    expect(await humanInputPosts()).toBe(before);
    expect(actionIds(h.thread(cardTs).find((m) => m.ts === prompt.ts))).toContain('input_approve');
    // Refused in private: the thread says nothing of it.
    expect(h.thread(cardTs).some((m) => /Only members/.test(textOf(m)))).toBe(false);

    await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /Approved by <@U0BOB>/.test(textOf(m)),
      'approved by Bob',
    );
    expect(await humanInputPosts()).toBe(before + 1);
  });

  it('a reminder pings the starter and says in words that the channel may answer: no @here', async () => {
    const { cardTs } = await h.start('scenario:approval rotate the staging keys');
    await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    await h.bot.store.reminders.schedule(clock.now(), 15 * MINUTE, undefined);
    clock.at += 16 * MINUTE;
    const reminder = await h.waitInThread(cardTs, (m) => /Reminder 1 of 1/.test(textOf(m)), 'the reminder');
    expect(reminder.text).toMatch(
      /^⏰ Reminder 1 of 1: <@U0ALICE> the agent is still waiting for an answer to “.+”\. Anyone in <#C0AGENTS> can answer\.$/,
    );
    expect(textOf(reminder)).not.toMatch(/<!here|<!channel|<!everyone/);
  });

  it('membership is read from Slack: someone who joins may answer, someone who left may not', async () => {
    const ws = h.sandbox.workspace;
    const { cardTs } = await h.start('scenario:approval publish the changelog');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    const before = await humanInputPosts();

    ws.leave(CHANNEL, BOB);
    ws.join(CHANNEL, CAROL, ALICE);
    try {
      await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
      await h.waitForEphemeral(BOB, /Only members of <#C0AGENTS>/);
      expect(await humanInputPosts()).toBe(before);

      await h.driver.act({ user: CAROL, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
      await h.waitInThread(
        cardTs,
        (m) => m.ts === prompt.ts && /Approved by <@U0CAROL>/.test(textOf(m)),
        'approved by Carol',
      );
      expect(await humanInputPosts()).toBe(before + 1);
    } finally {
      ws.leave(CHANNEL, CAROL);
      ws.join(CHANNEL, BOB);
    }
  });
});
