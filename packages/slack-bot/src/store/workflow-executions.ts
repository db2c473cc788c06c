import { currentWorkspace } from '../workspace.js';
import type { SqlExecutor } from './sql.js';

/** Where an execution is: its session being started, a session waited for, or completed in Slack. */
export type ExecutionState = 'starting' | 'waiting' | 'done';

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
}

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
};

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
  /** The session it runs or waits for, and where its card is: now waited for. */
  started(
    executionId: string,
    session: { sessionId: string; channelId: string; userId: string; permalink?: string },
  ): Promise<void>;
  /** Executions not yet done, oldest first, in every workspace (the sweep's). */
  open(limit?: number): Promise<WorkflowExecution[]>;
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

  async open(limit = 200): Promise<WorkflowExecution[]> {
    const { rows } = await this.sql.query<ExecutionRow>(
      `SELECT * FROM workflow_executions WHERE state <> 'done' ORDER BY created_at LIMIT $1`,
      [limit],
    );
    return rows.map(toExecution);
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
