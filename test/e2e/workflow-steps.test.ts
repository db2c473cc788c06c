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
import { ALICE, API_KEY, CHANNEL, textOf } from './harness.js';
import { actionIds, isPrompt } from './helpers.js';
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

let bot: BotProcess;

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
    expectNoSecrets(output, [...secretsOf(sandbox), step.token, wait.token]);
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
  'the wait step follows a session started elsewhere to its end',
  async () => {
    const { sandbox, emulator } = world;
    bot ??= await start();
    const client = new AgentSessionsClient({ baseUrl: emulator.url, apiKey: API_KEY });
    const { sessionId } = await client.sessions.create({ goal: 'scenario:complete started by another tool' });
    const wait = await sandbox.driver(bot.eventsUrl).runStep({
      callbackId: 'wait_for_agent_session',
      inputs: { session_id: sessionId },
      user: ALICE,
      next: { channel: CHANNEL },
    });
    const done = await finished(wait.execution.id);
    expect(done).toMatchObject({ state: 'completed', completions: 1 });
    expect(done.outputs).toMatchObject({
      session_id: sessionId,
      status: 'completed',
      cost: expect.any(Number),
    });
    expect(done.outputs?.permalink).toBeUndefined();
    expect(nextStepPosts(done)).toHaveLength(1);

    const unknown = await sandbox.driver(bot.eventsUrl).runStep({
      callbackId: 'wait_for_agent_session',
      inputs: { session_id: 'sess_no_such_session' },
      user: ALICE,
    });
    const missing = await finished(unknown.execution.id);
    expect(missing.state).toBe('failed');
    expect(missing.error).toMatch(
      /no session sess_no_such_session this bot may see here \(the service answered 404\)/,
    );
  },
  patient(120_000),
);
