import type { PostState } from './records.js';
import { iso } from './rows.js';
import type { SqlExecutor } from './sql.js';

/** What was posted in each session's thread, by key: so each thing is posted exactly once. */
export interface PostRepository {
  /**
   * Before posting: whether it was posted already, is being posted, or is new (now marked). With `body`
   * (what the post says, JSON) the mark keeps it, so a post queued but never sent is sent after a crash.
   */
  begin(sessionId: string, key: string, body?: string): Promise<PostState>;
  /** Keys of a session recorded with a body and never posted, oldest first (crash recovery). */
  unsent(sessionId: string): Promise<Array<{ key: string; body: string; since: string }>>;
  /** Sessions with such keys (crash recovery); `finished`: only finished ones (recovery's later passes). */
  unsentSessions(limit: number, options?: { finished?: boolean }): Promise<string[]>;
  finish(sessionId: string, key: string, ts: string): Promise<void>;
  /** The ts a key was posted with, if it was. */
  ts(sessionId: string, key: string): Promise<string | undefined>;
  /** Every message posted with a key that starts with `keyPrefix`, oldest first. */
  withPrefix(sessionId: string, keyPrefix: string): Promise<Array<{ key: string; ts: string }>>;
  /** The post failed for sure (Slack answered with an error): the key is new again. */
  abandon(sessionId: string, key: string): Promise<void>;
}

export class SqlPostRepository implements PostRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async begin(sessionId: string, key: string, body?: string): Promise<PostState> {
    const inserted = await this.sql.query<{ key: string }>(
      'INSERT INTO posted_messages (session_id, key, body) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING key',
      [sessionId, key, body ?? null],
    );
    if (inserted.rows.length > 0) return { state: 'new' };
    const { rows } = await this.sql.query<{ ts: string | null; started_at: Date | string }>(
      'SELECT ts, started_at FROM posted_messages WHERE session_id = $1 AND key = $2',
      [sessionId, key],
    );
    const row = rows[0];
    if (row?.ts) return { state: 'posted', ts: row.ts };
    return { state: 'pending', since: iso(row?.started_at) ?? '' };
  }

  async unsent(sessionId: string): Promise<Array<{ key: string; body: string; since: string }>> {
    const { rows } = await this.sql.query<{ key: string; body: string; started_at: Date | string }>(
      `SELECT key, body, started_at FROM posted_messages
        WHERE session_id = $1 AND ts IS NULL AND body IS NOT NULL
        ORDER BY started_at, key`,
      [sessionId],
    );
    return rows.map((r) => ({ key: r.key, body: r.body, since: iso(r.started_at) ?? '' }));
  }

  async unsentSessions(limit: number, options: { finished?: boolean } = {}): Promise<string[]> {
    const { rows } = await this.sql.query<{ session_id: string }>(
      options.finished
        ? `SELECT DISTINCT p.session_id FROM posted_messages p JOIN sessions s ON s.session_id = p.session_id
            WHERE p.ts IS NULL AND p.body IS NOT NULL AND s.finished LIMIT $1`
        : 'SELECT DISTINCT session_id FROM posted_messages WHERE ts IS NULL AND body IS NOT NULL LIMIT $1',
      [limit],
    );
    return rows.map((r) => r.session_id);
  }

  async finish(sessionId: string, key: string, ts: string): Promise<void> {
    // The body is only kept until posted: what Slack shows is the record from then on.
    await this.sql.query(
      'UPDATE posted_messages SET ts = $3, body = NULL WHERE session_id = $1 AND key = $2',
      [sessionId, key, ts],
    );
  }

  async ts(sessionId: string, key: string): Promise<string | undefined> {
    const { rows } = await this.sql.query<{ ts: string }>(
      'SELECT ts FROM posted_messages WHERE session_id = $1 AND key = $2 AND ts IS NOT NULL',
      [sessionId, key],
    );
    return rows[0]?.ts;
  }

  async withPrefix(sessionId: string, keyPrefix: string): Promise<Array<{ key: string; ts: string }>> {
    // left() rather than LIKE: keys hold '_' and '%' would need escaping.
    const { rows } = await this.sql.query<{ key: string; ts: string }>(
      `SELECT key, ts FROM posted_messages
        WHERE session_id = $1 AND left(key, length($2)) = $2 AND ts IS NOT NULL
        ORDER BY ts`,
      [sessionId, keyPrefix],
    );
    return rows.map((r) => ({ key: r.key, ts: r.ts }));
  }

  async abandon(sessionId: string, key: string): Promise<void> {
    await this.sql.query('DELETE FROM posted_messages WHERE session_id = $1 AND key = $2 AND ts IS NULL', [
      sessionId,
      key,
    ]);
  }
}
