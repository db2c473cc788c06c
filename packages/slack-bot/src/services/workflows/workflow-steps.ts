/**
 * Slack's Workflow Builder steps "Run an agent session" and "Wait for an agent session". A step's
 * execution is recorded in the store when Slack sends it (once, whatever Slack sends again); the session
 * is started for the person who ran the workflow as `/agent start` starts one (step-access.ts:
 * their key, their channel, the allowlists, the budget ceiling), once they confirmed it in the modal the
 * step opens for them (its goal is the builder's); every replica sweeps the executions still open, page
 * by page and round-robin by workspace, and the one that claims an execution whose session ended (or whose deadline passed)
 * completes it in Slack, once: `functions.completeSuccess` with the declared outputs, or
 * `functions.completeError` with a reason a person reads.
 */
import { randomUUID } from 'node:crypto';
import { ServiceError } from '@agent-sessions/core';
import type { ModalView } from '@slack/types';
import { confirmStartView } from '../../blocks/workflow-confirm.js';
import type { Logger } from '../../logger.js';
import type { SessionRepository } from '../../store/sessions.js';
import type {
  OpenCursor,
  PendingStart,
  WorkflowExecution,
  WorkflowExecutionRepository,
} from '../../store/workflow-executions.js';
import { currentWorkspace, inWorkspace, type Workspace, type WorkspaceIds } from '../../workspace.js';
import type { StartingService } from '../people/starting.js';
import { notVisible } from '../people/visibility.js';
import { type SlackChat, type SlackClient, slackErrorCode } from '../slack-out/outbound/index.js';
import { type StartPlan, type StepAccess, startPlan, type WorkflowRef, waitable } from './step-access.js';
import {
  pointerOf,
  RUN_STEP,
  type RunInputs,
  readRunInputs,
  readWaitInputs,
  runnerOf,
  stepInputsOf,
  WAIT_STEP,
} from './step-inputs.js';
import { type EndedSession, endingOf, lostEnding, refusal, type StepEnding } from './step-outcome.js';
import { lanesOf, roundRobin, type SweepOrder } from './sweep-order.js';

/** How often each replica looks at the open executions, how long a step may wait, and what is kept. */
export interface WorkflowStepSettings {
  checkMs: number;
  /** A completion claimed and never finished (its replica died) is claimed again after this. */
  claimMs?: number;
  /** An execution whose session never got recorded (the bot died while starting it) fails after this. */
  startingMs?: number;
  /**
   * WORKFLOW_STEP_DEADLINE: a step whose session hasn't ended, or whose runner hasn't confirmed it, this
   * long after the run fails (default 24 h).
   */
  deadlineMs?: number;
  /** WORKFLOW_STEP_RETENTION: a completed execution's row is deleted this long after (default 7 days). */
  retentionMs?: number;
  /** WORKFLOW_UNATTENDED_RUNS: a run nobody ran (a schedule, a webhook) may start a session. */
  unattended?: boolean;
  /** The sweep's round-robin over workspaces (sweep-order.ts): looks at once, completions a workspace. */
  sweep?: Partial<SweepOrder>;
}

export const DEFAULT_DEADLINE_MS = 24 * 3_600_000;
export const DEFAULT_RETENTION_MS = 7 * 24 * 3_600_000;
/** Open executions read at a time; the sweep reads every page. */
const PAGE = 200;
/**
 * Four looks at once; ten completions a workspace a sweep: at Tier 3's pace (about 50 a minute) that is
 * some twelve seconds of one workspace's backlog before the next sweep looks at everyone again.
 */
export const DEFAULT_SWEEP_ORDER: SweepOrder = { concurrency: 4, cap: 10 };

/** Slack's answers meaning the execution can't be completed any more: someone did, or it timed out. */
const GONE = new Set(['execution_not_in_running_state', 'function_execution_not_found']);

const DECLINED =
  'The person who ran the workflow declined to start this step’s agent session (Cancel in its confirmation), so nothing started.';

const spanOf = (ms: number) =>
  ms >= 3_600_000 && ms % 3_600_000 === 0
    ? `${ms / 3_600_000} h`
    : `${Math.max(1, Math.round(ms / 60_000))} min`;

export class WorkflowSteps {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  readonly #claimId = randomUUID();

  constructor(
    private readonly deps: {
      executions: WorkflowExecutionRepository;
      sessions: Pick<SessionRepository, 'get'>;
      /** `/agent start`'s rules: checked before the runner is asked, and again when the session starts. */
      starting: Pick<StartingService, 'start' | 'check'>;
      /** Whom a step acts for: the runner's rights in the channel, the ask check, who may see a session. */
      access: StepAccess;
      /** The service's read of a session the bot started, with the session's own key. */
      readSession: (sessionId: string) => Promise<EndedSession>;
      /** The current workspace's client: completions (sent through `send`) and the card's permalink. */
      slack: { functions: Pick<SlackClient['functions'], 'completeSuccess' | 'completeError'> } & {
        chat: Pick<SlackClient['chat'], 'getPermalink'>;
      };
      /**
       * The runner's confirmation: opened with the step's interactivity pointer (Slack's `views.open`),
       * and whether sessions run on each person's own key (AGENT_KEYS=per-person), which it says.
       */
      confirmation: { open: (pointer: string, view: ModalView) => Promise<unknown>; personalKeys: boolean };
      /** Posts made for the runner (telling the person to ask), first in their channel's queue. */
      chat: SlackChat<'postMessage'>;
      /** A completion is a call the bot makes on its own: it waits its turn in the outbound queue (Tier 3). */
      send?: <T>(
        method: 'functions.completeSuccess' | 'functions.completeError',
        call: () => Promise<T>,
      ) => Promise<T>;
      /** SLACK_ALLOWED_TEAMS (OAuth installs): a workspace dropped from it is served nothing more. */
      admitted?: (workspace: WorkspaceIds) => boolean;
      /** OAuth installs: a workspace's store rows are its own only. */
      isolated: boolean;
      settings: WorkflowStepSettings;
      logger: Logger;
    },
  ) {}

  /**
   * "Run an agent session": recorded and checked; then, when a person ran the workflow, they are asked
   * to confirm it (they didn't write its goal, and it would run in their name); a run nobody ran starts
   * at once. Refused at once when it can't start.
   */
  async run(executionId: string, inputs: Record<string, unknown>, workflow: WorkflowRef): Promise<void> {
    const first = await this.deps.executions.record({ executionId, callbackId: RUN_STEP, state: 'starting' });
    if (!first) return;
    const runner = runnerOf(inputs);
    const read = readRunInputs(inputs);
    const problems = [...(runner.ok ? [] : runner.problems), ...(read.ok ? [] : read.problems)];
    if (!runner.ok || !read.ok)
      return this.#refuse(executionId, `This step can't run: ${problems.join('; ')}.`);
    const plan = await startPlan(this.deps.access, runner.value, read.value, workflow);
    if (!plan.ok) return this.#refuse(executionId, `This step can't run: ${plan.message}`);
    if (runner.value === undefined) return this.#begin(executionId, plan);
    // Asked only for what can start: the runner sees it as it would start (the channel's defaults in),
    // and that is what starts when they confirm, whatever changes meanwhile.
    const checked = await this.deps.starting.check(plan.input);
    if (!checked.ok) return this.#refuse(executionId, checked.message);
    const { goal, channelId, budget, maxIterations, context } = checked.input;
    const shown: RunInputs = {
      goal,
      ...(channelId === runner.value ? {} : { channelId }),
      ...(budget === undefined ? {} : { budget }),
      ...(maxIterations === undefined ? {} : { maxIterations }),
      ...(context ? { context } : {}),
      ...(plan.ask ? { askUserId: plan.ask } : {}),
    };
    const asked: PendingStart = { runner: runner.value, inputs: stepInputsOf(shown), workflow };
    return this.#askToConfirm(executionId, asked, shown, pointerOf(inputs));
  }

  /**
   * The runner's "Start" in the confirmation: taken once (across replicas and repeats), then checked again
   * as it is now (they may have left the channel meanwhile) and started. `acknowledge` answers Slack
   * (within its 3 s) with whether the step still waited for this answer.
   */
  async confirm(
    executionId: string,
    userId: string,
    acknowledge: (waited: boolean) => Promise<void>,
  ): Promise<void> {
    const deadlineMs = this.deps.settings.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const asked = await this.deps.executions.answer(executionId, userId, 'confirm', deadlineMs);
    await acknowledge(asked !== undefined);
    if (!asked) return;
    const read = readRunInputs(asked.inputs);
    if (!read.ok) return this.#refuse(executionId, `This step can't run: ${read.problems.join('; ')}.`);
    const plan = await startPlan(this.deps.access, asked.runner, read.value, asked.workflow);
    if (!plan.ok) return this.#refuse(executionId, `This step can't run: ${plan.message}`);
    await this.#begin(executionId, plan);
  }

  /** The runner's Cancel (or the X) in the confirmation: nothing starts, and the step fails saying so. */
  async decline(executionId: string, userId: string): Promise<void> {
    const asked = await this.deps.executions.answer(executionId, userId, 'decline');
    if (asked) await this.#complete(executionId, refusal(DECLINED));
  }

  /** The confirmation opened with the step's interactivity pointer; the start kept until it's answered. */
  async #askToConfirm(
    executionId: string,
    asked: PendingStart,
    start: RunInputs,
    pointer: string | undefined,
  ): Promise<void> {
    if (!pointer)
      return this.#refuse(
        executionId,
        "This step can't run: interactivity: Slack's interactivity context has no interactivity_pointer, so the person who ran the workflow can't be asked to confirm its agent session.",
      );
    await this.deps.executions.awaitConfirmation(executionId, asked);
    const view = confirmStartView(start, executionId, { personalKey: this.deps.confirmation.personalKeys });
    try {
      await this.deps.confirmation.open(pointer, view);
    } catch (error) {
      const code = slackErrorCode(error);
      this.deps.logger.warn({ err: error, executionId }, 'could not ask to confirm a workflow step');
      return this.#refuse(
        executionId,
        `The app could not ask you to confirm this step's agent session${code ? ` (Slack answered ${code})` : ''}, so nothing started: run the workflow again.`,
      );
    }
    this.deps.logger.info({ executionId }, 'a workflow step asks its runner to confirm');
  }

  /** The session started, and the execution moved on to waiting for it; refused when it can't start. */
  async #begin(executionId: string, plan: StartPlan & { ok: true }): Promise<void> {
    const started = await this.deps.starting.start(plan.input);
    if (!started.ok) return this.#refuse(executionId, started.message);
    const session = await this.deps.sessions.get(started.sessionId);
    const permalink = session?.cardTs ? await this.#permalink(session.channelId, session.cardTs) : undefined;
    if (plan.ask && session?.cardTs) await this.#ask(plan.ask, plan.input.userId, session);
    await this.deps.executions.started(executionId, {
      sessionId: started.sessionId,
      channelId: session?.channelId ?? plan.input.channelId,
      userId: plan.input.userId,
      ...(permalink ? { permalink } : {}),
    });
    this.deps.logger.info({ executionId, sessionId: started.sessionId }, 'a workflow step started a session');
  }

  /**
   * "Wait for an agent session": only a session its runner started (or, for a run nobody ran, one a run
   * nobody ran started here: `waitable`); any other id, whoever's it is and whether it exists, gets the
   * one answer `/agent status` gives. Recorded without its session until that is decided, so nothing else
   * is ever swept into the outputs, which go to whoever built the workflow.
   */
  async wait(executionId: string, inputs: Record<string, unknown>): Promise<void> {
    const first = await this.deps.executions.record({
      executionId,
      callbackId: WAIT_STEP,
      state: 'starting',
    });
    if (!first) return;
    const runner = runnerOf(inputs);
    const read = readWaitInputs(inputs);
    const problems = [...(runner.ok ? [] : runner.problems), ...(read.ok ? [] : read.problems)];
    if (!runner.ok || !read.ok)
      return this.#refuse(executionId, `This step can't run: ${problems.join('; ')}.`);
    const { sessionId } = read.value;
    const session = await this.deps.sessions.get(sessionId);
    const here = currentWorkspace()?.key;
    if (!session || !(await waitable(this.deps.access, runner.value, session, here)))
      return this.#refuse(executionId, notVisible(sessionId));
    const permalink = session.cardTs ? await this.#permalink(session.channelId, session.cardTs) : undefined;
    await this.deps.executions.started(executionId, {
      sessionId,
      channelId: session.channelId,
      userId: runner.value ?? session.startedBy,
      ...(permalink ? { permalink } : {}),
    });
    const execution = await this.deps.executions.get(executionId);
    if (execution) await this.#settle(execution);
  }

  start(): void {
    const loop = () => {
      this.#running = this.sweep()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'workflow step sweep failed'))
        .finally(() => {
          if (this.#timer !== undefined) this.#timer = setTimeout(loop, this.deps.settings.checkMs).unref();
        });
    };
    this.#timer = setTimeout(loop, 0).unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /**
   * One pass over every open execution, read page by page (so no number of open rows, of any workspace,
   * keeps the others from being looked at), then looked at round-robin by workspace (sweep-order.ts), so
   * one workspace's backlog of completions never holds back another's: each whose session ended, or whose
   * deadline passed, is completed; one of a workspace no longer admitted is ended. Then completed rows
   * past their retention are pruned.
   */
  async sweep(): Promise<void> {
    const open: WorkflowExecution[] = [];
    let after: OpenCursor | undefined;
    for (;;) {
      const page = await this.deps.executions.open({ ...(after ? { after } : {}), limit: PAGE });
      open.push(...page);
      const last = page.at(-1);
      if (page.length < PAGE || !last) break;
      after = last;
    }
    const order = { ...DEFAULT_SWEEP_ORDER, ...this.deps.settings.sweep };
    const lanes = lanesOf(open, (execution) => execution.workspace ?? '');
    await roundRobin(lanes, order, (execution) => this.#look(execution));
    await this.deps.executions.prune(this.deps.settings.retentionMs ?? DEFAULT_RETENTION_MS);
  }

  /** Whether it reached Slack: a completion sent (what a workspace's cap for a sweep counts). */
  async #look(execution: WorkflowExecution): Promise<boolean> {
    try {
      const workspace = this.#workspaceOf(execution);
      if (workspace && this.deps.admitted && !this.deps.admitted(workspace)) {
        await this.#endUnadmitted(execution);
        return false;
      }
      return await inWorkspace(workspace, () => this.#settle(execution));
    } catch (error) {
      this.deps.logger.warn(
        { err: error, executionId: execution.executionId },
        'could not look at a workflow step',
      );
      return true;
    }
  }

  /** The execution's ending if its session is over (or never got started); else nothing. */
  async #settle(execution: WorkflowExecution): Promise<boolean> {
    const ending = await this.#endingOf(execution);
    return ending ? this.#complete(execution.executionId, ending) : false;
  }

  async #endingOf(execution: WorkflowExecution): Promise<StepEnding | undefined> {
    const { sessionId, permalink } = execution;
    const age = Date.now() - execution.createdAt.getTime();
    const deadlineMs = this.deps.settings.deadlineMs ?? DEFAULT_DEADLINE_MS;
    if (execution.state === 'confirming') {
      if (execution.pending?.declined) return refusal(DECLINED);
      if (age < deadlineMs) return undefined;
      return refusal(
        `Nobody confirmed this step's agent session within ${spanOf(deadlineMs)} of the workflow's run (WORKFLOW_STEP_DEADLINE), so nothing started: run the workflow again.`,
      );
    }
    if (execution.state === 'starting' || !sessionId) {
      const since = Date.now() - (execution.confirmedAt ?? execution.createdAt).getTime();
      if (since < (this.deps.settings.startingMs ?? 120_000)) return undefined;
      return refusal(
        execution.callbackId === WAIT_STEP
          ? 'The bot restarted before it could look at this step’s session: run the workflow again.'
          : 'The bot restarted while starting this step’s agent session, so it can’t tell whether one started: check `/agent list`, and run the workflow again if none did.',
      );
    }
    if (age >= deadlineMs)
      return refusal(
        `The agent session ${sessionId} did not end within ${spanOf(deadlineMs)} of the workflow's run, so this step stopped waiting (WORKFLOW_STEP_DEADLINE). The session goes on: \`/agent status ${sessionId}\` shows it.`,
      );
    const recorded = await this.deps.sessions.get(sessionId);
    if (!recorded) return refusal(notVisible(sessionId));
    // A session of the bot's ends when its report is out (the thread reads the end before the workflow).
    if (!recorded.finished) return undefined;
    if (recorded.status === 'unreachable' || recorded.status === 'cant_post_here')
      return lostEnding(sessionId, recorded.status, permalink);
    try {
      const live = await this.deps.readSession(sessionId);
      return endingOf(sessionId, live, permalink, { recorded, now: Date.now() });
    } catch (error) {
      if (error instanceof ServiceError && (error.status === 404 || error.status === 403))
        return refusal(notVisible(sessionId));
      throw error;
    }
  }

  /** A workspace dropped from SLACK_ALLOWED_TEAMS: its open step is ended as failed, Slack told nothing. */
  async #endUnadmitted(execution: WorkflowExecution): Promise<void> {
    const { executions, logger } = this.deps;
    const claimed = await executions.claim(
      execution.executionId,
      this.#claimId,
      this.deps.settings.claimMs ?? 60_000,
    );
    if (!claimed) return;
    await executions.finish(execution.executionId, this.#claimId, 'error');
    logger.info(
      { executionId: execution.executionId, teamId: execution.teamId },
      'a workflow step of a workspace no longer admitted was ended',
    );
  }

  /** "Person to ask": told in the session's thread that the runner asks them to answer its questions. */
  async #ask(
    ask: string,
    starter: string,
    session: { channelId: string; cardTs: string | null },
  ): Promise<void> {
    if (!session.cardTs) return;
    await this.deps.chat.chat
      .postMessage({
        channel: session.channelId,
        thread_ts: session.cardTs,
        text: `<@${ask}>, <@${starter}> asks you to answer this agent session’s questions (a workflow started it).`,
      })
      .catch((error: unknown) => this.deps.logger.info({ err: error }, 'could not tell the person to ask'));
  }

  async #refuse(executionId: string, reason: string): Promise<void> {
    await this.#complete(executionId, refusal(reason));
  }

  /**
   * Completes the execution once across replicas: claimed, sent to Slack, marked done. Whether it was
   * sent (false: another replica holds it, or it is done).
   */
  async #complete(executionId: string, ending: StepEnding): Promise<boolean> {
    const { executions, slack, logger } = this.deps;
    const claimed = await executions.claim(executionId, this.#claimId, this.deps.settings.claimMs ?? 60_000);
    if (!claimed) return false;
    const send = this.deps.send ?? ((_method, call) => call());
    try {
      await (ending.kind === 'success'
        ? send('functions.completeSuccess', () =>
            slack.functions.completeSuccess({
              function_execution_id: executionId,
              outputs: { ...ending.outputs },
            }),
          )
        : send('functions.completeError', () =>
            slack.functions.completeError({ function_execution_id: executionId, error: ending.error }),
          ));
    } catch (error) {
      const code = slackErrorCode(error);
      if (code === 'parameter_validation_failed' && ending.kind === 'success') {
        logger.error({ err: error, executionId }, 'Slack refused a workflow step’s outputs');
        await executions.release(executionId, this.#claimId);
        return this.#complete(executionId, refusal('Slack refused the outputs the bot gave this step.'));
      }
      if (!code || !GONE.has(code)) {
        await executions.release(executionId, this.#claimId);
        throw error;
      }
      logger.info({ executionId, code }, 'a workflow step could no longer be completed');
    }
    await executions.finish(executionId, this.#claimId, ending.kind);
    logger.info({ executionId, outcome: ending.kind }, 'workflow step completed');
    return true;
  }

  async #permalink(channel: string, ts: string): Promise<string | undefined> {
    try {
      const found = await this.deps.slack.chat.getPermalink({ channel, message_ts: ts });
      return typeof found.permalink === 'string' ? found.permalink : undefined;
    } catch (error) {
      this.deps.logger.info({ err: error, channel }, 'no permalink for a session card');
      return undefined;
    }
  }

  #workspaceOf(execution: WorkflowExecution): Workspace | undefined {
    if (!execution.workspace) return undefined;
    return {
      ...(execution.teamId ? { teamId: execution.teamId } : {}),
      ...(execution.enterpriseId ? { enterpriseId: execution.enterpriseId } : {}),
      key: execution.workspace,
      isEnterpriseInstall: execution.workspace === execution.enterpriseId,
      isolated: this.deps.isolated,
    };
  }
}
