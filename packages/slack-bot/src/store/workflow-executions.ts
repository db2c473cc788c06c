import { currentWorkspace } from '../workspace.js';
import type { SqlExecutor } from './sql.js';

/**
 * Where an execution is: waiting for its runner to confirm the start, its session being started, a
 * session waited for, or completed in Slack.
 */
export type ExecutionState = 'confirming' | 'starting' | 'waiting' | 'done';

/**
 * A start its runner was asked to confirm: the step's inputs as the confirmation showed them (the
 * channel's defaults in), kept until they answer (any replica may receive the answer, after any restart),
 * so what starts is what they saw. `declined` once they cancelled or closed the confirmation.
 */
export interface PendingStart {
  runner: string;
  inputs: Record<string, unknown>;
  workflow: { executionId: string; step?: string };
  declined?: boolean;
}

/** A Workflow Builder step's execution, as Slack sent it and as far as the bot has taken it. */
export interface WorkflowExecution {
  executionId: string;
  /** Which step: `run_agent_session` or `wait_for_agent_session`. */
  callbackId: string;
  sessionId?: string;
  /** The session card's channel and its link (a session started elsewhere has neither). */
  channelId?: string;
  permalink?: string;
  /** Who the session was started as (the person the step names). */
  userId?: string;
  state: ExecutionState;
  /** `success` or `error`, once done. */
  outcome?: string;
  teamId?: string;
  enterpriseId?: string;
  workspace?: string;
  createdAt: Date;
  /** The start awaiting its runner's answer (state `confirming`). */
  pending?: PendingStart;
  /** When its runner confirmed the start: a start in progress is timed from then. */
  confirmedAt?: Date;
}

/** Where a page of open executions ends: the next page starts after it. */
export type OpenCursor = Pick<WorkflowExecution, 'executionId'>;

type ExecutionRow = {
  execution_id: string;
  callback_id: string;
  session_id: string | null;
  channel_id: string | null;
  user_id: string | null;
  permalink: string | null;
  state: ExecutionState;
  outcome: string | null;
  team_id: string | null;
  enterprise_id: string | null;
  workspace: string | null;
  created_at: Date | string;
  pending: PendingStart | string | null;
  confirmed_at: Date | string | null;
};

const pendingOf = (value: PendingStart | string | null): PendingStart | undefined =>
  value === null ? undefined : typeof value === 'string' ? (JSON.parse(value) as PendingStart) : value;

const optional = <K extends string>(key: K, value: string | null): Partial<Record<K, string>> =>
  value === null ? {} : ({ [key]: value } as Record<K, string>);

function toExecution(r: ExecutionRow): WorkflowExecution {
  return {
    executionId: r.execution_id,
    callbackId: r.callback_id,
    ...optional('sessionId', r.session_id),
    ...optional('channelId', r.channel_id),
    ...optional('userId', r.user_id),
    ...optional('permalink', r.permalink),
    state: r.state,
    ...optional('outcome', r.outcome),
    ...optional('teamId', r.team_id),
    ...optional('enterpriseId', r.enterprise_id),
    ...optional('workspace', r.workspace),
    createdAt: new Date(r.created_at),
    ...(r.pending === null ? {} : { pending: pendingOf(r.pending) as PendingStart }),
    ...(r.confirmed_at === null ? {} : { confirmedAt: new Date(r.confirmed_at) }),
  };
}

/**
 * Workflow Builder step executions. Recording one is idempotent by its execution id (Slack may deliver
 * `function_executed` again), so only the first delivery starts a session. Completing one is claimed:
 * one replica at a time holds an execution until `claimMs` passes; it marks it done after Slack took
 * the completion, or lets go when the call failed.
 */
export interface WorkflowExecutionRepository {
  /** True when this call recorded it; false when it was recorded before (a delivery again). */
  record(execution: {
    executionId: string;
    callbackId: string;
    state: 'starting' | 'waiting';
    sessionId?: string;
  }): Promise<boolean>;
  get(executionId: string): Promise<WorkflowExecution | undefined>;
  /** A start its runner is now asked to confirm (only while the execution is starting). */
  awaitConfirmation(executionId: string, pending: PendingStart): Promise<void>;
  /**
   * The runner's answer, taken once: `confirm` moves the execution on to starting and gives the start
   * it confirmed; `decline` marks it declined (the step then fails). Undefined when it is not awaiting
   * `userId`'s answer: answered before, completed, or someone else's.
   */
  answer(
    executionId: string,
    userId: string,
    answer: 'confirm' | 'decline',
    /** WORKFLOW_STEP_DEADLINE: past it, from the run, the answer comes too late (the sweep fails the step). */
    deadlineMs?: number,
  ): Promise<PendingStart | undefined>;
  /** The session it runs or waits for, and where its card is: now waited for. */
  started(
    executionId: string,
    session: { sessionId: string; channelId: string; userId: string; permalink?: string },
  ): Promise<void>;
  /**
   * A page of the executions not yet done, in every workspace, by execution id: those after `after` (the
   * last of the page before). The sweep reads every page, so no number of open rows hides the rest.
   */
  open(page?: { after?: OpenCursor; limit?: number }): Promise<WorkflowExecution[]>;
  /** Done executions older than `olderThanMs`, deleted (at most `limit` a call); how many. */
  prune(olderThanMs: number, limit?: number): Promise<number>;
  /** The execution held by `claim` for `claimMs`, unless it is done or another live claim holds it. */
  claim(executionId: string, claim: string, claimMs: number): Promise<WorkflowExecution | undefined>;
  /** Done with `outcome`, only while `claim` holds it. */
  finish(executionId: string, claim: string, outcome: 'success' | 'error'): Promise<boolean>;
  /** The claim let go without a change (Slack could not be reached). */
  release(executionId: string, claim: string): Promise<void>;
}

export class SqlWorkflowExecutionRepository implements WorkflowExecutionRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async record(e: {
    executionId: string;
    callbackId: string;
    state: 'starting' | 'waiting';
    sessionId?: string;
  }): Promise<boolean> {
    const workspace = currentWorkspace();
    const { rows } = await this.sql.query<{ execution_id: string }>(
      `INSERT INTO workflow_executions (execution_id, callback_id, state, session_id, team_id, enterprise_id, workspace)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (execution_id) DO NOTHING RETURNING execution_id`,
      [
        e.executionId,
        e.callbackId,
        e.state,
        e.sessionId ?? null,
        workspace?.teamId ?? null,
        workspace?.enterpriseId ?? null,
        workspace?.key ?? null,
      ],
    );
    return rows.length === 1;
  }

  async get(executionId: string): Promise<WorkflowExecution | undefined> {
    const { rows } = await this.sql.query<ExecutionRow>(
      'SELECT * FROM workflow_executions WHERE execution_id = $1',
      [executionId],
    );
    return rows[0] ? toExecution(rows[0]) : undefined;
  }

  async awaitConfirmation(executionId: string, pending: PendingStart): Promise<void> {
    await this.sql.query(
      `UPDATE workflow_executions SET state = 'confirming', pending = $2::jsonb, updated_at = now()
        WHERE execution_id = $1 AND state = 'starting'`,
      [executionId, JSON.stringify(pending)],
    );
  }

  async answer(
    executionId: string,
    userId: string,
    answer: 'confirm' | 'decline',
    deadlineMs?: number,
  ): Promise<PendingStart | undefined> {
    // One statement each, guarded by the state: of two answers (two replicas, a click sent again) one wins.
    const change =
      answer === 'confirm'
        ? `state = 'starting', confirmed_at = now()`
        : `pending = pending || '{"declined": true}'::jsonb`;
    const { rows } = await this.sql.query<{ pending: PendingStart | string }>(
      `UPDATE workflow_executions SET ${change}, updated_at = now()
        WHERE execution_id = $1 AND state = 'confirming' AND pending->>'runner' = $2
          AND NOT coalesce((pending->>'declined')::boolean, false)
          -- Not while the sweep completes the step (a live claim), nor once its deadline has passed.
          AND (claim_until IS NULL OR claim_until <= now())
          AND ($3::double precision IS NULL
               OR created_at > now() - $3::double precision * interval '1 millisecond')
       RETURNING pending`,
      [executionId, userId, deadlineMs ?? null],
    );
    return rows[0] ? pendingOf(rows[0].pending) : undefined;
  }

  async started(
    executionId: string,
    s: { sessionId: string; channelId: string; userId: string; permalink?: string },
  ): Promise<void> {
    await this.sql.query(
      `UPDATE workflow_executions SET session_id = $2, channel_id = $3, user_id = $4, permalink = $5,
              state = 'waiting', updated_at = now()
        WHERE execution_id = $1 AND state <> 'done'`,
      [executionId, s.sessionId, s.channelId, s.userId, s.permalink ?? null],
    );
  }

  async open(page: { after?: OpenCursor; limit?: number } = {}): Promise<WorkflowExecution[]> {
    const { after, limit = 200 } = page;
    // Keyset order on the primary key: a page starts where the last ended, whatever was done since.
    const { rows } = await this.sql.query<ExecutionRow>(
      `SELECT * FROM workflow_executions WHERE state <> 'done' AND execution_id > $2
        ORDER BY execution_id LIMIT $1`,
      [limit, after?.executionId ?? ''],
    );
    return rows.map(toExecution);
  }

  async prune(olderThanMs: number, limit = 1_000): Promise<number> {
    const { rows } = await this.sql.query<{ execution_id: string }>(
      `DELETE FROM workflow_executions WHERE execution_id IN (
         SELECT execution_id FROM workflow_executions
          WHERE state = 'done' AND done_at < now() - $1::double precision * interval '1 millisecond'
          LIMIT $2)
       RETURNING execution_id`,
      [olderThanMs, limit],
    );
    return rows.length;
  }

  async claim(executionId: string, claim: string, claimMs: number): Promise<WorkflowExecution | undefined> {
    const { rows } = await this.sql.query<ExecutionRow>(
      `UPDATE workflow_executions
          SET claim = $2, claim_until = now() + $3::double precision * interval '1 millisecond', updated_at = now()
        WHERE execution_id = $1 AND state <> 'done' AND (claim_until IS NULL OR claim_until <= now())
       RETURNING *`,
      [executionId, claim, claimMs],
    );
    return rows[0] ? toExecution(rows[0]) : undefined;
  }

  async finish(executionId: string, claim: string, outcome: 'success' | 'error'): Promise<boolean> {
    const { rows } = await this.sql.query<{ execution_id: string }>(
      `UPDATE workflow_executions
          SET state = 'done', outcome = $3, done_at = now(), claim = NULL, claim_until = NULL, updated_at = now()
        WHERE execution_id = $1 AND claim = $2 RETURNING execution_id`,
      [executionId, claim, outcome],
    );
    return rows.length === 1;
  }

  async release(executionId: string, claim: string): Promise<void> {
    await this.sql.query(
      `UPDATE workflow_executions SET claim = NULL, claim_until = NULL, updated_at = now()
        WHERE execution_id = $1 AND claim = $2`,
      [executionId, claim],
    );
  }
}
