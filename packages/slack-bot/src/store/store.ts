import type { CursorStore, FollowState } from '@agent-sessions/core';
import { migrate } from './migrations.js';
import type { SqlClient } from './sql.js';

/** Where a session lives in Slack and who started it. */
export interface SessionRecord {
  sessionId: string;
  channelId: string;
  /** The card's ts; its thread holds the agent's work. Null until the card is posted. */
  cardTs: string | null;
  startedBy: string;
  goal: string;
  status: string;
  budget: number | null;
  finished: boolean;
  createdAt: string;
}

export interface PromptRecord {
  sessionId: string;
  inputId: string;
  channelId: string;
  messageTs: string | null;
  request: unknown;
  state: 'pending' | 'answering' | 'answered';
  answeredBy: string | null;
  answeredAt: string | null;
  answer: unknown;
}

export type ClaimResult =
  | { claimed: true }
  | {
      claimed: false;
      state: 'answering' | 'answered' | 'missing';
      answeredBy: string | null;
      answeredAt: string | null;
    };

export type PostState =
  | { state: 'new' }
  | { state: 'posted'; ts: string }
  | { state: 'pending'; since: string };

/**
 * Everything the bot must not forget across restarts and share across replicas: sessions and their
 * Slack places, prompts and who answered, what was posted, cursors, leases, processed Slack events.
 */
export interface Store extends CursorStore {
  createSession(
    record: Omit<SessionRecord, 'createdAt' | 'finished' | 'status'> & { status?: string },
  ): Promise<void>;
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  updateSession(
    sessionId: string,
    patch: Partial<Pick<SessionRecord, 'cardTs' | 'status' | 'budget' | 'finished'>>,
  ): Promise<void>;
  listSessions(filter: {
    channelId?: string;
    startedBy?: string;
    activeOnly?: boolean;
    limit?: number;
  }): Promise<SessionRecord[]>;

  savePrompt(prompt: {
    sessionId: string;
    inputId: string;
    channelId: string;
    messageTs: string | null;
    request: unknown;
  }): Promise<void>;
  getPrompt(sessionId: string, inputId: string): Promise<PromptRecord | undefined>;
  /** Questions of a session nobody has answered yet, oldest first. */
  pendingPrompts(sessionId: string): Promise<PromptRecord[]>;
  /** First answer wins: exactly one caller (across clicks, users and replicas) gets `claimed: true`. */
  claimPrompt(
    sessionId: string,
    inputId: string,
    userId: string,
    staleAfterMs?: number,
  ): Promise<ClaimResult>;
  /** The service accepted the answer. */
  completePrompt(sessionId: string, inputId: string, answer: unknown): Promise<void>;
  /** The service refused or failed: the prompt is answerable again. */
  releasePrompt(sessionId: string, inputId: string, userId: string): Promise<void>;

  /** Before posting a thread message: whether it was posted already, is being posted, or is new (now marked). */
  beginPost(sessionId: string, key: string): Promise<PostState>;
  finishPost(sessionId: string, key: string, ts: string): Promise<void>;
  /** The ts a key was posted with, if it was. */
  postedTs(sessionId: string, key: string): Promise<string | undefined>;
  /** Every message posted with a key that starts with `keyPrefix`, oldest first. */
  postedWithPrefix(sessionId: string, keyPrefix: string): Promise<Array<{ key: string; ts: string }>>;
  /** The post failed for sure (Slack answered with an error): the key is new again. */
  abandonPost(sessionId: string, key: string): Promise<void>;

  /**
   * Leases the sessions this replica follows: renews its own and takes unleased or expired ones, up to its
   * fair share of the unfinished sessions among live replicas (and `limit`); leases beyond it are released.
   */
  acquireLeases(owner: string, options: { limit: number; ttlMs: number }): Promise<string[]>;
  releaseLeases(owner: string): Promise<void>;
  /** Asks whichever replica follows the session to poll it now (someone just acted on it). */
  pokeSession(sessionId: string): Promise<void>;
  /** The pokes waiting for sessions `owner` holds, taken (each is returned once). */
  takePokes(owner: string): Promise<string[]>;

  /** True the first time an Events API event_id is seen (Slack re-delivers). */
  markEventProcessed(eventId: string): Promise<boolean>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;
const iso = (v: unknown): string | null =>
  v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : String(v);

function toSession(r: Row): SessionRecord {
  return {
    sessionId: String(r.session_id),
    channelId: String(r.channel_id),
    cardTs: (r.card_ts as string | null) ?? null,
    startedBy: String(r.started_by),
    goal: String(r.goal),
    status: String(r.status),
    budget: r.budget === null || r.budget === undefined ? null : Number(r.budget),
    finished: Boolean(r.finished),
    createdAt: iso(r.created_at) ?? '',
  };
}

function toPrompt(r: Row): PromptRecord {
  return {
    sessionId: String(r.session_id),
    inputId: String(r.input_id),
    channelId: String(r.channel_id),
    messageTs: (r.message_ts as string | null) ?? null,
    request: r.request,
    state: r.state as PromptRecord['state'],
    answeredBy: (r.answered_by as string | null) ?? null,
    answeredAt: iso(r.answered_at),
    answer: r.answer ?? null,
  };
}

const SESSION_COLUMNS: Record<string, string> = {
  cardTs: 'card_ts',
  status: 'status',
  budget: 'budget',
  finished: 'finished',
};

/** One implementation for both databases: they share PostgreSQL's dialect and the migrations. */
export class SqlStore implements Store {
  constructor(readonly sql: SqlClient) {}

  static async open(sql: SqlClient): Promise<SqlStore> {
    await migrate(sql);
    return new SqlStore(sql);
  }

  async createSession(
    r: Omit<SessionRecord, 'createdAt' | 'finished' | 'status'> & { status?: string },
  ): Promise<void> {
    await this.sql.query(
      `INSERT INTO sessions (session_id, channel_id, card_ts, started_by, goal, status, budget)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (session_id) DO NOTHING`,
      [r.sessionId, r.channelId, r.cardTs, r.startedBy, r.goal, r.status ?? 'queued', r.budget],
    );
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.sql.query<Row>('SELECT * FROM sessions WHERE session_id = $1', [sessionId]);
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  async updateSession(
    sessionId: string,
    patch: Partial<Pick<SessionRecord, 'cardTs' | 'status' | 'budget' | 'finished'>>,
  ): Promise<void> {
    const entries = Object.entries(patch).filter(([k, v]) => v !== undefined && k in SESSION_COLUMNS);
    if (entries.length === 0) return;
    const sets = entries.map(([k], i) => `${SESSION_COLUMNS[k]} = $${i + 2}`).join(', ');
    await this.sql.query(`UPDATE sessions SET ${sets}, updated_at = now() WHERE session_id = $1`, [
      sessionId,
      ...entries.map(([, v]) => v),
    ]);
  }

  async listSessions(filter: {
    channelId?: string;
    startedBy?: string;
    activeOnly?: boolean;
    limit?: number;
  }): Promise<SessionRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.channelId) where.push(`channel_id = $${params.push(filter.channelId)}`);
    if (filter.startedBy) where.push(`started_by = $${params.push(filter.startedBy)}`);
    if (filter.activeOnly) where.push('NOT finished');
    const limit = `$${params.push(filter.limit ?? 50)}`;
    const { rows } = await this.sql.query<Row>(
      `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC LIMIT ${limit}`,
      params,
    );
    return rows.map(toSession);
  }

  async savePrompt(p: {
    sessionId: string;
    inputId: string;
    channelId: string;
    messageTs: string | null;
    request: unknown;
  }): Promise<void> {
    await this.sql.query(
      `INSERT INTO prompts (session_id, input_id, channel_id, message_ts, request) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (session_id, input_id) DO UPDATE SET message_ts = coalesce(EXCLUDED.message_ts, prompts.message_ts)`,
      [p.sessionId, p.inputId, p.channelId, p.messageTs, JSON.stringify(p.request)],
    );
  }

  async getPrompt(sessionId: string, inputId: string): Promise<PromptRecord | undefined> {
    const { rows } = await this.sql.query<Row>(
      'SELECT * FROM prompts WHERE session_id = $1 AND input_id = $2',
      [sessionId, inputId],
    );
    return rows[0] ? toPrompt(rows[0]) : undefined;
  }

  async pendingPrompts(sessionId: string): Promise<PromptRecord[]> {
    const { rows } = await this.sql.query<Row>(
      `SELECT * FROM prompts WHERE session_id = $1 AND state <> 'answered' ORDER BY created_at`,
      [sessionId],
    );
    return rows.map(toPrompt);
  }

  async claimPrompt(
    sessionId: string,
    inputId: string,
    userId: string,
    staleAfterMs = 60_000,
  ): Promise<ClaimResult> {
    // One UPDATE decides: the row changes for exactly one caller. A claim older than staleAfterMs belongs
    // to a replica that died mid-answer and may be taken over.
    const { rows } = await this.sql.query<Row>(
      `UPDATE prompts SET state = 'answering', answered_by = $3, claimed_at = now()
       WHERE session_id = $1 AND input_id = $2
         AND (state = 'pending' OR (state = 'answering' AND claimed_at < now() - $4 * interval '1 millisecond'))
       RETURNING session_id`,
      [sessionId, inputId, userId, staleAfterMs],
    );
    if (rows.length > 0) return { claimed: true };
    const prompt = await this.getPrompt(sessionId, inputId);
    if (!prompt) return { claimed: false, state: 'missing', answeredBy: null, answeredAt: null };
    return {
      claimed: false,
      state: prompt.state === 'pending' ? 'answering' : prompt.state,
      answeredBy: prompt.answeredBy,
      answeredAt: prompt.answeredAt,
    };
  }

  async completePrompt(sessionId: string, inputId: string, answer: unknown): Promise<void> {
    await this.sql.query(
      `UPDATE prompts SET state = 'answered', answered_at = now(), answer = $3 WHERE session_id = $1 AND input_id = $2`,
      [sessionId, inputId, JSON.stringify(answer)],
    );
  }

  async releasePrompt(sessionId: string, inputId: string, userId: string): Promise<void> {
    await this.sql.query(
      `UPDATE prompts SET state = 'pending', answered_by = NULL, claimed_at = NULL
       WHERE session_id = $1 AND input_id = $2 AND state = 'answering' AND answered_by = $3`,
      [sessionId, inputId, userId],
    );
  }

  async beginPost(sessionId: string, key: string): Promise<PostState> {
    const inserted = await this.sql.query<Row>(
      'INSERT INTO posted_messages (session_id, key) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING key',
      [sessionId, key],
    );
    if (inserted.rows.length > 0) return { state: 'new' };
    const { rows } = await this.sql.query<Row>(
      'SELECT ts, started_at FROM posted_messages WHERE session_id = $1 AND key = $2',
      [sessionId, key],
    );
    const row = rows[0];
    if (row?.ts) return { state: 'posted', ts: String(row.ts) };
    return { state: 'pending', since: iso(row?.started_at) ?? '' };
  }

  async finishPost(sessionId: string, key: string, ts: string): Promise<void> {
    await this.sql.query('UPDATE posted_messages SET ts = $3 WHERE session_id = $1 AND key = $2', [
      sessionId,
      key,
      ts,
    ]);
  }

  async postedTs(sessionId: string, key: string): Promise<string | undefined> {
    const { rows } = await this.sql.query<Row>(
      'SELECT ts FROM posted_messages WHERE session_id = $1 AND key = $2 AND ts IS NOT NULL',
      [sessionId, key],
    );
    return rows[0] ? String(rows[0].ts) : undefined;
  }

  async postedWithPrefix(sessionId: string, keyPrefix: string): Promise<Array<{ key: string; ts: string }>> {
    // left() rather than LIKE: keys hold '_' and '%' would need escaping.
    const { rows } = await this.sql.query<Row>(
      `SELECT key, ts FROM posted_messages
        WHERE session_id = $1 AND left(key, length($2)) = $2 AND ts IS NOT NULL
        ORDER BY ts`,
      [sessionId, keyPrefix],
    );
    return rows.map((r) => ({ key: String(r.key), ts: String(r.ts) }));
  }

  async abandonPost(sessionId: string, key: string): Promise<void> {
    await this.sql.query('DELETE FROM posted_messages WHERE session_id = $1 AND key = $2 AND ts IS NULL', [
      sessionId,
      key,
    ]);
  }

  async load(sessionId: string): Promise<FollowState | undefined> {
    const { rows } = await this.sql.query<Row>('SELECT state FROM cursors WHERE session_id = $1', [
      sessionId,
    ]);
    return rows[0] ? (rows[0].state as FollowState) : undefined;
  }

  async save(sessionId: string, state: FollowState): Promise<void> {
    await this.sql.query(
      `INSERT INTO cursors (session_id, state) VALUES ($1, $2)
       ON CONFLICT (session_id) DO UPDATE SET state = EXCLUDED.state, updated_at = now()`,
      [sessionId, JSON.stringify(state)],
    );
  }

  async delete(sessionId: string): Promise<void> {
    await this.sql.query('DELETE FROM cursors WHERE session_id = $1', [sessionId]);
  }

  async acquireLeases(owner: string, options: { limit: number; ttlMs: number }): Promise<string[]> {
    return this.sql.transaction(async (tx) => {
      // A heartbeat per replica: the live ones split the unfinished sessions fairly between them.
      await tx.query(
        `INSERT INTO replicas (owner, seen_at) VALUES ($1, now())
         ON CONFLICT (owner) DO UPDATE SET seen_at = now()`,
        [owner],
      );
      const { rows: counts } = await tx.query<Row>(
        `SELECT (SELECT count(*) FROM replicas WHERE seen_at > now() - $1 * interval '1 millisecond') AS live,
                (SELECT count(*) FROM sessions WHERE NOT finished) AS active`,
        [options.ttlMs],
      );
      const live = Math.max(1, Number(counts[0]?.live ?? 1));
      const share = Math.min(options.limit, Math.ceil(Number(counts[0]?.active ?? 0) / live));
      // Own leases first (no churn), then free or expired ones. SKIP LOCKED: replicas acquiring at the
      // same moment split the sessions instead of waiting on each other.
      const { rows } = await tx.query<Row>(
        `WITH candidates AS (
           SELECT s.session_id FROM sessions s
           LEFT JOIN leases l ON l.session_id = s.session_id
           WHERE NOT s.finished AND (l.session_id IS NULL OR l.expires_at < now() OR l.owner = $1)
           ORDER BY (l.owner IS NOT DISTINCT FROM $1) DESC, s.created_at
           LIMIT $2
           FOR UPDATE OF s SKIP LOCKED
         )
         INSERT INTO leases (session_id, owner, expires_at)
         SELECT session_id, $1, now() + $3 * interval '1 millisecond' FROM candidates
         ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
           WHERE leases.expires_at < now() OR leases.owner = EXCLUDED.owner
         RETURNING session_id`,
        [owner, share, options.ttlMs],
      );
      const held = rows.map((r) => String(r.session_id));
      // Beyond the fair share (a replica joined): hand the rest over.
      await tx.query(`DELETE FROM leases WHERE owner = $1 AND NOT (session_id = ANY($2::text[]))`, [
        owner,
        held,
      ]);
      return held;
    });
  }

  async releaseLeases(owner: string): Promise<void> {
    await this.sql.query('DELETE FROM leases WHERE owner = $1', [owner]);
    await this.sql.query('DELETE FROM replicas WHERE owner = $1', [owner]);
  }

  async pokeSession(sessionId: string): Promise<void> {
    await this.sql.query('UPDATE sessions SET poked_at = now() WHERE session_id = $1', [sessionId]);
  }

  async takePokes(owner: string): Promise<string[]> {
    const { rows } = await this.sql.query<Row>(
      `UPDATE sessions s SET poked_at = NULL FROM leases l
       WHERE l.session_id = s.session_id AND l.owner = $1 AND s.poked_at IS NOT NULL
       RETURNING s.session_id`,
      [owner],
    );
    return rows.map((r) => String(r.session_id));
  }

  async markEventProcessed(eventId: string): Promise<boolean> {
    const { rows } = await this.sql.query<Row>(
      'INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING event_id',
      [eventId],
    );
    return rows.length > 0;
  }

  async ping(): Promise<void> {
    await this.sql.query('SELECT 1');
  }

  close(): Promise<void> {
    return this.sql.close();
  }
}
