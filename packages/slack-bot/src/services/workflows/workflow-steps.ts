/**
 * Slack's Workflow Builder steps "Run an agent session" and "Wait for an agent session". A step's
 * execution is recorded in the store when Slack sends it (once, whatever Slack sends again); the session
 * is started as `/agent start` starts one (StartingService: allowlists, budget ceiling, the person's key);
 * every replica sweeps the executions still open, and the one that claims an execution whose session
 * ended completes it in Slack, once: `functions.completeSuccess` with the declared outputs, or
 * `functions.completeError` with a reason a person reads.
 */
import { randomUUID } from 'node:crypto';
import { ServiceError } from '@agent-sessions/core';
import type { Logger } from '../../logger.js';
import type { SessionRepository } from '../../store/sessions.js';
import type { WorkflowExecution, WorkflowExecutionRepository } from '../../store/workflow-executions.js';
import { inWorkspace, type Workspace } from '../../workspace.js';
import type { StartInput, StartingService } from '../people/starting.js';
import { type SlackClient, slackErrorCode } from '../slack-out/outbound/index.js';
import { readRunInputs, readWaitInputs } from './step-inputs.js';
import { type EndedSession, endingOf, lostEnding, refusal, type StepEnding } from './step-outcome.js';

/** How often each replica looks at the open executions, and how long a completion is held. */
export interface WorkflowStepSettings {
  checkMs: number;
  /** A completion claimed and never finished (its replica died) is claimed again after this. */
  claimMs?: number;
  /** An execution whose session never got recorded (the bot died while starting it) fails after this. */
  startingMs?: number;
}

/** No key of the current workspace can read a session started elsewhere: said to the person as it is. */
export class NoKeyHere extends Error {
  override name = 'NoKeyHere';
}

const notVisible = (sessionId: string, why: string) =>
  `The Agent Session Service has no session ${sessionId} this bot may see here (${why}).`;

/** Slack's answers meaning the execution can't be completed any more: someone did, or it timed out. */
const GONE = new Set(['execution_not_in_running_state', 'function_execution_not_found']);

export class WorkflowSteps {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  readonly #claimId = randomUUID();

  constructor(
    private readonly deps: {
      executions: WorkflowExecutionRepository;
      sessions: Pick<SessionRepository, 'get' | 'workspaceOf'>;
      starting: Pick<StartingService, 'start'>;
      /**
       * The service's read of a session: one the bot started with the session's key; one started elsewhere
       * (`recorded` false) with the key a start in the current workspace would use, or `NoKeyHere`.
       */
      readSession: (sessionId: string, recorded: boolean) => Promise<EndedSession>;
      /** The current workspace's client: completions (sent through `send`) and the card's permalink. */
      slack: { functions: Pick<SlackClient['functions'], 'completeSuccess' | 'completeError'> } & {
        chat: Pick<SlackClient['chat'], 'getPermalink'>;
      };
      /** A completion is a call the bot makes on its own: it waits its turn in the outbound queue (Tier 3). */
      send?: <T>(call: () => Promise<T>) => Promise<T>;
      /** OAuth installs: a workspace's store rows are its own only. */
      isolated: boolean;
      settings: WorkflowStepSettings;
      logger: Logger;
    },
  ) {}

  /** "Run an agent session": recorded, then started as its person; refused at once when it can't be. */
  async run(executionId: string, inputs: Record<string, unknown>): Promise<void> {
    const first = await this.deps.executions.record({
      executionId,
      callbackId: 'run_agent_session',
      state: 'starting',
    });
    if (!first) return;
    const read = readRunInputs(inputs);
    if (!read.ok)
      return this.#complete(executionId, refusal(`This step can't run: ${read.problems.join('; ')}.`));
    const { userId, channelId, ...rest } = read.value;
    if (!userId)
      return this.#complete(
        executionId,
        refusal(
          'This step can’t run: "Person to ask" (mention) is empty. The session is started as that person, under their key and the channel’s rules: set it, for example to "Person who used this workflow".',
        ),
      );
    // Without a channel the card goes to the person's DM with the bot.
    const place = channelId ?? userId;
    const started = await this.deps.starting.start({
      ...rest,
      channelId: place,
      userId,
      // Said on the card, so the channel knows why the session is there.
      origin: 'started by a workflow',
    } satisfies StartInput);
    if (!started.ok) return this.#complete(executionId, refusal(started.message));
    const session = await this.deps.sessions.get(started.sessionId);
    const permalink = session?.cardTs ? await this.#permalink(session.channelId, session.cardTs) : undefined;
    await this.deps.executions.started(executionId, {
      sessionId: started.sessionId,
      channelId: session?.channelId ?? place,
      userId,
      ...(permalink ? { permalink } : {}),
    });
    this.deps.logger.info({ executionId, sessionId: started.sessionId }, 'a workflow step started a session');
  }

  /** "Wait for an agent session": recorded with its session, and looked at once (it may be over). */
  async wait(executionId: string, inputs: Record<string, unknown>): Promise<void> {
    const read = readWaitInputs(inputs);
    const first = await this.deps.executions.record({
      executionId,
      callbackId: 'wait_for_agent_session',
      state: 'waiting',
      ...(read.ok ? { sessionId: read.value.sessionId } : {}),
    });
    if (!first) return;
    if (!read.ok)
      return this.#complete(executionId, refusal(`This step can't run: ${read.problems.join('; ')}.`));
    const session = await this.deps.sessions.get(read.value.sessionId);
    if (session?.cardTs) {
      const permalink = await this.#permalink(session.channelId, session.cardTs);
      await this.deps.executions.started(executionId, {
        sessionId: session.sessionId,
        channelId: session.channelId,
        userId: session.startedBy,
        ...(permalink ? { permalink } : {}),
      });
    }
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

  /** One pass over the open executions: each whose session ended is completed (by whoever claims it). */
  async sweep(): Promise<void> {
    for (const execution of await this.deps.executions.open()) {
      await inWorkspace(this.#workspaceOf(execution), () => this.#settle(execution)).catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, executionId: execution.executionId },
          'could not look at a workflow step',
        ),
      );
    }
  }

  /** The execution's ending if its session is over (or never got started); else nothing. */
  async #settle(execution: WorkflowExecution): Promise<void> {
    const ending = await this.#endingOf(execution);
    if (ending) await this.#complete(execution.executionId, ending);
  }

  async #endingOf(execution: WorkflowExecution): Promise<StepEnding | undefined> {
    const { sessionId, permalink } = execution;
    if (execution.state === 'starting' || !sessionId) {
      const startingMs = this.deps.settings.startingMs ?? 120_000;
      if (Date.now() - execution.createdAt.getTime() < startingMs) return undefined;
      return refusal(
        'The bot restarted while starting this step’s agent session, so it can’t tell whether one started: check `/agent list`, and run the workflow again if none did.',
      );
    }
    const recorded = await this.deps.sessions.get(sessionId);
    // A session of the bot's ends when its report is out (the thread reads the end before the workflow).
    if (recorded && !recorded.finished) return undefined;
    if (recorded && (recorded.status === 'unreachable' || recorded.status === 'cant_post_here'))
      return lostEnding(sessionId, recorded.status, permalink);
    // Another workspace's session (OAuth installs): not this workflow's to read, whatever its id.
    if (!recorded && this.deps.isolated && (await this.deps.sessions.workspaceOf(sessionId)))
      return refusal(notVisible(sessionId, 'it belongs to another workspace'));
    try {
      return endingOf(sessionId, await this.deps.readSession(sessionId, recorded !== undefined), permalink);
    } catch (error) {
      if (error instanceof NoKeyHere) return refusal(error.message);
      if (error instanceof ServiceError && (error.status === 404 || error.status === 403))
        return refusal(notVisible(sessionId, `the service answered ${error.status}`));
      throw error;
    }
  }

  /** Completes the execution once across replicas: claimed, sent to Slack, marked done. */
  async #complete(executionId: string, ending: StepEnding): Promise<void> {
    const { executions, slack, logger } = this.deps;
    const claimed = await executions.claim(executionId, this.#claimId, this.deps.settings.claimMs ?? 60_000);
    if (!claimed) return;
    const send = this.deps.send ?? ((call) => call());
    try {
      await send(() =>
        ending.kind === 'success'
          ? slack.functions.completeSuccess({
              function_execution_id: executionId,
              outputs: { ...ending.outputs },
            })
          : slack.functions.completeError({ function_execution_id: executionId, error: ending.error }),
      );
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
