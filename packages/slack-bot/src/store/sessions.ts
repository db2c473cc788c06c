import { currentWorkspace } from '../workspace.js';
import type { NewSession, SessionPatch, SessionRecord } from './records.js';
import { type SessionRow, toSession } from './rows.js';
import type { SqlExecutor } from './sql.js';
import { scopedTo } from './workspace-filter.js';

export interface SessionFilter {
  channelId?: string;
  startedBy?: string;
  activeOnly?: boolean;
  limit?: number;
}

/** Sessions started from Slack: where each lives (channel, card) and who started it. */
export interface SessionRepository {
  /** Idempotent: a session already recorded is left as it is. */
  create(record: NewSession): Promise<void>;
  get(sessionId: string): Promise<SessionRecord | undefined>;
  update(sessionId: string, patch: SessionPatch): Promise<void>;
  /** Newest first. */
  list(filter: SessionFilter): Promise<SessionRecord[]>;
  /** The newest session whose thread is `threadTs` in this channel (its card's thread, or the mention's). */
  findByThread(channelId: string, threadTs: string): Promise<SessionRecord | undefined>;
  /** The session whose own channel (code channel) this is. */
  findByCodeChannel(channelId: string): Promise<SessionRecord | undefined>;
  /**
   * A workspace's unfinished sessions stop being followed (its app was uninstalled): they stay in the
   * service and here, and no replica takes their lease again. Returns their ids.
   */
  detach(workspace: string): Promise<string[]>;
  /** The workspace a session was started from, whatever workspace asks (the follower's events, reminders). */
  workspaceOf(sessionId: string): Promise<SessionWorkspace | undefined>;
}

export interface SessionWorkspace {
  teamId?: string;
  enterpriseId?: string;
  key: string;
}

const COLUMNS: Record<keyof SessionPatch, string> = {
  cardTs: 'card_ts',
  status: 'status',
  budget: 'budget',
  finished: 'finished',
};

export class SqlSessionRepository implements SessionRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async create(r: NewSession): Promise<void> {
    await this.sql.query(
      `INSERT INTO sessions (session_id, channel_id, card_ts, started_by, goal, status, budget, thread_ts, origin,
                             key_ref, team_id, enterprise_id, workspace)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (session_id) DO NOTHING`,
      [
        r.sessionId,
        r.channelId,
        r.cardTs,
        r.startedBy,
        r.goal,
        r.status ?? 'queued',
        r.budget,
        r.threadTs ?? null,
        r.origin ?? null,
        r.keyRef ?? null,
        // The workspace it was started from: the request's, unless the caller said.
        r.teamId ?? currentWorkspace()?.teamId ?? null,
        r.enterpriseId ?? currentWorkspace()?.enterpriseId ?? null,
        r.workspace ?? currentWorkspace()?.key ?? null,
      ],
    );
  }

  async findByThread(channelId: string, threadTs: string): Promise<SessionRecord | undefined> {
    const params: unknown[] = [channelId, threadTs];
    const { rows } = await this.sql.query<SessionRow>(
      `SELECT * FROM sessions WHERE channel_id = $1
         AND (thread_ts = $2 OR (thread_ts IS NULL AND card_ts = $2))${scopedTo('sessions', params)}
       ORDER BY created_at DESC LIMIT 1`,
      params,
    );
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  async findByCodeChannel(channelId: string): Promise<SessionRecord | undefined> {
    const params: unknown[] = [channelId];
    const { rows } = await this.sql.query<SessionRow>(
      `SELECT * FROM sessions WHERE home_channel_id = $1${scopedTo('sessions', params)}
       ORDER BY created_at DESC LIMIT 1`,
      params,
    );
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const params: unknown[] = [sessionId];
    const { rows } = await this.sql.query<SessionRow>(
      `SELECT * FROM sessions WHERE session_id = $1${scopedTo('sessions', params)}`,
      params,
    );
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  async update(sessionId: string, patch: SessionPatch): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [sessionId];
    for (const key of Object.keys(COLUMNS) as Array<keyof SessionPatch>) {
      if (patch[key] === undefined) continue;
      sets.push(`${COLUMNS[key]} = $${params.push(patch[key])}`);
    }
    if (sets.length === 0) return;
    await this.sql.query(
      `UPDATE sessions SET ${sets.join(', ')}, updated_at = now() WHERE session_id = $1`,
      params,
    );
  }

  async list(filter: SessionFilter): Promise<SessionRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.channelId) where.push(`channel_id = $${params.push(filter.channelId)}`);
    if (filter.startedBy) where.push(`started_by = $${params.push(filter.startedBy)}`);
    if (filter.activeOnly) where.push('NOT finished');
    const scoped = scopedTo('sessions', params);
    if (scoped) where.push(scoped.replace(/^ AND /, ''));
    const limit = `$${params.push(filter.limit ?? 50)}`;
    const { rows } = await this.sql.query<SessionRow>(
      `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC LIMIT ${limit}`,
      params,
    );
    return rows.map(toSession);
  }

  async detach(workspace: string): Promise<string[]> {
    const { rows } = await this.sql.query<{ session_id: string }>(
      `UPDATE sessions SET detached_at = now(), updated_at = now()
        WHERE workspace = $1 AND NOT finished AND detached_at IS NULL RETURNING session_id`,
      [workspace],
    );
    return rows.map((r) => r.session_id);
  }

  async workspaceOf(sessionId: string): Promise<SessionWorkspace | undefined> {
    const { rows } = await this.sql.query<{
      team_id: string | null;
      enterprise_id: string | null;
      workspace: string | null;
    }>('SELECT team_id, enterprise_id, workspace FROM sessions WHERE session_id = $1', [sessionId]);
    const row = rows[0];
    if (!row?.workspace) return undefined;
    return {
      key: row.workspace,
      ...(row.team_id ? { teamId: row.team_id } : {}),
      ...(row.enterprise_id ? { enterpriseId: row.enterprise_id } : {}),
    };
  }
}
