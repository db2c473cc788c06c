import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, SqlStore } from '../../../src/index.js';
import { createLogger } from '../../../src/logger.js';
import type { EndedSession } from '../../../src/services/workflows/step-outcome.js';
import { WorkflowSteps } from '../../../src/services/workflows/workflow-steps.js';
import { inWorkspace } from '../../../src/workspace.js';

// The steps' own rules, with the store they share: two replicas sweeping one execution complete it once;
// a step whose inputs can't run fails at once naming the field; Slack's "already completed" is taken as
// done; outputs Slack refuses become a failure a person reads. Slack and the service are stand-ins here:
// the end-to-end suite (test/e2e/workflow-steps.test.ts) runs the same against the sandbox and the emulator.
const logger = createLogger({ secrets: [], level: 'silent' });

type Call = { method: string; args: Record<string, unknown> };

function slackThat(answer: (method: string) => Error | undefined = () => undefined) {
  const calls: Call[] = [];
  const call = (method: string) => async (args: Record<string, unknown>) => {
    calls.push({ method, args });
    const error = answer(method);
    if (error) throw error;
    return { ok: true };
  };
  return {
    calls,
    functions: {
      completeSuccess: call('functions.completeSuccess'),
      completeError: call('functions.completeError'),
    },
    chat: { getPermalink: async () => ({ ok: true, permalink: 'https://slack.example/archives/C1/p1' }) },
  };
}

/** A Slack error as the Web API client throws it. */
const slackError = (code: string) => Object.assign(new Error(code), { data: { ok: false, error: code } });

let store: SqlStore;
beforeAll(async () => {
  store = await SqlStore.open(await openPglite(undefined));
});
afterAll(async () => {
  await store?.close();
});

function steps(
  slack: ReturnType<typeof slackThat>,
  session: EndedSession,
  startingMs = 120_000,
  isolated = false,
) {
  return new WorkflowSteps({
    executions: store.workflowExecutions,
    sessions: store.sessions,
    starting: { start: async () => ({ ok: false, message: 'not in these tests' }) },
    readSession: async () => session,
    // The stand-in answers what the steps call; the client's full type has far more.
    slack: slack as unknown as ConstructorParameters<typeof WorkflowSteps>[0]['slack'],
    isolated,
    settings: { checkMs: 60_000, startingMs },
    logger,
  });
}

const completed: EndedSession = {
  status: 'completed',
  completionReport: { summary: 'Shipped' },
  cost: { totalCost: 2 },
};

/** A "Wait for an agent session" step recorded as waiting on `sessionId`. */
const waitingStep = (executionId: string, sessionId: string) =>
  store.workflowExecutions.record({
    executionId,
    callbackId: 'wait_for_agent_session',
    state: 'waiting',
    sessionId,
  });

describe('WorkflowSteps', () => {
  it('two replicas sweeping the same ended session complete its step once', async () => {
    await store.sessions.create({
      sessionId: 's_race',
      channelId: 'C1',
      cardTs: '1.000001',
      startedBy: 'U1',
      goal: 'race',
      budget: null,
    });
    await store.sessions.update('s_race', { status: 'completed', finished: true });
    await waitingStep('FxRACE', 's_race');
    const slack = slackThat();
    await Promise.all([steps(slack, completed).sweep(), steps(slack, completed).sweep()]);
    expect(slack.calls.map((c) => c.method)).toEqual(['functions.completeSuccess']);
    expect(slack.calls[0]?.args).toEqual({
      function_execution_id: 'FxRACE',
      outputs: {
        session_id: 's_race',
        status: 'completed',
        result: expect.stringContaining('Shipped'),
        cost: 2,
      },
    });
    expect(await store.workflowExecutions.get('FxRACE')).toMatchObject({ state: 'done', outcome: 'success' });
  });

  it('fails at once, naming each field, when the inputs can’t run; a person to ask is required', async () => {
    const slack = slackThat();
    const service = steps(slack, completed);
    await service.run('FxBAD', { goal: '', budget: 'lots', max_iterations: 2.5, context: '[1]' });
    await service.run('FxNOBODY', { goal: 'ship' });
    expect(slack.calls.map((c) => [c.method, c.args.function_execution_id])).toEqual([
      ['functions.completeError', 'FxBAD'],
      ['functions.completeError', 'FxNOBODY'],
    ]);
    expect(slack.calls[0]?.args.error).toBe(
      'This step can\'t run: goal: tell the agent what to do (the goal is required); budget: a positive number of USD, like 5 or 2.50; max_iterations: a whole number above 0; context: The context must be a JSON object, like {"repo": "acme/api"}.',
    );
    expect(slack.calls[1]?.args.error).toMatch(/"Person to ask" \(mention\) is empty/);
    // Slack delivering the same execution again starts nothing and completes nothing more.
    await service.run('FxBAD', { goal: 'ship', mention: 'U1' });
    expect(slack.calls).toHaveLength(2);
  });

  it('takes Slack’s "already completed" as done, and turns refused outputs into a readable failure', async () => {
    await waitingStep('FxGONE', 's_elsewhere');
    const gone = slackThat(() => slackError('execution_not_in_running_state'));
    await steps(gone, completed).sweep();
    expect(await store.workflowExecutions.get('FxGONE')).toMatchObject({ state: 'done' });

    await waitingStep('FxREFUSED', 's_elsewhere_2');
    const refusing = slackThat((m) =>
      m === 'functions.completeSuccess' ? slackError('parameter_validation_failed') : undefined,
    );
    await steps(refusing, completed).sweep();
    expect(refusing.calls.map((c) => c.method)).toEqual([
      'functions.completeSuccess',
      'functions.completeError',
    ]);
    expect(refusing.calls[1]?.args.error).toBe('Slack refused the outputs the bot gave this step.');
    expect(await store.workflowExecutions.get('FxREFUSED')).toMatchObject({
      state: 'done',
      outcome: 'error',
    });
  });

  it('a session still running leaves its step open; one the bot died while starting fails after a while', async () => {
    await waitingStep('FxRUNNING', 's_running');
    await store.workflowExecutions.record({
      executionId: 'FxSTUCK',
      callbackId: 'run_agent_session',
      state: 'starting',
    });
    const slack = slackThat();
    await steps(slack, { status: 'running' }, 0).sweep();
    expect(slack.calls.map((c) => [c.method, c.args.function_execution_id])).toEqual([
      ['functions.completeError', 'FxSTUCK'],
    ]);
    expect(slack.calls[0]?.args.error).toMatch(/restarted while starting/);
    expect(await store.workflowExecutions.get('FxRUNNING')).toMatchObject({ state: 'waiting' });
  });

  it('under OAuth installs, a wait step never reads another workspace’s session, whatever its id', async () => {
    const north = { teamId: 'T0NORTH', key: 'T0NORTH', isEnterpriseInstall: false, isolated: true };
    const south = { teamId: 'T0SOUTH', key: 'T0SOUTH', isEnterpriseInstall: false, isolated: true };
    await inWorkspace(north, () =>
      store.sessions.create({
        sessionId: 's_north',
        channelId: 'C1',
        cardTs: '2.000001',
        startedBy: 'U1',
        goal: 'north only',
        budget: null,
      }),
    );
    await store.sessions.update('s_north', { status: 'completed', finished: true });
    const slack = slackThat();
    await inWorkspace(south, () =>
      steps(slack, completed, 120_000, true).wait('FxSOUTH', { session_id: 's_north' }),
    );
    expect(slack.calls.map((c) => c.method)).toEqual(['functions.completeError']);
    expect(slack.calls[0]?.args.error).toBe(
      'The Agent Session Service has no session s_north this bot may see here (it belongs to another workspace).',
    );
  });
});
