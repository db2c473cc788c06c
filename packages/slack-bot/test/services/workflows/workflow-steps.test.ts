import type { ModalView } from '@slack/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patient } from '../../../../../test/support/patience.js';
import { openPglite, SqlStore } from '../../../src/index.js';
import { createLogger } from '../../../src/logger.js';
import type { StartInput } from '../../../src/services/people/starting.js';
import { UNATTENDED_ORIGIN } from '../../../src/services/workflows/step-access.js';
import type { EndedSession } from '../../../src/services/workflows/step-outcome.js';
import { type WorkflowStepSettings, WorkflowSteps } from '../../../src/services/workflows/workflow-steps.js';
import { inWorkspace } from '../../../src/workspace.js';

// The steps' own rules, with the store they share: whom a step acts for (the person Slack names as
// having run the workflow), who it may ask, which sessions a wait step may read, and a sweep that no
// workspace's open executions can stall. Slack, the service and the access readers are stand-ins here:
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
    chat: {
      getPermalink: async () => ({ ok: true, permalink: 'https://slack.example/archives/C1/p1' }),
      postMessage: call('chat.postMessage'),
    },
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

/** Who is where in these tests: Alice and Bob in C0AGENTS, Bob the one approver. */
const MEMBERS: Record<string, string[]> = { C0AGENTS: ['U0ALICE', 'U0BOB'] };
const APPROVERS = ['U0BOB'];

interface Options {
  session?: EndedSession;
  settings?: Partial<WorkflowStepSettings>;
  admitted?: (w: { teamId?: string | undefined }) => boolean;
  /** Slack's answer to the confirmation's views.open, when it refuses the pointer. */
  pointerRefused?: string;
  defaultBudget?: number;
}

/** The workspace's public channels (conversations.info: not private, not a DM, not shared out). */
const PUBLIC = ['C0AGENTS', 'C0GENERAL'];

/** The runner's Start in the confirmation (Slack answered as the listener would). */
const confirmAs = (service: WorkflowSteps, executionId: string, user: string) =>
  service.confirm(executionId, user, async () => {});

function steps(slack: ReturnType<typeof slackThat>, options: Options = {}) {
  const starts: StartInput[] = [];
  const asked: { pointer: string; view: ModalView }[] = [];
  const service = new WorkflowSteps({
    executions: store.workflowExecutions,
    sessions: store.sessions,
    starting: {
      start: async (input) => {
        starts.push(input);
        return { ok: false, message: 'recorded, not started, in these tests' };
      },
      // The channel's default budget, as `/agent settings` gives one, filled in when the step gives none.
      check: async (input) => ({
        ok: true,
        input: { ...input, budget: input.budget ?? options.defaultBudget },
        key: undefined,
      }),
    },
    access: {
      members: { includes: async (channel, user) => (MEMBERS[channel] ?? []).includes(user) },
      // starter-or-approvers: the starter and the approvers may answer.
      policy: {
        mayAct: async (user, target) =>
          user === target.session.startedBy || APPROVERS.includes(user)
            ? { allowed: true }
            : { allowed: false, reason: 'no' },
      },
      botUserId: async () => 'U0AGENTBOT',
      unattended: options.settings?.unattended ?? false,
      publicChannel: async (channel) => PUBLIC.includes(channel),
    },
    readSession: async () => options.session ?? completed,
    confirmation: {
      open: async (pointer, view) => {
        if (options.pointerRefused) throw slackError(options.pointerRefused);
        asked.push({ pointer, view });
      },
      personalKeys: true,
    },
    // The stand-in answers what the steps call; the client's full type has far more.
    slack: slack as unknown as ConstructorParameters<typeof WorkflowSteps>[0]['slack'],
    chat: slack as unknown as ConstructorParameters<typeof WorkflowSteps>[0]['chat'],
    ...(options.admitted ? { admitted: options.admitted } : {}),
    isolated: false,
    settings: { checkMs: 60_000, ...options.settings },
    logger,
  });
  return Object.assign(service, { starts, asked });
}

const completed: EndedSession = {
  status: 'completed',
  completionReport: { summary: 'Shipped' },
  cost: { totalCost: 2 },
};

/** Slack's interactivity input of a run `user` started (a link, a button). */
const ranBy = (user: string) => ({
  interactivity: { interactor: { id: user, secret: 's3cr3t' }, interactivity_pointer: '1.2.abc' },
});

/** A "Wait for an agent session" step recorded as waiting on `sessionId`. */
async function waitingStep(executionId: string, sessionId: string) {
  await store.workflowExecutions.record({
    executionId,
    callbackId: 'wait_for_agent_session',
    state: 'waiting',
  });
  await store.workflowExecutions.started(executionId, { sessionId, channelId: 'C1', userId: 'U1' });
}

async function session(sessionId: string, finished: boolean, at = { channelId: 'C1', startedBy: 'U1' }) {
  await store.sessions.create({ sessionId, ...at, cardTs: '1.000001', goal: sessionId, budget: null });
  if (finished) await store.sessions.update(sessionId, { status: 'completed', finished: true });
}

describe('WorkflowSteps: whom a step acts for', () => {
  it('starts the session for the person who ran the workflow, never for the person an input names', async () => {
    const slack = slackThat();
    const service = steps(slack);
    await service.run(
      'FxASKBOB',
      { goal: 'ship', channel: 'C0AGENTS', mention: 'U0BOB', ...ranBy('U0ALICE') },
      { executionId: 'Wx1' },
    );
    expect(service.starts).toEqual([]);
    await confirmAs(service, 'FxASKBOB', 'U0ALICE');
    expect(service.starts).toEqual([
      expect.objectContaining({ userId: 'U0ALICE', channelId: 'C0AGENTS', workflow: { executionId: 'Wx1' } }),
    ]);
    expect(service.starts[0]?.runsAs).toBeUndefined();

    // Carol may not answer Alice's session under this policy: the step can't ask her, so nothing starts.
    await service.run(
      'FxASKCAROL',
      { goal: 'ship', channel: 'C0AGENTS', mention: 'U0CAROL', ...ranBy('U0ALICE') },
      { executionId: 'Wx2' },
    );
    expect(service.starts).toHaveLength(1);
    const refused = slack.calls.filter((c) => c.args.function_execution_id === 'FxASKCAROL');
    expect(refused.map((c) => c.method)).toEqual(['functions.completeError']);
    expect(refused[0]?.args.error).toMatch(
      /^This step can't run: mention: U0CAROL may not answer this session’s questions under AGENT_APPROVAL_POLICY/,
    );
  });

  it('starts only where its runner is a member: a channel the runner is not in is refused, naming the field', async () => {
    const slack = slackThat();
    const service = steps(slack);
    // Carol builds a workflow that names Alice and a channel Carol is not in, and runs it herself.
    await service.run(
      'FxCAROL',
      { goal: 'read the ops channel', channel: 'C0AGENTS', mention: 'U0ALICE', ...ranBy('U0CAROL') },
      { executionId: 'Wx3' },
    );
    expect(service.starts).toEqual([]);
    expect(slack.calls[0]?.args.error).toMatch(
      /^This step can't run: channel: C0AGENTS is not a conversation you are in/,
    );
    // Without a channel, the runner's own DM with the app.
    await service.run('FxDM', { goal: 'in my DM', ...ranBy('U0CAROL') }, { executionId: 'Wx4' });
    await confirmAs(service, 'FxDM', 'U0CAROL');
    expect(service.starts).toEqual([expect.objectContaining({ userId: 'U0CAROL', channelId: 'U0CAROL' })]);
  });

  it('checks ids for their form, naming each field and rule; a run nobody ran is refused while the setting is off', async () => {
    const slack = slackThat();
    const service = steps(slack);
    await service.run(
      'FxIDS',
      { goal: 'x', channel: '#general', mention: 'carol', interactivity: { interactor: { id: 'alice' } } },
      { executionId: 'Wx5' },
    );
    expect(slack.calls[0]?.args.error).toBe(
      "This step can't run: interactivity: Slack’s interactivity context, whose interactor.id is a user id (U… or W…); channel: a channel id (C…, G… or D…), like a channel picked in Workflow Builder; mention: a user id (U… or W…), like a person picked in Workflow Builder.",
    );
    await service.run(
      'FxSCHEDULE',
      { goal: 'nightly', channel: 'C0AGENTS', mention: 'U0ALICE' },
      { executionId: 'Wx6' },
    );
    expect(slack.calls[1]?.args.error).toMatch(/nobody ran this one .*WORKFLOW_UNATTENDED_RUNS/);
    expect(service.starts).toEqual([]);
  });

  it('with WORKFLOW_UNATTENDED_RUNS, a run nobody ran is the workspace’s: its key, the bot on the card, never the named person', async () => {
    const slack = slackThat();
    const service = steps(slack, { settings: { unattended: true } });
    await service.run(
      'FxNIGHTLY',
      { goal: 'nightly', channel: 'C0AGENTS', mention: 'U0BOB' },
      { executionId: 'Wx7', step: 'Run an agent session' },
    );
    expect(service.starts).toEqual([
      expect.objectContaining({
        userId: 'U0AGENTBOT',
        runsAs: 'workspace',
        channelId: 'C0AGENTS',
        workflow: { executionId: 'Wx7', step: 'Run an agent session' },
      }),
    ]);
  });

  it('a run nobody ran starts only in a public channel: a private one, a DM or one Slack won’t describe is refused', async () => {
    const slack = slackThat();
    const service = steps(slack, { settings: { unattended: true } });
    for (const [executionId, channel] of [
      ['FxNOBODYG', 'G0FINANCE'],
      ['FxNOBODYC', 'C0FINANCE'],
      ['FxNOBODYD', 'D0ALICE'],
    ] as const)
      await service.run(executionId, { goal: 'quote your context', channel }, { executionId: 'Wx9' });
    expect(service.starts).toEqual([]);
    expect(slack.calls.map((c) => [c.method, c.args.error])).toEqual(
      ['G0FINANCE', 'C0FINANCE', 'D0ALICE'].map((channel) => [
        'functions.completeError',
        expect.stringMatching(new RegExp(`channel: ${channel} is not a public channel; a run nobody ran`)),
      ]),
    );
  });

  it('fails at once, naming each field, when the inputs can’t run; Slack delivering it again does nothing', async () => {
    const slack = slackThat();
    const service = steps(slack);
    await service.run(
      'FxBAD',
      { goal: '', budget: 'lots', max_iterations: 2.5, context: '[1]', ...ranBy('U0ALICE') },
      { executionId: 'Wx8' },
    );
    expect(slack.calls[0]?.args.error).toBe(
      'This step can\'t run: goal: tell the agent what to do (the goal is required); budget: a positive number of USD, like 5 or 2.50; max_iterations: a whole number above 0; context: The context must be a JSON object, like {"repo": "acme/api"}.',
    );
    await service.run('FxBAD', { goal: 'ship', ...ranBy('U0ALICE') }, { executionId: 'Wx8' });
    expect(slack.calls).toHaveLength(1);
  });
});

describe('WorkflowSteps: the runner confirms before a session starts in their name', () => {
  it('asks with the step’s pointer, starts on Start once (whichever replica takes it), and only for the runner', async () => {
    const slack = slackThat();
    const one = steps(slack);
    await one.run(
      'FxCONFIRM',
      { goal: 'ship <!channel>', channel: 'C0AGENTS', budget: 3, ...ranBy('U0ALICE') },
      { executionId: 'Wx20' },
    );
    expect(one.starts).toEqual([]);
    expect(one.asked).toHaveLength(1);
    expect(one.asked[0]?.pointer).toBe('1.2.abc');
    expect(JSON.stringify(one.asked[0]?.view)).not.toContain('<!channel>');
    expect(await store.workflowExecutions.get('FxCONFIRM')).toMatchObject({ state: 'confirming' });
    // Another replica (or this one after a restart) gets the answer; Bob's forged answer does nothing.
    const two = steps(slack);
    const answers: boolean[] = [];
    await two.confirm('FxCONFIRM', 'U0BOB', async (waited) => void answers.push(waited));
    expect(two.starts).toEqual([]);
    await two.confirm('FxCONFIRM', 'U0ALICE', async (waited) => void answers.push(waited));
    await two.confirm('FxCONFIRM', 'U0ALICE', async (waited) => void answers.push(waited));
    await two.decline('FxCONFIRM', 'U0ALICE');
    expect(answers).toEqual([false, true, false]);
    expect(two.starts).toEqual([
      expect.objectContaining({ userId: 'U0ALICE', goal: 'ship <!channel>', budget: 3 }),
    ]);
    expect(slack.calls.filter((c) => c.args.function_execution_id === 'FxCONFIRM')).toHaveLength(1);
  });

  it('starts what the runner saw: a channel default changed after they were asked doesn’t change it', async () => {
    const slack = slackThat();
    const asking = steps(slack, { defaultBudget: 4 });
    await asking.run('FxSHOWN', { goal: 'as shown', ...ranBy('U0ALICE') }, { executionId: 'Wx24' });
    expect(JSON.stringify(asking.asked[0]?.view)).toContain('$4.00');
    const later = steps(slack, { defaultBudget: 9 });
    await confirmAs(later, 'FxSHOWN', 'U0ALICE');
    expect(later.starts).toEqual([expect.objectContaining({ goal: 'as shown', budget: 4 })]);
  });

  it('a decline fails the step saying so and starts nothing; an unanswered one fails at the deadline; a refused pointer fails at once', async () => {
    const slack = slackThat();
    const service = steps(slack);
    await service.run('FxDECLINE', { goal: 'nope', ...ranBy('U0ALICE') }, { executionId: 'Wx21' });
    await service.decline('FxDECLINE', 'U0ALICE');
    await confirmAs(service, 'FxDECLINE', 'U0ALICE');
    expect(service.starts).toEqual([]);
    const declined = slack.calls.filter((c) => c.args.function_execution_id === 'FxDECLINE');
    expect(declined.map((c) => c.method)).toEqual(['functions.completeError']);
    expect(declined[0]?.args.error).toMatch(/declined to start this step’s agent session/);

    await service.run('FxSILENT', { goal: 'later', ...ranBy('U0ALICE') }, { executionId: 'Wx22' });
    await steps(slack).sweep();
    expect(await store.workflowExecutions.get('FxSILENT')).toMatchObject({ state: 'confirming' });
    await steps(slack, { settings: { deadlineMs: 0 } }).sweep();
    const silent = slack.calls.filter((c) => c.args.function_execution_id === 'FxSILENT');
    expect(silent[0]?.args.error).toMatch(
      /^Nobody confirmed this step's agent session within .*WORKFLOW_STEP_DEADLINE/,
    );

    const refusing = steps(slack, { pointerRefused: 'expired_trigger_id' });
    await refusing.run('FxSTALE', { goal: 'too late', ...ranBy('U0ALICE') }, { executionId: 'Wx23' });
    const stale = slack.calls.filter((c) => c.args.function_execution_id === 'FxSTALE');
    expect(stale[0]?.args.error).toMatch(
      /could not ask you to confirm .*\(Slack answered expired_trigger_id\)/,
    );
    expect(refusing.starts).toEqual([]);
  });
});

describe('WorkflowSteps: the wait step reads only what its runner started', () => {
  it('answers one not-found for a session another started (an approver’s or a member’s run too), one that doesn’t exist, and another workspace’s', async () => {
    await session('s_agents', true, { channelId: 'C0AGENTS', startedBy: 'U0ALICE' });
    const north = { teamId: 'T0NORTH', key: 'T0NORTH', isEnterpriseInstall: false, isolated: true };
    await inWorkspace(north, () => session('s_north', true, { channelId: 'C0AGENTS', startedBy: 'U0ALICE' }));
    const south = { ...north, teamId: 'T0SOUTH', key: 'T0SOUTH' };
    const slack = slackThat();
    const service = steps(slack);
    await service.wait('FxCAROLWAITS', { session_id: 's_agents', ...ranBy('U0CAROL') });
    await service.wait('FxNOSUCH', { session_id: 's_nosuch', ...ranBy('U0CAROL') });
    await inWorkspace(south, () => service.wait('FxSOUTH', { session_id: 's_north', ...ranBy('U0ALICE') }));
    // Bob is an approver and a member of the channel: he sees it, but the outputs go to whoever built the
    // workflow, so his run reads only his own sessions.
    await service.wait('FxBOBWAITS', { session_id: 's_agents', ...ranBy('U0BOB') });
    await service.wait('FxNOBODYWAITS', { session_id: 's_agents' });
    expect(slack.calls.map((c) => [c.method, c.args.error])).toEqual([
      ['functions.completeError', 'There is no session `s_agents` that you can see.'],
      ['functions.completeError', 'There is no session `s_nosuch` that you can see.'],
      ['functions.completeError', 'There is no session `s_north` that you can see.'],
      ['functions.completeError', 'There is no session `s_agents` that you can see.'],
      ['functions.completeError', 'There is no session `s_agents` that you can see.'],
    ]);
    await service.wait('FxALICEWAITS', { session_id: 's_agents', ...ranBy('U0ALICE') });
    expect(slack.calls.at(-1)).toMatchObject({
      method: 'functions.completeSuccess',
      args: {
        function_execution_id: 'FxALICEWAITS',
        outputs: { session_id: 's_agents', status: 'completed' },
      },
    });
  });

  it('a run nobody ran reads only a session a run nobody ran started in the same workspace', async () => {
    const north = { teamId: 'T0NORTH', key: 'T0NORTH', isEnterpriseInstall: false, isolated: true };
    const south = { ...north, teamId: 'T0SOUTH', key: 'T0SOUTH' };
    const byBot = { channelId: 'C0AGENTS', startedBy: 'U0AGENTBOT' };
    await inWorkspace(north, async () => {
      await store.sessions.create({
        ...{ sessionId: 's_unattended', ...byBot, cardTs: '1.000001', goal: 'g', budget: null },
        origin: UNATTENDED_ORIGIN,
      });
      await store.sessions.update('s_unattended', { status: 'completed', finished: true });
      // The bot on the card of a session a person asked for through it: not a run nobody ran.
      await session('s_bot_card', true, byBot);
    });
    const slack = slackThat();
    const service = steps(slack);
    await inWorkspace(south, () => service.wait('FxOTHERPLACE', { session_id: 's_unattended' }));
    await inWorkspace(north, () => service.wait('FxNOTUNATTENDED', { session_id: 's_bot_card' }));
    await inWorkspace(north, () =>
      service.wait('FxALICE', { session_id: 's_unattended', ...ranBy('U0ALICE') }),
    );
    expect(slack.calls.map((c) => c.args.error)).toEqual([
      'There is no session `s_unattended` that you can see.',
      'There is no session `s_bot_card` that you can see.',
      'There is no session `s_unattended` that you can see.',
    ]);
    await inWorkspace(north, () => service.wait('FxNOBODY', { session_id: 's_unattended' }));
    expect(slack.calls.at(-1)).toMatchObject({
      method: 'functions.completeSuccess',
      args: { function_execution_id: 'FxNOBODY', outputs: { session_id: 's_unattended' } },
    });
  });

  it('a run nobody ran reads such a session whose card also names the channel defaults it took', async () => {
    await store.sessions.create({
      ...{ sessionId: 's_defaults_unattended', channelId: 'C0AGENTS', startedBy: 'U0AGENTBOT' },
      ...{ cardTs: '1.000001', goal: 'g', budget: null },
      origin: `${UNATTENDED_ORIGIN} · Channel defaults: budget $4.00`,
    });
    await store.sessions.update('s_defaults_unattended', { status: 'completed', finished: true });
    const slack = slackThat();
    await steps(slack).wait('FxNOBODYDEFAULTS', { session_id: 's_defaults_unattended' });
    expect(slack.calls.at(-1)).toMatchObject({
      method: 'functions.completeSuccess',
      args: { outputs: { session_id: 's_defaults_unattended' } },
    });
  });

  it('a run nobody ran reads no session in a private channel, even one a run nobody ran started there', async () => {
    await store.sessions.create({
      ...{ sessionId: 's_private_unattended', channelId: 'G0FINANCE', startedBy: 'U0AGENTBOT' },
      ...{ cardTs: '1.000001', goal: 'g', budget: null, origin: UNATTENDED_ORIGIN },
    });
    await store.sessions.update('s_private_unattended', { status: 'completed', finished: true });
    const slack = slackThat();
    await steps(slack).wait('FxNOBODYPRIVATE', { session_id: 's_private_unattended' });
    expect(slack.calls).toEqual([
      expect.objectContaining({
        method: 'functions.completeError',
        args: expect.objectContaining({
          error: 'There is no session `s_private_unattended` that you can see.',
        }),
      }),
    ]);
  });
});

describe('WorkflowSteps: the sweep', () => {
  it('two replicas sweeping the same ended session complete its step once, with a plain-text result', async () => {
    await session('s_race', true);
    await waitingStep('FxRACE', 's_race');
    const slack = slackThat();
    await Promise.all([steps(slack).sweep(), steps(slack).sweep()]);
    expect(slack.calls.map((c) => c.method)).toEqual(['functions.completeSuccess']);
    expect(slack.calls[0]?.args).toEqual({
      function_execution_id: 'FxRACE',
      outputs: {
        session_id: 's_race',
        status: 'completed',
        result: '✅ Ended · Completed\nShipped\nCost $2.00',
        cost: 2,
      },
    });
    expect(await store.workflowExecutions.get('FxRACE')).toMatchObject({ state: 'done', outcome: 'success' });
  });

  it('takes Slack’s "already completed" as done, and turns refused outputs into a readable failure', async () => {
    await session('s_gone', true);
    await waitingStep('FxGONE', 's_gone');
    await steps(slackThat(() => slackError('execution_not_in_running_state'))).sweep();
    expect(await store.workflowExecutions.get('FxGONE')).toMatchObject({ state: 'done' });

    await session('s_refused', true);
    await waitingStep('FxREFUSED', 's_refused');
    const refusing = slackThat((m) =>
      m === 'functions.completeSuccess' ? slackError('parameter_validation_failed') : undefined,
    );
    await steps(refusing).sweep();
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

  it('one workspace’s 200+ stuck executions don’t keep another’s from completing', async () => {
    const stuck = { teamId: 'T0STUCK', key: 'T0STUCK', isEnterpriseInstall: false, isolated: false };
    const other = { teamId: 'T0OTHER', key: 'T0OTHER', isEnterpriseInstall: false, isolated: false };
    await session('s_forever', false);
    await inWorkspace(stuck, async () => {
      for (let i = 0; i < 230; i++) await waitingStep(`FxSTUCK${String(i).padStart(3, '0')}`, 's_forever');
    });
    await session('s_other_done', true);
    await inWorkspace(other, () => waitingStep('FxOTHER', 's_other_done'));
    const slack = slackThat();
    await steps(slack).sweep();
    expect(slack.calls.map((c) => [c.method, c.args.function_execution_id])).toContainEqual([
      'functions.completeSuccess',
      'FxOTHER',
    ]);
    expect(await store.workflowExecutions.get('FxSTUCK229')).toMatchObject({ state: 'waiting' });
  });

  it('one workspace’s backlog of due completions holds back no other workspace’s, and a sweep sends at most its cap of them', async () => {
    const busy = { teamId: 'T0BUSY', key: 'T0BUSY', isEnterpriseInstall: false, isolated: false };
    const quiet = { teamId: 'T0QUIET', key: 'T0QUIET', isEnterpriseInstall: false, isolated: false };
    await session('s_busy_done', true);
    // The busy workspace's executions come first in the store's order, as a backlog's oldest rows would.
    const backlog = Array.from({ length: 12 }, (_, i) => `FxBUSY${String(i).padStart(2, '0')}`);
    await inWorkspace(busy, async () => {
      for (const id of backlog) await waitingStep(id, 's_busy_done');
    });
    await inWorkspace(quiet, () => waitingStep('FxQUIET', 's_busy_done'));
    // What happened, in order. The busy workspace's first completion is held in flight until the quiet
    // workspace's is sent (or, where that never comes, until a generous escape so the test ends).
    const events: string[] = [];
    let quietSent: () => void = () => {};
    const quietWasSent = new Promise<void>((resolve) => {
      quietSent = resolve;
    });
    const slack = slackThat();
    const complete = slack.functions.completeSuccess;
    slack.functions.completeSuccess = async (args) => {
      const id = String(args.function_execution_id);
      events.push(`start ${id}`);
      if (id === 'FxQUIET') quietSent();
      if (id === backlog[0])
        await Promise.race([quietWasSent, new Promise((r) => setTimeout(r, patient(10_000)).unref())]);
      const answer = await complete(args);
      events.push(`end ${id}`);
      return answer;
    };
    await steps(slack, { settings: { sweep: { concurrency: 2, cap: 3 } } }).sweep();
    expect(events.indexOf('start FxQUIET')).toBeGreaterThan(-1);
    expect(events.indexOf('start FxQUIET')).toBeLessThan(events.indexOf(`end ${backlog[0]}`));
    const sentFor = (id: string) => slack.calls.filter((c) => c.args.function_execution_id === id).length;
    // The cap: three of the backlog this sweep, the rest left open for the next ones.
    expect(backlog.map(sentFor)).toEqual([1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(await store.workflowExecutions.get(backlog[3] as string)).toMatchObject({ state: 'waiting' });
    await steps(slack, { settings: { sweep: { concurrency: 2, cap: 3 } } }).sweep();
    expect(backlog.map(sentFor)).toEqual([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect(sentFor('FxQUIET')).toBe(1);
  });

  it('a step whose session has not ended by the deadline fails, saying the session goes on', async () => {
    await session('s_slow', false);
    await waitingStep('FxSLOW', 's_slow');
    const slack = slackThat();
    await steps(slack, { settings: { deadlineMs: 0 } }).sweep();
    const failed = slack.calls.find((c) => c.args.function_execution_id === 'FxSLOW');
    expect(failed?.method).toBe('functions.completeError');
    expect(failed?.args.error).toMatch(
      /The agent session s_slow did not end within 1 min of the workflow's run, so this step stopped waiting \(WORKFLOW_STEP_DEADLINE\)/,
    );
    expect(await store.workflowExecutions.get('FxSLOW')).toMatchObject({ state: 'done', outcome: 'error' });
  });

  it('ends the open steps of a workspace no longer admitted, without a word to its Slack', async () => {
    const gone = { teamId: 'T0GONE', key: 'T0GONE', isEnterpriseInstall: false, isolated: false };
    await session('s_gone_forever', false);
    await inWorkspace(gone, () => waitingStep('FxDROPPED', 's_gone_forever'));
    const slack = slackThat();
    await steps(slack, { admitted: (w) => w.teamId !== 'T0GONE' }).sweep();
    expect(await store.workflowExecutions.get('FxDROPPED')).toMatchObject({
      state: 'done',
      outcome: 'error',
    });
    expect(slack.calls.filter((c) => c.args.function_execution_id === 'FxDROPPED')).toEqual([]);
  });

  it('prunes completed executions past the retention, and only those', async () => {
    await store.workflowExecutions.record({
      executionId: 'FxOPEN',
      callbackId: 'run_agent_session',
      state: 'starting',
    });
    await session('s_pruned', true);
    await waitingStep('FxPRUNED', 's_pruned');
    await steps(slackThat()).sweep();
    expect(await store.workflowExecutions.get('FxPRUNED')).toMatchObject({ state: 'done' });
    await steps(slackThat(), { settings: { retentionMs: 3_600_000 } }).sweep();
    expect(await store.workflowExecutions.get('FxPRUNED')).toBeDefined();
    await steps(slackThat(), { settings: { retentionMs: 0 } }).sweep();
    expect(await store.workflowExecutions.get('FxPRUNED')).toBeUndefined();
    expect(await store.workflowExecutions.get('FxOPEN')).toMatchObject({ state: 'starting' });
  });

  it('a session still running leaves its step open; one the bot died while starting fails after a while', async () => {
    await session('s_running', false);
    await waitingStep('FxRUNNING', 's_running');
    await store.workflowExecutions.record({
      executionId: 'FxDIED',
      callbackId: 'run_agent_session',
      state: 'starting',
    });
    const slack = slackThat();
    await steps(slack, { settings: { startingMs: 0 } }).sweep();
    const died = slack.calls.filter((c) => c.args.function_execution_id === 'FxDIED');
    expect(died.map((c) => c.method)).toEqual(['functions.completeError']);
    expect(died[0]?.args.error).toMatch(/restarted while starting/);
    expect(await store.workflowExecutions.get('FxRUNNING')).toMatchObject({ state: 'waiting' });
  });
});
