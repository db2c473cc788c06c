import type { AddressInfo, Server } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FunctionDefinitions,
  functionsFromManifest,
  type RunningSandbox,
  type SlackDriver,
  startSandbox,
} from '../src/index.js';
import { Interactions } from '../src/interactions.js';
import { Workspace } from '../src/workspace.js';
import { boltApp } from './bolt-app.js';

// Workflow Builder's custom steps as a real Bolt app meets them: function_executed over HTTP and Socket
// Mode with its execution id and token, Bolt's complete()/fail() checked against the declared outputs,
// the next step posting them, and clicks on the step's own messages carrying its execution.
const FUNCTIONS: FunctionDefinitions = functionsFromManifest({
  functions: {
    echo_step: {
      title: 'Echo',
      input_parameters: {
        properties: {
          text: { type: 'string', title: 'Text' },
          who: { type: 'slack#/types/user_id', title: 'Who' },
        },
        required: ['text'],
      },
      output_parameters: {
        properties: {
          echoed: { type: 'string', title: 'Echoed' },
          length: { type: 'integer', title: 'Length' },
          cost: { type: 'number', title: 'Cost' },
          channel: { type: 'slack#/types/channel_id', title: 'Channel' },
        },
        required: ['echoed', 'length'],
      },
    },
    // A step that asks who ran the workflow: Slack fills its interactivity input, never the builder.
    whose_step: {
      title: 'Whose',
      input_parameters: {
        properties: { text: { type: 'string' }, ran_by: { type: 'slack#/types/interactivity' } },
      },
      output_parameters: { properties: {} },
    },
  },
});

let sandbox: RunningSandbox;
let app: App;
let driver: SlackDriver;
type Received = {
  event: Record<string, unknown>;
  complete: (o: { outputs: Record<string, unknown> }) => Promise<unknown>;
};
const received: Received[] = [];
const clicks: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: false, functions: FUNCTIONS });
  app = boltApp(sandbox);
  app.function('echo_step', async ({ event, complete }) => {
    received.push({ event: event as unknown as Record<string, unknown>, complete });
  });
  app.function('whose_step', async ({ event, complete }) => {
    received.push({ event: event as unknown as Record<string, unknown>, complete });
  });
  app.action('approve', async ({ ack, body }) => {
    await ack();
    clicks.push(body as unknown as Record<string, unknown>);
  });
  const server = (await app.start(0)) as Server;
  const eventsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  driver = sandbox.driver(eventsUrl);
  sandbox.connectBot(eventsUrl);
});
afterAll(async () => {
  await app?.stop();
  await sandbox?.close();
});

const run = (inputs: Record<string, unknown>, next?: { channel: string }) =>
  driver.runStep({ callbackId: 'echo_step', inputs, user: 'U0ALICE', ...(next ? { next } : {}) });

const api = async (method: string, token: string, body: Record<string, unknown>) =>
  (await (
    await fetch(`${sandbox.apiUrl}${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).json()) as Record<string, unknown>;

describe('function_executed', () => {
  it('reaches the app with the execution id, the inputs and a token for the execution', async () => {
    const step = await run({ text: 'hello', who: 'U0BOB' });
    expect(step.deliveries.map((d) => d.status)).toEqual([200]);
    const got = await sandbox.workspace.waitFor(() =>
      received.find((r) => r.event.function_execution_id === step.execution.id),
    );
    expect(got.event).toMatchObject({
      type: 'function_executed',
      function: {
        callback_id: 'echo_step',
        title: 'Echo',
        input_parameters: [
          { name: 'text', type: 'string', is_required: true },
          { name: 'who', type: 'slack#/types/user_id', is_required: false },
        ],
      },
      inputs: { text: 'hello', who: 'U0BOB' },
      workflow_execution_id: step.execution.workflowExecutionId,
      bot_access_token: step.token,
    });
    expect(step.token).toMatch(/^xwfp-/);
    expect(step.token).not.toBe(sandbox.botToken);
  });

  it('is not sent for a form that leaves a required input empty, nor for an undeclared input', async () => {
    await expect(run({ text: '' })).rejects.toThrow(/text is required/);
    await expect(run({ text: 'x', colour: 'red' })).rejects.toThrow(/colour is not an input of echo_step/);
    await expect(driver.runStep({ callbackId: 'nope', inputs: {}, user: 'U0ALICE' })).rejects.toThrow(
      /declares no step nope/,
    );
  });

  it('names who ran the workflow in its interactivity input, as Slack does: only for a person’s run', async () => {
    const byAlice = await driver.runStep({
      callbackId: 'whose_step',
      inputs: { text: 'hi' },
      user: 'U0ALICE',
    });
    const scheduled = await driver.runStep({ callbackId: 'whose_step', inputs: { text: 'nightly' } });
    const inputsOf = async (id: string) =>
      (await sandbox.workspace.waitFor(() => received.find((r) => r.event.function_execution_id === id)))
        .event.inputs;
    expect(await inputsOf(byAlice.execution.id)).toEqual({
      text: 'hi',
      ran_by: {
        interactor: { id: 'U0ALICE', secret: expect.stringMatching(/^[\w-]{40,}$/) },
        interactivity_pointer: expect.stringMatching(/^\d+\.\d+\.[0-9a-f]+$/),
      },
    });
    expect(await inputsOf(scheduled.execution.id)).toEqual({ text: 'nightly' });
    expect(scheduled.execution.user).toBeUndefined();
    // The workflow's builder can't fill it in: it is Slack's.
    await expect(
      driver.runStep({
        callbackId: 'whose_step',
        inputs: { text: 'x', ran_by: { interactor: { id: 'U0BOB' } } },
        user: 'U0ALICE',
      }),
    ).rejects.toThrow(/ran_by is set by Slack from who ran the workflow, not by the workflow's builder/);
  });

  it('over Socket Mode too: the same event in an events_api envelope', async () => {
    const socketApp = new App({
      token: sandbox.botToken,
      appToken: sandbox.appToken,
      socketMode: true,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: sandbox.apiUrl },
      installerOptions: { clientOptions: { slackApiUrl: sandbox.apiUrl } },
    });
    const seen: Array<Record<string, unknown>> = [];
    socketApp.function('echo_step', async ({ event, complete }) => {
      seen.push(event as unknown as Record<string, unknown>);
      await complete({ outputs: { echoed: String(event.inputs.text), length: 3 } });
    });
    await socketApp.start();
    try {
      const step = await sandbox.socketDriver().runStep({
        callbackId: 'echo_step',
        inputs: { text: 'abc' },
        user: 'U0BOB',
      });
      expect(step.deliveries.map((d) => d.status)).toEqual([200]);
      const done = await sandbox.workspace.waitFor(() => {
        const e = sandbox.workspace.workflows.executions.get(step.execution.id);
        return e?.state === 'completed' ? e : undefined;
      });
      expect(seen[0]).toMatchObject({
        function_execution_id: step.execution.id,
        bot_access_token: step.token,
      });
      expect(done.outputs).toEqual({ echoed: 'abc', length: 3 });
    } finally {
      await socketApp.stop();
    }
  });
});

describe('functions.completeSuccess and completeError', () => {
  it('takes outputs that conform, once; the next step posts them; the token stops working', async () => {
    const step = await run({ text: 'ship it' }, { channel: 'C0AGENTS' });
    const got = await sandbox.workspace.waitFor(() =>
      received.find((r) => r.event.function_execution_id === step.execution.id),
    );
    await got.complete({ outputs: { echoed: 'ship it', length: 7, cost: 0.25, channel: 'C0AGENTS' } });
    const execution = sandbox.workspace.workflows.executions.get(step.execution.id);
    expect(execution).toMatchObject({ state: 'completed', completions: 1 });
    const posted = sandbox.workspace.findMessage('C0AGENTS', execution?.posted?.ts ?? '');
    expect(posted?.text).toContain('*echoed*: ship it');
    expect(posted?.text).toContain('*cost*: 0.25');
    // Slack answers a second completion, and the finished execution's token no longer works.
    expect(
      await api('functions.completeSuccess', sandbox.botToken, {
        function_execution_id: step.execution.id,
        outputs: { echoed: 'again', length: 5 },
      }),
    ).toEqual({ ok: false, error: 'execution_not_in_running_state' });
    expect(
      await api('functions.completeError', step.token, {
        function_execution_id: step.execution.id,
        error: 'late',
      }),
    ).toEqual({ ok: false, error: 'invalid_auth' });
    expect(sandbox.workspace.workflows.executions.get(step.execution.id)?.completions).toBe(1);
  });

  it('refuses outputs against the declared schema, naming each problem: missing, wrong type, undeclared', async () => {
    const step = await run({ text: 'x' });
    const answer = await api('functions.completeSuccess', step.token, {
      function_execution_id: step.execution.id,
      outputs: { echoed: 42, length: 1.5, channel: 'not-a-channel', extra: true },
    });
    expect(answer).toMatchObject({ ok: false, error: 'parameter_validation_failed' });
    expect(answer.errors).toEqual([
      'echoed: must be a string',
      'length: must be an integer',
      'channel: must be a channel_id',
      'extra: is not an output parameter of this function',
    ]);
    const missing = await api('functions.completeSuccess', step.token, {
      function_execution_id: step.execution.id,
      outputs: { echoed: 'x' },
    });
    expect(missing.errors).toEqual(['length: is required']);
    // Still running: a conforming completion is taken.
    expect(
      await api('functions.completeSuccess', step.token, {
        function_execution_id: step.execution.id,
        outputs: { echoed: 'x', length: 1 },
      }),
    ).toEqual({ ok: true });
  });

  it('completeError fails the step with its message; an unknown execution is not found', async () => {
    const step = await run({ text: 'x' });
    expect(
      await api('functions.completeError', sandbox.botToken, {
        function_execution_id: step.execution.id,
        error: 'The agent session s_1 was cancelled.',
      }),
    ).toEqual({ ok: true });
    expect(sandbox.workspace.workflows.executions.get(step.execution.id)).toMatchObject({
      state: 'failed',
      error: 'The agent session s_1 was cancelled.',
    });
    expect(
      await api('functions.completeError', sandbox.botToken, { function_execution_id: 'Fx404', error: 'x' }),
    ).toEqual({ ok: false, error: 'function_execution_not_found' });
    expect(
      await api('functions.completeError', sandbox.botToken, { function_execution_id: step.execution.id }),
    ).toMatchObject({ ok: false, error: 'invalid_arguments' });
  });
});

describe('interactivity inside a step', () => {
  it('a click on a message the step posted with its token carries function_data and bot_access_token', async () => {
    const step = await run({ text: 'approve?' });
    const blocks = [
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' } }],
      },
    ];
    const underStep = await api('chat.postMessage', step.token, { channel: 'C0AGENTS', text: 'ok?', blocks });
    const plain = await api('chat.postMessage', sandbox.botToken, {
      channel: 'C0AGENTS',
      text: 'ok?',
      blocks,
    });
    await driver.act({ user: 'U0ALICE', channel: 'C0AGENTS', ts: String(underStep.ts), actionId: 'approve' });
    await driver.act({ user: 'U0ALICE', channel: 'C0AGENTS', ts: String(plain.ts), actionId: 'approve' });
    await sandbox.workspace.waitFor(() => (clicks.length >= 2 ? clicks : undefined));
    expect(clicks[0]).toMatchObject({
      function_data: {
        execution_id: step.execution.id,
        function: { callback_id: 'echo_step' },
        inputs: { text: 'approve?' },
      },
      bot_access_token: step.token,
    });
    expect(clicks[1]?.function_data).toBeUndefined();
    expect(clicks[1]?.bot_access_token).toBeUndefined();
  });
});

describe('views.open with a step’s interactivity pointer', () => {
  const modal = {
    type: 'modal',
    callback_id: 'confirm_it',
    notify_on_close: true,
    title: { type: 'plain_text', text: 'Confirm' },
    submit: { type: 'plain_text', text: 'Start' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Go?' } }],
  };
  const pointerOf = (step: { execution: { inputs: Record<string, unknown> } }) =>
    String((step.execution.inputs.ran_by as { interactivity_pointer: string }).interactivity_pointer);

  it('opens a view for the person who ran the workflow, once; Slack’s trigger errors otherwise', async () => {
    const step = await driver.runStep({ callbackId: 'whose_step', inputs: { text: 'ask' }, user: 'U0BOB' });
    const pointer = pointerOf(step);
    const opened = await api('views.open', sandbox.botToken, { interactivity_pointer: pointer, view: modal });
    expect(opened).toMatchObject({ ok: true, view: { callback_id: 'confirm_it' } });
    expect(driver.openModal('U0BOB')?.id).toBe((opened.view as { id: string }).id);
    const again = await api('views.open', sandbox.botToken, { interactivity_pointer: pointer, view: modal });
    expect(again).toMatchObject({ ok: false, error: 'exchanged_trigger_id' });
    const unknown = await api('views.open', sandbox.botToken, {
      interactivity_pointer: '1700000000000.123.abc',
      view: modal,
    });
    expect(unknown).toMatchObject({ ok: false, error: 'invalid_trigger_id' });
    const other = await driver.runStep({ callbackId: 'whose_step', inputs: { text: 'b' }, user: 'U0BOB' });
    const both = await api('views.open', sandbox.botToken, {
      interactivity_pointer: pointerOf(other),
      trigger_id: '1.2.3',
      view: modal,
    });
    expect(both).toMatchObject({ ok: false, error: 'invalid_arguments' });
    const neither = await api('views.open', sandbox.botToken, { view: modal });
    expect(neither).toMatchObject({ ok: false, error: 'invalid_arguments' });
  });

  it('a pointer too old is expired_trigger_id, as a trigger_id is', () => {
    const interactions = new Interactions(new Workspace(), () => 'http://sandbox.invalid', 0);
    const pointer = interactions.issuePointer('U0ALICE', 'FxOLD');
    const issued = Date.now();
    // A lifetime of 0 ms: any later millisecond is past it.
    while (Date.now() === issued) {}
    expect(() => interactions.consumePointer(pointer)).toThrow(/expired_trigger_id/);
  });

  it('the view so opened carries the step’s execution when submitted or closed, while the step runs', async () => {
    const submitted: Array<Record<string, unknown>> = [];
    app.view('confirm_it', async ({ ack, body }) => {
      await ack();
      submitted.push(body as unknown as Record<string, unknown>);
    });
    const step = await driver.runStep({ callbackId: 'whose_step', inputs: { text: 'c' }, user: 'U0BOB' });
    const opened = await api('views.open', sandbox.botToken, {
      interactivity_pointer: pointerOf(step),
      view: modal,
    });
    await driver.submitView({ user: 'U0BOB', viewId: (opened.view as { id: string }).id, values: {} });
    expect(submitted.at(-1)).toMatchObject({
      type: 'view_submission',
      function_data: { execution_id: step.execution.id, function: { callback_id: 'whose_step' } },
      bot_access_token: step.token,
    });
  });
});

describe('a workflow on the page', () => {
  const page = async (path: string, body: unknown) => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { ok: boolean; error?: string; result?: { execution: { id: string } } };
  };

  it('runs the step with the form’s values typed as declared, then posts the outputs in the chosen channel', async () => {
    const answer = await page('/sandbox/workflow', {
      callbackId: 'echo_step',
      user: 'U0BOB',
      values: { text: 'from the page', who: 'U0ALICE' },
      nextChannel: 'C0AGENTS',
    });
    expect(answer.ok).toBe(true);
    const id = answer.result?.execution.id as string;
    expect(JSON.stringify(answer)).not.toContain('xwfp-');
    const got = await sandbox.workspace.waitFor(() =>
      received.find((r) => r.event.function_execution_id === id),
    );
    expect(got.event.inputs).toEqual({ text: 'from the page', who: 'U0ALICE' });
    await got.complete({ outputs: { echoed: 'from the page', length: 13 } });
    const execution = sandbox.workspace.workflows.executions.get(id);
    expect(sandbox.workspace.findMessage('C0AGENTS', execution?.posted?.ts ?? '')?.text).toContain(
      '*echoed*: from the page',
    );
    const state = (await (await fetch(`${sandbox.url}/sandbox/state`)).json()) as {
      workflows: { definitions: Record<string, unknown>; executions: Array<{ id: string; state: string }> };
    };
    expect(Object.keys(state.workflows.definitions)).toEqual(['echo_step', 'whose_step']);
    expect(state.workflows.executions.find((e) => e.id === id)?.state).toBe('completed');
    expect(JSON.stringify(state)).not.toContain('xwfp-');
  });

  it('names the field when a value can’t be typed, and the step when it isn’t declared', async () => {
    const notes = await page('/sandbox/workflow', {
      callbackId: 'echo_step',
      user: 'U0BOB',
      values: { text: 'x', who: 'U0ALICE', colour: 'red' },
    });
    expect(notes).toEqual({ ok: false, error: 'colour is not an input of this step' });
    expect(await page('/sandbox/workflow', { callbackId: 'nope', user: 'U0BOB', values: {} })).toEqual({
      ok: false,
      error: 'the app declares no step nope',
    });
    const page_ = await (await fetch(`${sandbox.url}/`)).text();
    expect(page_).toContain('data-testid="workflows-panel"');
    expect((await fetch(`${sandbox.url}/web/workflows.js`)).status).toBe(200);
  });
});
