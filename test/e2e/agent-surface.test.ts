import { describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, CHANNEL, textOf, useHarness, WAIT_MS } from './harness.js';
import { isPrompt, SIGNAL_ROUTE } from './helpers.js';

// Slack's agent surfaces, bot side, against a sandbox that has them: each session is Slack's agent
// session, Slack's Stop button cancels, the Messages tab suggests prompts, a channel keeps defaults.
const PROMPTS = [
  { title: 'Deploy, with my approval', message: 'scenario:approval deploy the API' },
  { title: 'A long run', message: 'scenario:long index the wiki' },
];
const h = useHarness({
  env: { AGENT_SLACK_SURFACE: 'auto', AGENT_SUGGESTED_PROMPTS: JSON.stringify(PROMPTS) },
});

const statusOf = async (sessionId: string) => (await h.emulator.admin.session(sessionId))?.status;
const signals = async () => (await h.emulator.admin.stats()).requests[SIGNAL_ROUTE] ?? 0;
const slackSession = (threadTs: string, channel = CHANNEL) => h.sandbox.agent.session(channel, threadTs);
const waitForSlack = (threadTs: string, status: 'processing' | 'suspended' | 'closed', channel = CHANNEL) =>
  h.sandbox.agent.waitForStatus(channel, threadTs, status, { timeoutMs: WAIT_MS });

async function health(): Promise<Record<string, unknown>> {
  return (await (await fetch(`${h.bot.url}/healthz`)).json()) as Record<string, unknown>;
}

describe('a session is a Slack agent session', () => {
  it('titled with the goal, started by the starter; processing → suspended on a question → closed once answered', async () => {
    const { cardTs } = await h.start('scenario:approval ship the release');
    const first = await waitForSlack(cardTs, 'processing');
    expect(first).toMatchObject({ title: 'ship the release', initiator: ALICE });
    await waitForSlack(cardTs, 'suspended');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    const toldBeforeTheAnswer = slackSession(cardTs)?.history.length ?? 0;
    await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await waitForSlack(cardTs, 'closed');
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'completed, on the card too');
    // In order: working, then waiting for the approval, and over once answered. What Slack is told between
    // the answer and the end depends on timing, so it is not asserted: the answer asks for `processing` at
    // once, but a status still waiting for its turn of Slack's Tier 3 goes out as the latest one (the
    // agent's last quarter-second after the approval may end first), and on a loaded machine a poll begun
    // before the answer, or a lease taken again, may tell `suspended` once more before the end.
    const history = (slackSession(cardTs)?.history ?? []).map((e) => e.status);
    expect(history[0]).toBe('processing');
    expect(history.slice(0, toldBeforeTheAnswer)).toContain('suspended');
    expect(history.slice(toldBeforeTheAnswer).at(-1)).toBe('closed');
    expect(await health()).toMatchObject({ surface: { setting: 'auto', current: 'agent' } });
  });

  it('a redirect renames the session after its new direction', async () => {
    const { sessionId, cardTs } = await h.start('scenario:long crawl the wiki --max-iterations 100000');
    await waitForSlack(cardTs, 'processing');
    await h.driver.command({
      user: ALICE,
      channel: CHANNEL,
      text: `redirect ${sessionId} Only the API docs`,
    });
    const renamed = await h.sandbox.workspace.waitFor(
      () => {
        const session = slackSession(cardTs);
        return session?.renames.includes('Only the API docs') ? session : undefined;
      },
      { what: 'the rename', timeoutMs: WAIT_MS },
    );
    expect(renamed.title).toBe('Only the API docs');
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `cancel ${sessionId}` });
    await waitForSlack(cardTs, 'closed');
    expect(await statusOf(sessionId)).toBe('cancelled');
  });
});

describe("Slack's Stop button", () => {
  it('an outsider’s Stop: refused privately, nothing reaches the service, the session goes on (processing again)', async () => {
    // Far above the default 50 iterations: on a busy machine the agent would otherwise pause by itself at its limit.
    const { sessionId, cardTs } = await h.start('scenario:long index the wiki --max-iterations 100000');
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    await waitForSlack(cardTs, 'processing');
    // A stream opens once the agent has something to show: the click must find one live to stop.
    await h.waitInThread(cardTs, (m) => /Step \d/.test(textOf(m)), 'the live stream');
    const before = await signals();
    const shown = slackSession(cardTs)?.history.length ?? 0;
    await h.driver.stopAgentSession({ channel: CHANNEL, threadTs: cardTs, user: CAROL });
    await h.waitForEphemeral(CAROL, /Only <@U0ALICE> .* The session goes on\./);
    // Slack leaves the status to the app: the bot sets it back.
    await h.sandbox.workspace.waitFor(() => (slackSession(cardTs)?.history.length ?? 0) > shown, {
      what: 'the status set again after the Stop',
      timeoutMs: WAIT_MS,
    });
    expect(slackSession(cardTs)?.status).toBe('processing');
    expect(await signals()).toBe(before);
    expect(await statusOf(sessionId)).toBe('running');
    expect(h.thread(cardTs).some((m) => /stopped by/.test(textOf(m)))).toBe(false);
    // Slack stopped the live message on the click; the agent's work goes on in one that says why, not in
    // a "continued" message (those are for Slack's length limit).
    await h.waitInThread(
      cardTs,
      (m) => /^_\(Stop was pressed but not applied: the agent goes on here\)_/.test(m.text ?? ''),
      'the stream going on after the refused Stop',
    );
    expect(h.thread(cardTs).some((m) => /continued from the message above/.test(m.text ?? ''))).toBe(false);
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `cancel ${sessionId}` });
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'cancelled by command');
  });

  it('the starter’s Stop cancels: the emulator records it, the thread says who, the session closes', async () => {
    const { sessionId, cardTs } = await h.start('scenario:long crawl the docs --max-iterations 100000');
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    await waitForSlack(cardTs, 'processing');
    await h.driver.stopAgentSession({ channel: CHANNEL, threadTs: cardTs, user: ALICE });
    await h.waitInThread(cardTs, (m) => /⏹ stopped by <@U0ALICE>/.test(textOf(m)), 'the stop note');
    await h.sandbox.workspace.waitFor(async () => (await statusOf(sessionId)) === 'cancelled', {
      what: 'the emulator to record the cancel',
      timeoutMs: WAIT_MS,
    });
    await waitForSlack(cardTs, 'closed');
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'the card to show Cancelled');
    const audit = await h.store.audit.list({ sessionId });
    expect(audit.filter((r) => r.action === 'cancel')).toEqual([
      expect.objectContaining({ userId: ALICE, detail: expect.objectContaining({ via: 'stop' }) }),
    ]);
  });

  it('a Stop Slack delivers twice (a retry) cancels once', async () => {
    const { cardTs } = await h.start('scenario:long count the pages --max-iterations 100000');
    await waitForSlack(cardTs, 'processing');
    const before = await signals();
    const { event, eventId } = await h.driver.stopAgentSession({
      channel: CHANNEL,
      threadTs: cardTs,
      user: ALICE,
    });
    await h.waitInThread(cardTs, (m) => /⏹ stopped by/.test(textOf(m)), 'the stop note');
    // The same delivery again, as Slack retries it: the same event_id, marked as a retry.
    const body = JSON.stringify({ type: 'event_callback', team_id: 'T0SANDBOX', event_id: eventId, event });
    const again = await h.driver.send(body, 'application/json', { retryNum: 1 });
    expect(again.status).toBe(200);
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'cancelled');
    expect((await signals()) - before).toBe(1);
    expect(h.thread(cardTs).filter((m) => /⏹ stopped by/.test(textOf(m)))).toHaveLength(1);
  });
});

describe('the Messages tab (agent view)', () => {
  it('opening it shows the suggested prompts; one clicked starts a session in its own thread', async () => {
    await h.driver.openMessagesTab({ user: ALICE });
    const dm = h.sandbox.workspace.channel(ALICE)?.id as string;
    const shown = await h.sandbox.workspace.waitFor(() => h.sandbox.agent.prompts(dm), {
      what: 'the suggested prompts',
      timeoutMs: WAIT_MS,
    });
    expect(shown.prompts).toEqual(PROMPTS);
    const { message } = await h.driver.clickSuggestedPrompt({ user: ALICE, index: 1 });
    // The session's card is a reply in the prompt's own thread, and Slack's session is that thread.
    await h.sandbox.workspace.waitFor(
      () => h.sandbox.workspace.replies(dm, message.ts).find((m) => /session `/.test(textOf(m))),
      { what: 'the card in the prompt’s thread', timeoutMs: WAIT_MS },
    );
    await waitForSlack(message.ts, 'processing', dm);
    expect(slackSession(message.ts, dm)?.initiator).toBe(ALICE);
  });
});

describe('/agent settings: a channel’s defaults for new sessions', () => {
  it('approvers only; every field checked; new sessions get the defaults and the card says so', async () => {
    await h.driver.command({ user: CAROL, channel: CHANNEL, text: 'settings' });
    await h.waitForEphemeral(CAROL, /Only .* can change this channel’s defaults/);
    expect(h.driver.openModal(CAROL)).toBeUndefined();

    await h.driver.command({ user: BOB, channel: CHANNEL, text: 'settings' });
    const modal = await h.sandbox.workspace.waitFor(() => h.driver.openModal(BOB), {
      what: 'the settings modal',
      timeoutMs: WAIT_MS,
    });
    const bad = await h.driver.submitView({
      user: BOB,
      viewId: modal.id,
      values: { budget: { value: 'five' }, max_iterations: { value: '0' }, context: { value: '{"repo":' } },
    });
    expect(bad.body).toMatchObject({
      response_action: 'errors',
      errors: {
        budget: expect.stringMatching(/positive number of dollars/),
        max_iterations: expect.stringMatching(/whole number above 0/),
        context: expect.stringMatching(/^The context stops before it is complete/),
      },
    });
    await h.driver.submitView({
      user: BOB,
      viewId: modal.id,
      values: {
        budget: { value: '4' },
        max_iterations: { value: '12' },
        context: { value: '{"repo":"acme/api"}' },
      },
    });
    await h.waitForEphemeral(BOB, /New sessions in <#C0AGENTS> start with: a budget of \$4\.00/);

    const { sessionId, cardTs } = await h.start('scenario:complete tidy the changelog');
    await h.waitForCard(
      cardTs,
      (t) => /Channel defaults: budget \$4\.00, 12 max iterations, context \(repo\)/.test(t),
      'the defaults on the card',
    );
    expect(await h.emulator.admin.session(sessionId)).toMatchObject({
      maxCostPerSession: 4,
      maxIterations: 12,
      context: { repo: 'acme/api' },
    });
    // A session's own flags win.
    const own = await h.start('scenario:complete tidy the readme --budget 2');
    expect((await h.emulator.admin.session(own.sessionId))?.maxCostPerSession).toBe(2);
    await h.waitForCard(
      own.cardTs,
      (t) => /Channel defaults: 12 max iterations, context \(repo\)/.test(t),
      'only the defaults it took',
    );
  });
});

describe('the first channels a newcomer tries', () => {
  const ws = () => h.sandbox.workspace;
  /** What Alice was told privately about inviting the bot: ephemerals, and the app's DM. */
  const inviteNotices = () =>
    [
      ...ws()
        .ephemerals.filter((e) => e.user === ALICE)
        .map((e) => e.text ?? ''),
      ...[...ws().messages.entries()]
        .filter(([channel]) => /^D/.test(channel))
        .flatMap(([, messages]) => messages.map((m) => m.text ?? '')),
    ].filter((t) => /is not a member of the channel/.test(t));
  const completedIn = (channel: string, goal: string) =>
    ws().waitFor(
      () =>
        (ws().messages.get(channel) ?? []).find(
          (m) => textOf(m).includes(goal) && /Completed/.test(textOf(m)),
        ),
      { what: `the session "${goal}" completed in ${channel}`, timeoutMs: WAIT_MS },
    );

  it('#general: the bot is in it from the start, so a session there has Slack’s status and Stop', async () => {
    await h.driver.command({
      user: ALICE,
      channel: 'C0GENERAL',
      text: 'start scenario:complete hello general',
    });
    const card = await completedIn('C0GENERAL', 'hello general');
    expect(card.ts).toBeDefined();
    const statusCalls = ws().apiCalls.filter(
      (c) => c.method === 'agents.sessions.setStatus' && c.channel === 'C0GENERAL',
    );
    expect(statusCalls.length).toBeGreaterThan(0);
    expect(statusCalls.filter((c) => !c.ok)).toEqual([]);
    expect(inviteNotices()).toEqual([]);
  });

  it('where the bot is not a member, the starter is told once, privately, how to get the status and Stop', async () => {
    await h.driver.command({ user: ALICE, channel: 'C0RANDOM', text: 'start scenario:complete tidy random' });
    const notice = await ws().waitFor(() => inviteNotices()[0], {
      what: 'the invite notice',
      timeoutMs: WAIT_MS,
    });
    expect(notice).toContain('<#C0RANDOM>');
    expect(notice).toMatch(/status or a Stop button/);
    expect(notice).toContain('`/invite`');
    expect(notice).toContain('<@U0AGENTBOT>');
    await completedIn('C0RANDOM', 'tidy random');
    // A second session there: it runs as well, and the notice is not said again.
    await h.driver.command({
      user: ALICE,
      channel: 'C0RANDOM',
      text: 'start scenario:complete tidy random again',
    });
    await completedIn('C0RANDOM', 'tidy random again');
    expect(inviteNotices()).toHaveLength(1);
  });
});
