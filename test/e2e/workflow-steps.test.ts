import { readFileSync } from 'node:fs';
import { AgentSessionsClient } from '@agent-sessions/core';
import {
  functionsFromManifest,
  type SandboxMessage,
  type StepExecution,
} from '@agent-sessions/slack-sandbox';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { patient } from '../support/patience.js';
import { type BotProcess, useBotProcesses } from './bot-process.js';
import { ALICE, API_KEY, BOB, CAROL, CHANNEL, textOf } from './harness.js';
import { actionIds, confirmStep, isPrompt } from './helpers.js';
import { expectNoSecrets, secretsOf } from './secrets.js';

// Workflow Builder's steps end to end: the sandbox runs a workflow (form → the bot's step → a message
// with its outputs) against the bot as production runs it, with the manifest's own step declarations,
// so Slack's checks of the outputs are the ones the manifest makes.
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
const world = useBotProcesses({
  emulatorSpeed: 5,
  store: { dataDirPrefix: 'bot-workflow-steps-' },
  sandbox: { functions: functionsFromManifest(manifest) },
});
// The channel allowlist and the budget ceiling hold a step as they hold `/agent start`.
const start = () =>
  world.spawn(
    world.env({
      WORKFLOW_STEP_CHECK_EVERY: '200ms',
      AGENT_ALLOWED_CHANNELS: CHANNEL,
      AGENT_MAX_BUDGET: '10',
    }),
  );

const cardOf = (goal: RegExp) => () =>
  (world.sandbox.workspace.messages.get(CHANNEL) ?? []).find(
    (m) => !m.thread_ts && goal.test(textOf(m)) && /session `/.test(textOf(m)),
  );
const sessionIdOf = (card: SandboxMessage) => /session `([^`]+)`/.exec(textOf(card))?.[1] as string;

/** The execution once Slack took its completion (success or failure). */
const finished = (id: string, timeoutMs = patient(60_000)) =>
  world.sandbox.workspace.waitFor(
    () => {
      const e = world.sandbox.workspace.workflows.executions.get(id);
      return e && e.state !== 'running' ? e : undefined;
    },
    { what: `step execution ${id} completed`, timeoutMs },
  );

/** The workflow's next step's posts of an execution: the outputs, in the channel. */
const nextStepPosts = (execution: StepExecution) =>
  (world.sandbox.workspace.messages.get(CHANNEL) ?? []).filter(
    (m) => m.bot_id === 'BWORKFLOWS' && textOf(m).includes(execution.workflowExecutionId),
  );

let bot: BotProcess | undefined;

it(
  'a workflow runs the step; its question is answered in the thread; the outputs arrive once, across a SIGKILL',
  async () => {
    const { sandbox, output } = world;
    const ws = sandbox.workspace;
    bot = await start();
    const step = await sandbox.driver(bot.eventsUrl).runStep({
      callbackId: 'run_agent_session',
      inputs: {
        goal: 'scenario:approval ship the workflow release',
        channel: CHANNEL,
        budget: 5,
        context: '{"workSteps": 6}',
        mention: ALICE,
      },
      user: ALICE,
      next: { channel: CHANNEL },
    });
    expect(step.deliveries.map((d) => d.status)).toEqual([200]);
    await confirmStep(ws, sandbox.driver(bot.eventsUrl), ALICE);
    const card = await ws.waitFor(cardOf(/ship the workflow release/), { what: 'the step’s session card' });
    const sessionId = sessionIdOf(card);
    const prompt = await ws.waitFor(() => ws.replies(CHANNEL, card.ts).find(isPrompt), {
      what: 'the approval prompt in the thread',
      timeoutMs: patient(60_000),
    });

    await bot.kill('SIGKILL');
    bot = await start();
    const driver = sandbox.driver(bot.eventsUrl);
    const click = await driver.act({
      user: ALICE,
      channel: CHANNEL,
      ts: prompt.ts,
      actionId: 'input_approve',
    });
    expect(click.status).toBe(200);
    const done = await finished(step.execution.id);
    expect(done).toMatchObject({ state: 'completed', completions: 1, refused: [] });
    expect(done.outputs).toMatchObject({
      session_id: sessionId,
      status: 'completed',
      result: expect.stringMatching(/Deployed v2\.3\.1 to production after approval/),
      cost: expect.any(Number),
      permalink: expect.stringContaining(`/archives/${CHANNEL}/p${card.ts.replace('.', '')}`),
    });
    expect(actionIds(ws.findMessage(CHANNEL, prompt.ts))).toEqual([]);

    // Killed again after the completion: the restarted bot sweeps the store and completes nothing twice.
    // The marker: a wait step on the same session, completed by that restarted bot.
    await bot.kill('SIGKILL');
    bot = await start();
    const wait = await sandbox.driver(bot.eventsUrl).runStep({
      callbackId: 'wait_for_agent_session',
      inputs: { session_id: sessionId },
      user: ALICE,
    });
    const waited = await finished(wait.execution.id);
    expect(waited.outputs).toEqual({ ...done.outputs });
    expect(ws.workflows.executions.get(step.execution.id)).toMatchObject({ completions: 1, refused: [] });
    expect(nextStepPosts(done)).toHaveLength(1);
    expect(textOf(nextStepPosts(done)[0])).toContain(`*session_id*: ${sessionId}`);
    // Slack's interactivity secret (who ran the workflow) is as secret as the execution's token.
    const interactorSecret = (run: { execution: StepExecution }) =>
      String((run.execution.inputs.interactivity as { interactor: { secret: string } }).interactor.secret);
    expectNoSecrets(output, [
      ...secretsOf(sandbox),
      step.token,
      wait.token,
      interactorSecret(step),
      interactorSecret(wait),
    ]);
  },
  patient(180_000),
);

it(
  'a cancelled session fails its step with a reason a person reads; a bad input fails it at once',
  async () => {
    const { sandbox } = world;
    const ws = sandbox.workspace;
    bot ??= await start();
    const driver = sandbox.driver(bot.eventsUrl);
    const step = await driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:approval a release to call off', channel: CHANNEL, mention: ALICE },
      user: ALICE,
    });
    await confirmStep(ws, driver, ALICE);
    const card = await ws.waitFor(cardOf(/a release to call off/), { what: 'the card to cancel' });
    // The first completion's connection is lost before Slack reads it: the bot's client sends it again.
    sandbox.failNext({ method: 'functions.completeError', drop: true });
    await driver.act({ user: ALICE, channel: CHANNEL, ts: card.ts, actionId: 'session_cancel' });
    const failed = await finished(step.execution.id);
    expect(failed).toMatchObject({ state: 'failed', completions: 1, refused: [] });
    expect(ws.apiCalls.filter((c) => c.method === 'functions.completeError' && c.dropped)).toHaveLength(1);
    expect(failed.error).toMatch(new RegExp(`The agent session ${sessionIdOf(card)} was cancelled\\.`));
    expect(failed.error).toContain(`/archives/${CHANNEL}/p`);

    const refused = await driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:complete never started', channel: CHANNEL, mention: ALICE, budget: -2 },
      user: ALICE,
    });
    const refusal = await finished(refused.execution.id);
    expect(refusal.state).toBe('failed');
    expect(refusal.error).toMatch(/budget: a positive number of USD/);
    expect(ws.messages.get(CHANNEL)?.some((m) => /never started/.test(textOf(m)))).toBe(false);

    // The rules of `/agent start`: a channel off the allowlist, a budget over AGENT_MAX_BUDGET.
    const elsewhere = await driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:complete off the allowlist', channel: 'C0GENERAL', mention: ALICE },
      user: ALICE,
    });
    const offList = await finished(elsewhere.execution.id);
    expect(offList.state).toBe('failed');
    expect(offList.error).toMatch(/Agent sessions can't be started in this channel\. Allowed: /);
    const costly = await driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:complete over the ceiling', channel: CHANNEL, mention: ALICE, budget: 50 },
      user: ALICE,
    });
    const overCeiling = await finished(costly.execution.id);
    expect(overCeiling.state).toBe('failed');
    expect(overCeiling.error).toMatch(/A session starts with at most \$10\.00 \(AGENT_MAX_BUDGET\)/);
    for (const goal of [/off the allowlist/, /over the ceiling/])
      expect([...ws.messages.values()].flat().some((m) => goal.test(textOf(m)))).toBe(false);
  },
  patient(120_000),
);

it(
  'a step acts for the person who ran the workflow: Alice naming Carol starts nothing in Carol’s name',
  async () => {
    const { sandbox } = world;
    const ws = sandbox.workspace;
    bot ??= await start();
    const driver = sandbox.driver(bot.eventsUrl);
    const channelPosts = () => (ws.messages.get(CHANNEL) ?? []).map(textOf).join('\n');
    // Carol may not answer Alice's session (starter-or-approvers; Bob is the approver): the step can't ask her.
    const askCarol = await driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:complete ask carol', channel: CHANNEL, mention: CAROL },
      user: ALICE,
    });
    expect((await finished(askCarol.execution.id)).error).toMatch(
      /^This step can't run: mention: U0CAROL may not answer this session’s questions under AGENT_APPROVAL_POLICY/,
    );
    // Carol runs a workflow built to name Alice in #agents, where Carol is not a member: refused.
    const carolAsAlice = await driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:complete carol as alice', channel: CHANNEL, mention: ALICE },
      user: CAROL,
    });
    expect((await finished(carolAsAlice.execution.id)).error).toMatch(
      /^This step can't run: channel: C0AGENTS is not a conversation you are in/,
    );
    // A run nobody started (a schedule) is refused while WORKFLOW_UNATTENDED_RUNS is off.
    const scheduled = await driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:complete nightly', channel: CHANNEL, mention: ALICE },
    });
    expect((await finished(scheduled.execution.id)).error).toMatch(/nobody ran this one/);
    expect(channelPosts()).not.toMatch(/ask carol|carol as alice|nightly/);

    // Alice naming Bob, an approver: the session is Alice's, and Bob is asked in its thread.
    const askBob = await driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:complete ask bob', channel: CHANNEL, mention: BOB },
      user: ALICE,
    });
    await confirmStep(ws, driver, ALICE);
    const card = await ws.waitFor(cardOf(/ask bob/), { what: 'the card of the session Alice started' });
    expect(textOf(card)).toContain(`<@${ALICE}>`);
    expect(textOf(card)).not.toContain(`<@${BOB}>`);
    await ws.waitFor(
      () => ws.replies(CHANNEL, card.ts).find((m) => textOf(m).includes(`<@${BOB}>, <@${ALICE}> asks you`)),
      { what: 'Bob asked in the thread' },
    );
    expect(await finished(askBob.execution.id)).toMatchObject({ state: 'completed' });
  },
  patient(120_000),
);

it(
  'the wait step reads only a session its runner started; anything else is one not-found, even to an approver',
  async () => {
    const { sandbox, emulator } = world;
    const ws = sandbox.workspace;
    bot ??= await start();
    const driver = sandbox.driver(bot.eventsUrl);
    const run = await driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:complete for the agents channel only', channel: CHANNEL },
      user: ALICE,
    });
    await confirmStep(ws, driver, ALICE);
    const card = await ws.waitFor(cardOf(/for the agents channel only/), { what: 'Alice’s session card' });
    const sessionId = sessionIdOf(card);
    await finished(run.execution.id);
    const client = new AgentSessionsClient({ baseUrl: emulator.url, apiKey: API_KEY });
    const elsewhere = await client.sessions.create({ goal: 'scenario:complete started by another tool' });
    const waitFor = async (id: string, user: string) =>
      finished(
        (await driver.runStep({ callbackId: 'wait_for_agent_session', inputs: { session_id: id }, user }))
          .execution.id,
      );

    // Carol is not in #agents nor an approver; Bob is both and sees it with /agent status, but the wait's
    // outputs go to whoever built the workflow; nobody may read a session the bot didn't start.
    for (const [id, user] of [
      [sessionId, CAROL],
      [sessionId, BOB],
      ['sess_no_such_session', CAROL],
      [elsewhere.sessionId, ALICE],
    ] as const) {
      const refused = await waitFor(id, user);
      expect(refused).toMatchObject({
        state: 'failed',
        error: `There is no session \`${id}\` that you can see.`,
      });
    }
    // Alice, who started it, reads it.
    const seen = await waitFor(sessionId, ALICE);
    expect(seen).toMatchObject({
      state: 'completed',
      outputs: { session_id: sessionId, status: 'completed' },
    });
    expect(seen.outputs?.result).toMatch(/^✅ Ended · Completed\n/);
    expect(seen.outputs?.result).not.toMatch(/[*_`]/);
    // The card's summary: cost, rounds and how long it ran, as every view of the session says them.
    expect(seen.outputs?.result).toMatch(/\nCost \$\d+\.\d+ · \d+ rounds? · \d+(?:s|m)/);
  },
  patient(120_000),
);

it(
  'with WORKFLOW_UNATTENDED_RUNS, a run nobody ran starts in a public channel, never in a private one the bot is in',
  async () => {
    const { sandbox } = world;
    const ws = sandbox.workspace;
    // One bot on the suite's store at a time: this one lets runs nobody ran start.
    await bot?.kill();
    bot = undefined;
    // #private-ops, where the bot was invited: its card, context and result must not go to a workflow's builder.
    ws.join('G0PRIVATE', 'U0AGENTBOT', ALICE);
    const unattended = await world.spawn(
      world.env({
        WORKFLOW_STEP_CHECK_EVERY: '200ms',
        WORKFLOW_UNATTENDED_RUNS: 'true',
        AGENT_ALLOWED_CHANNELS: `${CHANNEL},G0PRIVATE`,
      }),
    );
    try {
      const driver = sandbox.driver(unattended.eventsUrl);
      const hidden = await driver.runStep({
        callbackId: 'run_agent_session',
        inputs: { goal: 'scenario:complete quote your context', channel: 'G0PRIVATE' },
      });
      expect((await finished(hidden.execution.id)).error).toMatch(
        /^This step can't run: channel: G0PRIVATE is not a public channel; a run nobody ran starts sessions only in public channels/,
      );
      expect((ws.messages.get('G0PRIVATE') ?? []).map(textOf).join('\n')).not.toMatch(/quote your context/);
      const nightly = await driver.runStep({
        callbackId: 'run_agent_session',
        inputs: { goal: 'scenario:complete the nightly report', channel: CHANNEL },
      });
      await ws.waitFor(cardOf(/the nightly report/), { what: 'the card of the run nobody ran' });
      expect(await finished(nightly.execution.id)).toMatchObject({ state: 'completed' });
    } finally {
      await unattended.kill();
    }
  },
  patient(120_000),
);
