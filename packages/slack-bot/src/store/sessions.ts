import type { NewSession, SessionPatch, SessionRecord } from './records.js';
import { type SessionRow, toSession } from './rows.js';
import type { SqlExecutor } from './sql.js';

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
      `INSERT INTO sessions (session_id, channel_id, card_ts, started_by, goal, status, budget, thread_ts, origin, key_ref)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (session_id) DO NOTHING`,
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
      ],
    );
  }

  async findByThread(channelId: string, threadTs: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.sql.query<SessionRow>(
      `SELECT * FROM sessions WHERE channel_id = $1
         AND (thread_ts = $2 OR (thread_ts IS NULL AND card_ts = $2))
       ORDER BY created_at DESC LIMIT 1`,
      [channelId, threadTs],
    );
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.sql.query<SessionRow>('SELECT * FROM sessions WHERE session_id = $1', [
      sessionId,
    ]);
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
    const limit = `$${params.push(filter.limit ?? 50)}`;
    const { rows } = await this.sql.query<SessionRow>(
      `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC LIMIT ${limit}`,
      params,
    );
    return rows.map(toSession);
  }
}
