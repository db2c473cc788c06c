import { iso } from './rows.js';
import type { SqlExecutor } from './sql.js';

export type AuditAction =
  | 'start'
  | 'answer'
  | 'reject'
  | 'pause'
  | 'resume'
  | 'cancel'
  | 'redirect'
  | 'raise_budget'
  | 'timeout';

/** One human action on a session (or the bot acting for nobody, `user_id` "bot", on a timeout). */
export interface AuditEntry {
  sessionId: string;
  inputId?: string | null;
  action: AuditAction;
  /** Slack user id. */
  userId: string;
  teamId?: string | null;
  channelId?: string | null;
  threadTs?: string | null;
  /** What was sent: the answer, the reason, the new budget, the goal. */
  detail?: Record<string, unknown> | null;
  /** `ok`, `error` (the service refused or failed). */
  outcome: 'ok' | 'error';
  /** The service's HTTP status, when known (2xx is not reported by the client: null). */
  httpStatus?: number | null;
  requestId?: string | null;
}

export interface AuditRecord extends Required<AuditEntry> {
  id: number;
  at: string;
}

export interface AuditFilter {
  sessionId?: string;
  /** The workspace acted from (records of others left out). */
  teamId?: string;
  since?: string;
  after?: number;
  limit?: number;
}

/** Append-only: records are added and, past the retention, deleted by age; never edited. */
export interface AuditRepository {
  append(entry: AuditEntry): Promise<void>;
  /**
   * In the order written (by id), oldest first; `since` (ISO) excludes older records, `after` those with
   * that id or a smaller one (the cursor of the next page). At most `limit` (default 10,000).
   */
  list(filter: AuditFilter): Promise<AuditRecord[]>;
  /** The newest record of a session, of the given actions when named. */
  latest(sessionId: string, actions?: AuditAction[]): Promise<AuditRecord | undefined>;
  /** Deletes records older than `before`; returns how many. */
  prune(before: Date): Promise<number>;
}

interface AuditRow {
  id: string | number;
  at: Date | string;
  session_id: string;
  input_id: string | null;
  action: AuditAction;
  user_id: string;
  team_id: string | null;
  channel_id: string | null;
  thread_ts: string | null;
  detail: Record<string, unknown> | null;
  outcome: 'ok' | 'error';
  http_status: number | null;
  request_id: string | null;
}

const toRecord = (r: AuditRow): AuditRecord => ({
  id: Number(r.id),
  at: iso(r.at) ?? '',
  sessionId: r.session_id,
  inputId: r.input_id,
  action: r.action,
  userId: r.user_id,
  teamId: r.team_id,
  channelId: r.channel_id,
  threadTs: r.thread_ts,
  detail: r.detail,
  outcome: r.outcome,
  httpStatus: r.http_status,
  requestId: r.request_id,
});

export class SqlAuditRepository implements AuditRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async append(e: AuditEntry): Promise<void> {
    await this.sql.query(
      `INSERT INTO audit_log (session_id, input_id, action, user_id, team_id, channel_id, thread_ts, detail,
                              outcome, http_status, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        e.sessionId,
        e.inputId ?? null,
        e.action,
        e.userId,
        e.teamId ?? null,
        e.channelId ?? null,
        e.threadTs ?? null,
        e.detail ? JSON.stringify(e.detail) : null,
        e.outcome,
        e.httpStatus ?? null,
        e.requestId ?? null,
      ],
    );
  }

  async list(filter: AuditFilter): Promise<AuditRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.sessionId) where.push(`session_id = $${params.push(filter.sessionId)}`);
    if (filter.teamId) where.push(`team_id = $${params.push(filter.teamId)}`);
    if (filter.since) where.push(`at >= $${params.push(filter.since)}`);
    if (filter.after !== undefined) where.push(`id > $${params.push(filter.after)}`);
    const limit = `$${params.push(filter.limit ?? 10_000)}`;
    // By id, not time: a cursor (`after`) then never skips a record written in the same instant.
    const { rows } = await this.sql.query<AuditRow>(
      `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT ${limit}`,
      params,
    );
    return rows.map(toRecord);
  }

  async latest(sessionId: string, actions?: AuditAction[]): Promise<AuditRecord | undefined> {
    const { rows } = await this.sql.query<AuditRow>(
      `SELECT * FROM audit_log WHERE session_id = $1 ${actions ? 'AND action = ANY($2::text[])' : ''}
        ORDER BY at DESC, id DESC LIMIT 1`,
      actions ? [sessionId, actions] : [sessionId],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async prune(before: Date): Promise<number> {
    const { rows } = await this.sql.query<{ id: string }>(
      'DELETE FROM audit_log WHERE at < $1 RETURNING id',
      [before.toISOString()],
    );
    return rows.length;
  }
}
