import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { ALICE, CAROL, CHANNEL, textOf, useHarness } from './harness.js';
import { actionIds, isPrompt, SIGNAL_ROUTE } from './helpers.js';

const h = useHarness();

const statusOf = async (sessionId: string) => (await h.emulator.admin.session(sessionId))?.status;
const signals = async () => (await h.emulator.admin.stats()).requests[SIGNAL_ROUTE] ?? 0;

describe('steering from the card', () => {
  it('Pause, Resume, Redirect (form) and Cancel from the card buttons', async () => {
    // Long sessions here run far above the default 50 iterations (about 16 s at the emulator's speed 10),
    // which a busy machine would reach mid-test: the agent would pause by itself.
    const { sessionId, cardTs } = await h.start('scenario:long keep indexing --max-iterations 100000');
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: cardTs, actionId: 'session_pause' });
    await h.waitForCard(cardTs, (t) => /Paused/.test(t), 'the card to show Paused');
    expect(await statusOf(sessionId)).toBe('paused');
    expect(actionIds(h.card(cardTs))).toContain('session_resume');
    await h.waitInThread(cardTs, (m) => /<@U0ALICE> paused the session/.test(textOf(m)), 'who paused');

    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: cardTs, actionId: 'session_resume' });
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running again');

    const modal = await h.pressForModal(ALICE, cardTs, 'session_redirect', 'the redirect modal');
    const empty = await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { message: { value: '' } },
    });
    expect(empty.body).toMatchObject({ response_action: 'errors', errors: { message: expect.any(String) } });
    await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { message: { value: 'Only the docs folder' } },
    });
    await h.waitInThread(
      cardTs,
      (m) => /redirected the agent: Only the docs folder/.test(textOf(m)),
      'the redirect note',
    );

    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: cardTs, actionId: 'session_cancel' });
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'cancelled');
    expect(actionIds(h.card(cardTs))).toEqual([]);
    await h.waitInThread(
      cardTs,
      (m) => /Cancelled/.test(textOf(m)) && /cost/.test(textOf(m)),
      'the final report',
    );
  });

  it('someone not allowed cannot pause or open the redirect form; nothing reaches the service', async () => {
    const { cardTs } = await h.start('scenario:long watch the queue --max-iterations 100000');
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    const before = await signals();
    await h.driver.act({ user: CAROL, channel: CHANNEL, ts: cardTs, actionId: 'session_pause' });
    await h.driver.act({ user: CAROL, channel: CHANNEL, ts: cardTs, actionId: 'session_redirect' });
    await h.sandbox.workspace.waitFor(
      () => h.ephemeralsFor(CAROL).filter((t) => /Only <@U0ALICE>/.test(t)).length >= 2,
      {
        what: 'two refusals',
      },
    );
    expect(h.driver.openModal(CAROL)).toBeUndefined();
    expect(await signals()).toBe(before);
    await h.driver.command({
      user: ALICE,
      channel: CHANNEL,
      text: `cancel ${/session `([^`]+)`/.exec(textOf(h.card(cardTs)))?.[1]}`,
    });
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'cancelled by command');
  });
});

describe('steering with commands', () => {
  it('/agent pause, resume, redirect and cancel <id>; /agent status re-shows a waiting question', async () => {
    const { sessionId, cardTs } = await h.start('scenario:long crawl the wiki --max-iterations 100000');
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `pause ${sessionId}` });
    await h.waitForCard(cardTs, (t) => /Paused/.test(t), 'paused');
    await h.waitForEphemeral(ALICE, /Paused\./);
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `resume ${sessionId}` });
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running again');
    await h.driver.command({
      user: ALICE,
      channel: CHANNEL,
      text: `redirect ${sessionId} Skip the archive\nand the drafts`,
    });
    await h.waitInThread(
      cardTs,
      (m) => /redirected the agent: Skip the archive\nand the drafts/.test(m.text ?? ''),
      'redirect kept the newline',
    );
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `cancel ${sessionId}` });
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'cancelled');
    expect(await statusOf(sessionId)).toBe('cancelled');

    const waiting = await h.start('scenario:approval tag the release');
    await h.waitInThread(waiting.cardTs, isPrompt, 'the prompt');
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `status ${waiting.sessionId}` });
    await h.sandbox.workspace.waitFor(
      () => h.ephemeralsFor(ALICE).find((t) => t.includes('input_approve') && t.includes(waiting.sessionId)),
      { what: 'status with the pending question' },
    );
    expect(await statusOf(waiting.sessionId)).toBe('waiting_human');
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: 'list' });
    const list = await h.waitForEphemeral(ALICE, /Active agent sessions in this channel/);
    expect(list).toContain(waiting.sessionId);
  });

  it('help, unknown subcommands and bad flags answer with usage, privately', async () => {
    const help = await h.driver.command({ user: CAROL, channel: CHANNEL, text: 'help' });
    expect(help.body).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('/agent start'),
    });
    // Shown to Carol alone, as Slack shows a command's immediate ephemeral reply.
    await h.waitForEphemeral(CAROL, /\/agent redirect/);
    const unknown = await h.driver.command({ user: CAROL, channel: CHANNEL, text: 'frobnicate' });
    expect(JSON.stringify(unknown.body)).toContain('unknown subcommand');
    const bad = await h.driver.command({ user: CAROL, channel: CHANNEL, text: 'start --budget -3 do it' });
    expect(JSON.stringify(bad.body)).toContain('--budget must be a positive number');
  });

  it('bare /agent start opens the form; bad fields are named inline and the session starts when fixed', async () => {
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: 'start' });
    const modal = await h.sandbox.workspace.waitFor(() => h.driver.openModal(ALICE), {
      what: 'the start modal',
    });
    const bad = await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: {
        goal: { value: 'scenario:complete tidy the changelog' },
        budget: { value: 'lots' },
        max_iterations: { value: '2.5' },
        context: { value: '{"repo": ' },
      },
    });
    expect(bad.body).toMatchObject({
      response_action: 'errors',
      errors: {
        budget: expect.any(String),
        max_iterations: expect.any(String),
        context: expect.stringMatching(/^The context stops before it is complete/),
      },
    });
    const before = new Set((h.sandbox.workspace.messages.get(CHANNEL) ?? []).map((m) => m.ts));
    await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: {
        goal: { value: 'scenario:complete tidy the changelog' },
        budget: { value: '3' },
        max_iterations: { value: '20' },
        context: { value: '{"repo": "acme/api"}' },
      },
    });
    const card = await h.sandbox.workspace.waitFor(
      () =>
        (h.sandbox.workspace.messages.get(CHANNEL) ?? []).find(
          (m) => !before.has(m.ts) && /tidy the changelog/.test(textOf(m)) && /session `/.test(textOf(m)),
        ),
      { what: 'the card' },
    );
    expect(textOf(card)).toContain('$3.00');
  });
});

describe('where a session may start', () => {
  const PRIVATE = 'G0PRIVATE';
  const sessionsCount = async () => (await h.emulator.admin.sessions()).length;
  const cardsIn = (channel: string) =>
    (h.sandbox.workspace.messages.get(channel) ?? []).filter((m) => !m.thread_ts && m.bot_id);

  it('a private channel the bot is not in: refused with how to fix it, nothing started; after /invite it works', async () => {
    const before = await sessionsCount();
    await h.driver.command({ user: ALICE, channel: PRIVATE, text: 'start scenario:complete audit the keys' });
    const refusal = await h.waitForEphemeral(ALICE, /invite me first/);
    expect(refusal).toContain('audit the keys');
    expect(await sessionsCount()).toBe(before);
    expect(cardsIn(PRIVATE)).toEqual([]);

    // From the form too: the refusal can't be posted in the channel, so it comes as a DM.
    await h.driver.command({ user: ALICE, channel: PRIVATE, text: 'start' });
    const modal = await h.sandbox.workspace.waitFor(() => h.driver.openModal(ALICE), { what: 'the form' });
    await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { goal: { value: 'scenario:complete rotate the secrets' } },
    });
    await h.sandbox.workspace.waitFor(
      () =>
        (h.sandbox.workspace.messages.get('D0ALICE') ?? []).find(
          (m) => /invite me first/.test(m.text) && /rotate the secrets/.test(m.text),
        ),
      { what: 'the refusal as a DM' },
    );
    expect(await sessionsCount()).toBe(before);

    h.sandbox.workspace.inviteBot(PRIVATE, ALICE);
    await h.driver.command({ user: ALICE, channel: PRIVATE, text: 'start scenario:complete audit the keys' });
    const card = await h.sandbox.workspace.waitFor(
      () => cardsIn(PRIVATE).find((m) => /session `/.test(textOf(m))),
      { what: 'the card in the private channel' },
    );
    expect(textOf(card)).toContain('audit the keys');
    expect(await sessionsCount()).toBe(before + 1);
  });

  it('the service refusing to create: the person hears why, with the goal, and no card is left behind', async () => {
    const cardsBefore = cardsIn(CHANNEL).length;
    await h.emulator.admin.setFaults({ burst5xx: 20, status5xx: 503, pathPattern: '^POST /v1/sessions$' });
    try {
      await h.driver.command({
        user: ALICE,
        channel: CHANNEL,
        text: 'start scenario:complete write the digest',
      });
      const said = await h.waitForEphemeral(
        ALICE,
        /Could not start the session: the service answered 503/,
        patient(30_000),
      );
      expect(said).toContain('write the digest');
    } finally {
      await h.emulator.admin.clearFaults();
    }
    expect(cardsIn(CHANNEL)).toHaveLength(cardsBefore);
  });
});

describe('budget', () => {
  it('cost_limit: a budget prompt; a new budget under the spend is refused inline; a larger one resumes', async () => {
    const { sessionId, cardTs } = await h.start('scenario:cost_limit analyse the logs --budget 0.2');
    const prompt = await h.waitInThread(
      cardTs,
      (m) => /Budget reached at \$/.test(textOf(m)),
      'the budget prompt',
      patient(30_000),
    );
    await h.waitForCard(cardTs, (t) => /Budget reached/.test(t), 'the card in cost_limit');
    const modal = await h.pressForModal(ALICE, prompt.ts, 'budget_raise', 'the budget modal');
    const low = await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { budget: { value: '0.01' } },
    });
    expect(low.body).toMatchObject({
      response_action: 'errors',
      errors: { budget: expect.stringMatching(/more than/) },
    });
    await h.driver.submitView({ user: ALICE, viewId: modal.id, values: { budget: { value: '25' } } });
    await h.waitInThread(
      cardTs,
      (m) => /resumed the session with a budget of \$25\.00/.test(textOf(m)),
      'the resume note',
    );
    await h.waitForCard(
      cardTs,
      (t) => /Completed/.test(t) && /\$25\.00/.test(t),
      'completion under the new budget',
      patient(30_000),
    );
    expect(await statusOf(sessionId)).toBe('completed');
    // The budget prompt says what became of it, and its button is gone.
    const closed = h.thread(cardTs).find((m) => m.ts === prompt.ts);
    expect(textOf(closed)).toMatch(/raised to \$25\.00 and the agent continued/);
    expect(actionIds(closed)).toEqual([]);
  });

  it('error: the card shows the failure and the thread the error', async () => {
    const { sessionId, cardTs } = await h.start('scenario:error deploy');
    await h.waitForCard(cardTs, (t) => /Failed/.test(t), 'failed');
    expect(await statusOf(sessionId)).toBe('error');
    expect(actionIds(h.card(cardTs))).toEqual([]);
    await h.waitInThread(
      cardTs,
      (m) => /Error: Tool &#39;deploy&#39; failed|Error: Tool 'deploy' failed/.test(textOf(m)),
      'the error',
    );
  });
});
