import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { patient } from '../support/patience.js';
import {
  ALICE,
  allLogLines,
  BOB,
  CAROL,
  CHANNEL,
  type Harness,
  SETUP_TIMEOUT_MS,
  startHarness,
  textOf,
} from './harness.js';
import { actionIds, HUMAN_INPUT_ROUTE, isPrompt, SIGNAL_ROUTE } from './helpers.js';

// Approvals through the sandbox: who may decide, reminders and escalation on a clock the test moves,
// each timeout action, the history command and GET /audit. Every interaction is signed HTTP, as Slack
// sends it; the bot talks to a real emulator over HTTP.

const AUDIT_TOKEN = 'audit-token-for-the-e2e-run-7f3a';
const WRONG_TOKEN = 'wrong-token-that-must-not-be-logged-91c2';
const MINUTE = 60_000;

/** A clock the test moves: reminders and timeouts fire when it says so, not when time passes. */
function testClock() {
  const clock = { at: Date.now(), now: () => new Date(clock.at), advance: (ms: number) => (clock.at += ms) };
  return clock;
}

/** A harness per configuration (the policy and timeouts are read once, as in production). */
function withBot(env: Record<string, string>, clock?: ReturnType<typeof testClock>) {
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(
      h,
      await startHarness({
        env,
        ...(clock ? { tuning: { reminders: { now: clock.now, tickMs: 100 } } } : {}),
      }),
    );
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await h.stop?.();
  });
  return h;
}

const count = (messages: SandboxMessage[], pattern: RegExp) =>
  messages.filter((m) => pattern.test(textOf(m))).length;

describe('four eyes (AGENT_APPROVAL_POLICY=approvers-only) and the record of decisions', () => {
  const h = withBot({ AGENT_APPROVAL_POLICY: 'approvers-only', AGENT_REMIND_AFTER: '0', AUDIT_TOKEN });
  const humanInputPosts = async () => (await h.emulator.admin.stats()).requests[HUMAN_INPUT_ROUTE] ?? 0;

  /**
   * A session of its own for each test: Alice starts it, her click on its approval is refused, Bob approves
   * it. Returned once the prompt says so.
   */
  async function decided(goal: string): Promise<{ sessionId: string; cardTs: string }> {
    const session = await h.start(`scenario:approval ${goal}`);
    const prompt = await h.waitInThread(session.cardTs, isPrompt, 'the approval prompt');
    const ws = h.sandbox.workspace;
    const alices = () => ws.ephemerals.filter((e) => e.user === ALICE && /second person/.test(e.text ?? ''));
    const refusals = alices().length;
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await ws.waitFor(() => alices().length > refusals || undefined, { what: 'Alice refused' });
    await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitInThread(
      session.cardTs,
      (m) => m.ts === prompt.ts && /Approved by <@U0BOB>/.test(textOf(m)),
      'approved by Bob',
    );
    return session;
  }

  it('the starter is refused on an approval, privately, told who may answer; an approver succeeds', async () => {
    const session = await h.start('scenario:approval deploy v2.3.1 to production');
    const prompt = await h.waitInThread(session.cardTs, isPrompt, 'the approval prompt');
    expect(textOf(prompt)).toContain('Waiting for an approver: <!subteam^S0APPROVERS>');

    const before = await humanInputPosts();
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    const refusal = await h.waitForEphemeral(ALICE, /second person/);
    expect(refusal).toContain('<!subteam^S0APPROVERS>');
    expect(await humanInputPosts()).toBe(before);
    expect(actionIds(h.thread(session.cardTs).find((m) => m.ts === prompt.ts))).toContain('input_approve');

    // A bystander is refused too; the approver (by user group) decides.
    await h.driver.act({ user: CAROL, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitForEphemeral(CAROL, /Only <!subteam\^S0APPROVERS> can answer/);
    await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitInThread(
      session.cardTs,
      (m) => m.ts === prompt.ts && /Approved by <@U0BOB>/.test(textOf(m)),
      'approved by Bob',
    );
    expect(await humanInputPosts()).toBe(before + 1);
    // The card's footer shows the latest decision.
    await h.waitForCard(
      session.cardTs,
      (t) => /Latest decision: <@U0BOB> answered: Approved/.test(t),
      'the decision on the card',
    );
  });

  it('while an approval waits, the starter can’t redirect past it: by command or button, refused privately', async () => {
    const waiting = await h.start('scenario:approval drop the old tables');
    const prompt = await h.waitInThread(waiting.cardTs, isPrompt, 'the approval prompt');
    const signals = async () => (await h.emulator.admin.stats()).requests[SIGNAL_ROUTE] ?? 0;
    const before = await signals();
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `redirect ${waiting.sessionId} skip it` });
    const byCommand = await h.waitForEphemeral(ALICE, /An approval is waiting in this session/);
    expect(byCommand).toContain('<!subteam^S0APPROVERS> must approve or reject it before you can redirect');
    const opened = h.driver.openModal(ALICE);
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: waiting.cardTs, actionId: 'session_redirect' });
    await h.waitForEphemeral(ALICE, /^🚫 An approval is waiting/);
    expect(h.driver.openModal(ALICE)).toBe(opened); // no form opened
    expect(await signals()).toBe(before);
    // An approver may redirect: the decision is theirs anyway.
    await h.driver.command({ user: BOB, channel: CHANNEL, text: `redirect ${waiting.sessionId} go on` });
    await h.waitForEphemeral(BOB, /Redirected\./);
    expect(await signals()).toBe(before + 1);
    expect(actionIds(h.thread(waiting.cardTs).find((m) => m.ts === prompt.ts))).toContain('input_approve');
  });

  it('the starter still steers: pause and resume are theirs', async () => {
    const steered = await h.start('scenario:long count the files --max-iterations 100000');
    const statusOf = async () => (await h.emulator.admin.session(steered.sessionId))?.status;
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `pause ${steered.sessionId}` });
    await h.waitForEphemeral(ALICE, /Paused\./);
    expect(await statusOf()).toBe('paused');
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `cancel ${steered.sessionId}` });
    await h.waitForEphemeral(ALICE, /Cancelled\./);
    expect(await statusOf()).toBe('cancelled');
  });

  it('/agent history shows who started and who decided, only to the one who asked, if they may see it', async () => {
    const session = await decided('deploy v2.3.1 to production');
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `history ${session.sessionId}` });
    const history = await h.waitForEphemeral(ALICE, /History of session/);
    expect(history).toMatch(/<@U0ALICE> started the session: scenario:approval deploy v2\.3\.1/);
    expect(history).toMatch(/<@U0BOB> answered: Approved/);
    // The refusals are not actions on the session: nothing of Alice's click is recorded.
    expect(history).not.toMatch(/<@U0ALICE> answered/);
    expect(
      h.sandbox.workspace.replies(CHANNEL, session.cardTs).some((m) => /History of/.test(textOf(m))),
    ).toBe(false);
    // Carol is not in #agents: to her the session does not exist.
    await h.driver.command({ user: CAROL, channel: CHANNEL, text: `history ${session.sessionId}` });
    await h.waitForEphemeral(CAROL, /^There is no session `[^`]+` that you can see\.$/);
    await h.driver.command({ user: CAROL, channel: CHANNEL, text: 'history' });
    await h.waitForEphemeral(CAROL, /the session id is missing/);
  });

  it('GET /audit: JSON lines with the right token; 401 with a wrong or no token, the token never logged', async () => {
    const session = await decided('roll out the new schema');
    const url = `${h.bot.url}/audit?sessionId=${encodeURIComponent(session.sessionId)}`;
    const ok = await fetch(url, { headers: { authorization: `Bearer ${AUDIT_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await ok.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.action)).toEqual(['start', 'answer']);
    expect(lines[0]).toMatchObject({ userId: ALICE, teamId: 'T0SANDBOX', channelId: CHANNEL, outcome: 'ok' });
    expect(lines[1]).toMatchObject({
      userId: BOB,
      teamId: 'T0SANDBOX',
      channelId: CHANNEL,
      threadTs: session.cardTs,
      sessionId: session.sessionId,
      detail: { kind: 'approval', answer: { approved: true } },
      outcome: 'ok',
    });
    expect(typeof lines[1]?.inputId).toBe('string');

    const since = await fetch(`${url}&since=${encodeURIComponent(String(lines[1]?.at))}`, {
      headers: { authorization: `Bearer ${AUDIT_TOKEN}` },
    });
    expect((await since.text()).trim().split('\n')).toHaveLength(1);
    const badSince = await fetch(`${url}&since=yesterday`, {
      headers: { authorization: `Bearer ${AUDIT_TOKEN}` },
    });
    expect(badSince.status).toBe(400);
    expect(await badSince.text()).toMatch(/since must be an ISO 8601 time/);

    const wrong = await fetch(url, { headers: { authorization: `Bearer ${WRONG_TOKEN}` } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('start');
    const none = await fetch(url);
    expect(none.status).toBe(401);
    expect(allLogLines.filter((l) => l.includes(WRONG_TOKEN) || l.includes(AUDIT_TOKEN))).toEqual([]);
  });
});

describe('reminders and escalation, on a clock the test moves', () => {
  const clock = testClock();
  const h = withBot(
    {
      AGENT_REMIND_AFTER: '15m',
      AGENT_REMIND_MAX: '2',
      AGENT_ESCALATE_TO: 'S0APPROVERS',
      AGENT_QUESTION_TIMEOUT: '3h',
      AGENT_ON_TIMEOUT: 'leave',
    },
    clock,
  );

  it('reminds in the thread and by DM with a link, twice with a growing gap, then escalates; times out by leaving it open', async () => {
    const { sessionId, cardTs } = await h.start('scenario:approval rotate the production keys');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    // The DM links to the prompt by its saved ts, which the bot writes just after Slack answers the post.
    const savedTs = async () => (await h.bot.store.prompts.pending(sessionId))[0]?.messageTs;
    await expect.poll(savedTs, { timeout: patient(5_000) }).toBe(prompt.ts);
    // The schedule starts when the bot sees the question waiting; then 15 minutes pass.
    await h.bot.store.reminders.schedule(clock.now(), 15 * MINUTE, 3 * 60 * MINUTE);
    clock.advance(16 * MINUTE);
    const first = await h.waitInThread(
      cardTs,
      (m) => /Reminder 1 of 2/.test(textOf(m)),
      'the first reminder',
    );
    expect(textOf(first)).toContain('<@U0ALICE>');
    expect(textOf(first)).toContain('<!subteam^S0APPROVERS>');
    const dm = await h.sandbox.workspace.waitFor(
      () => (h.sandbox.workspace.messages.get('D0ALICE') ?? []).find((m) => /still waiting/.test(textOf(m))),
      { what: 'the DM to the starter' },
    );
    expect(textOf(dm)).toContain(`/archives/${CHANNEL}/p${prompt.ts.replace('.', '')}`);

    // The next gap is twice as long: 30 minutes.
    clock.advance(31 * MINUTE);
    await h.waitInThread(cardTs, (m) => /Reminder 2 of 2/.test(textOf(m)), 'the second reminder');
    clock.advance(61 * MINUTE);
    await h.waitInThread(cardTs, (m) => /Escalated to <!subteam\^S0APPROVERS>/.test(textOf(m)), 'escalation');
    clock.advance(2 * 60 * MINUTE);
    await h.waitInThread(cardTs, (m) => /No answer after 3h/.test(textOf(m)), 'the timeout note');

    const thread = h.thread(cardTs);
    expect(count(thread, /Reminder 1 of 2/)).toBe(1);
    expect(count(thread, /Reminder 2 of 2/)).toBe(1);
    expect(count(thread, /Escalated to/)).toBe(1);
    expect(textOf(thread.find((m) => /No answer after 3h/.test(textOf(m))))).toMatch(/stays open/);
    // Each step counted for the alert on questions waiting past their reminder (counted once sent).
    const stepsSent = async () =>
      Object.fromEntries(
        (await h.bot.metrics.questionReminders.get()).values.map((v) => [v.labels.step, v.value]),
      );
    await expect
      .poll(stepsSent, { timeout: patient(5_000) })
      .toEqual({ reminder: 2, escalation: 1, timeout: 1 });
    // Left open: still answerable, and answering ends the schedule.
    expect(actionIds(thread.find((m) => m.ts === prompt.ts))).toContain('input_approve');
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitInThread(cardTs, (m) => m.ts === prompt.ts && /Approved by/.test(textOf(m)), 'approved');
    clock.advance(24 * 60 * MINUTE);
    expect(await h.bot.store.reminders.claimDue(clock.now(), 3, 15 * MINUTE)).toEqual([]);
  });
});

describe('reminders of a session started by a mention', () => {
  const clock = testClock();
  const h = withBot(
    { AGENT_REMIND_AFTER: '15m', AGENT_REMIND_MAX: '1', AGENT_ESCALATE_TO: 'S0APPROVERS' },
    clock,
  );

  it('go in the mention’s thread, where the card and the question are, never under the card', async () => {
    const said = await h.driver.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'scenario:approval rotate the staging keys',
    });
    const inThread = () => h.sandbox.workspace.replies(CHANNEL, said.message.ts);
    await h.sandbox.workspace.waitFor(() => inThread().find(isPrompt), {
      what: 'the approval prompt in the mention’s thread',
    });
    await h.bot.store.reminders.schedule(clock.now(), 15 * MINUTE, undefined);
    clock.advance(16 * MINUTE);
    await h.sandbox.workspace.waitFor(() => inThread().find((m) => /Reminder 1 of 1/.test(textOf(m))), {
      what: 'the reminder in the mention’s thread',
    });
    clock.advance(31 * MINUTE);
    await h.sandbox.workspace.waitFor(() => inThread().find((m) => /Escalated to/.test(textOf(m))), {
      what: 'the escalation in the mention’s thread',
    });
    const card = inThread()[0] as SandboxMessage;
    expect(h.sandbox.workspace.replies(CHANNEL, card.ts)).toEqual([]);
  });
});

describe('escalating to a channel the bot cannot post in', () => {
  const clock = testClock();
  const h = withBot(
    { AGENT_REMIND_AFTER: '15m', AGENT_REMIND_MAX: '1', AGENT_ESCALATE_TO: 'G0PRIVATE' },
    clock,
  );

  it('the thread says the escalation failed and how to fix it, once; the schedule does not stall on it', async () => {
    const { sessionId, cardTs } = await h.start('scenario:approval purge the staging data');
    await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    const [prompt] = await h.bot.store.prompts.pending(sessionId);
    if (!prompt) throw new Error('no pending prompt in the store');
    await h.bot.store.reminders.schedule(clock.now(), 15 * MINUTE, undefined);
    clock.advance(16 * MINUTE);
    await h.waitInThread(cardTs, (m) => /Reminder 1 of 1/.test(textOf(m)), 'the reminder');
    clock.advance(31 * MINUTE);
    const note = await h.waitInThread(cardTs, (m) => /Escalating to/.test(textOf(m)), 'the failure note');
    expect(textOf(note)).toMatch(/Escalating to <#G0PRIVATE> failed \(Slack said channel_not_found\)/);
    expect(textOf(note)).toMatch(/Invite the bot to <#G0PRIVATE>, or change AGENT_ESCALATE_TO/);
    expect(h.sandbox.workspace.messages.get('G0PRIVATE') ?? []).toEqual([]);
    // The step counts as done: delivered, so no tick claims it again.
    await vi.waitFor(
      async () =>
        expect(await h.bot.store.reminders.progress(sessionId, prompt.inputId)).toEqual({
          claimed: 2,
          delivered: 2,
        }),
      { timeout: patient(10_000), interval: 100 },
    );
    expect(count(h.thread(cardTs), /Escalating to/)).toBe(1);
  });
});

describe('AGENT_ON_TIMEOUT=reject', () => {
  const clock = testClock();
  const h = withBot(
    { AGENT_REMIND_AFTER: '0', AGENT_QUESTION_TIMEOUT: '1h', AGENT_ON_TIMEOUT: 'reject' },
    clock,
  );

  it('an approval is rejected through the normal claim, with the reason, and the thread says why', async () => {
    const { sessionId, cardTs } = await h.start('scenario:approval drop the old tables');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    await h.bot.store.reminders.schedule(clock.now(), 0, 60 * MINUTE);
    clock.advance(61 * MINUTE);
    await h.waitInThread(cardTs, (m) => /rejected\* automatically/.test(textOf(m)), 'the timeout note');
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /Rejected by <@U0AGENTBOT>/.test(textOf(m)),
      'the prompt',
    );
    await h.waitInThread(
      cardTs,
      (m) => /Reason noted: No answer within 1h/.test(textOf(m)),
      'the agent quoting it',
    );
    const records = await h.bot.store.audit.list({ sessionId });
    expect(records.map((r) => r.action)).toEqual(['start', 'reject', 'timeout']);
  });

  it('a question that is not an approval is left open, and the thread says reject applies to approvals only', async () => {
    const { cardTs } = await h.start('scenario:free_text name the release');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the question');
    await h.bot.store.reminders.schedule(clock.now(), 0, 60 * MINUTE);
    clock.advance(61 * MINUTE);
    const note = await h.waitInThread(
      cardTs,
      (m) => /No answer after 1h/.test(textOf(m)),
      'the timeout note',
    );
    expect(textOf(note)).toMatch(/only rejects approval questions/);
    expect(actionIds(h.thread(cardTs).find((m) => m.ts === prompt.ts))).toContain('input_answer');
  });
});

describe('AGENT_ON_TIMEOUT=cancel', () => {
  const clock = testClock();
  const h = withBot(
    { AGENT_REMIND_AFTER: '0', AGENT_QUESTION_TIMEOUT: '30m', AGENT_ON_TIMEOUT: 'cancel' },
    clock,
  );

  it('cancels the session and says so in the thread; /audit is off (404) without AUDIT_TOKEN', async () => {
    const { cardTs } = await h.start('scenario:approval restart the cluster');
    await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    await h.bot.store.reminders.schedule(clock.now(), 0, 30 * MINUTE);
    clock.advance(31 * MINUTE);
    await h.waitInThread(cardTs, (m) => /session was \*cancelled\*/.test(textOf(m)), 'the timeout note');
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'the card to show Cancelled');
    const off = await fetch(`${h.bot.url}/audit`, { headers: { authorization: `Bearer ${AUDIT_TOKEN}` } });
    expect(off.status).toBe(404);
  });
});
