import type { SqlExecutor } from './sql.js';

export type FeedbackValue = 'good' | 'bad';

/** 👍/👎 on a session's report: one per person and session, the latest press kept. */
export interface FeedbackRepository {
  record(sessionId: string, userId: string, value: FeedbackValue): Promise<void>;
  /** Presses of a session, by value. */
  counts(sessionId: string): Promise<Record<FeedbackValue, number>>;
}

export class SqlFeedbackRepository implements FeedbackRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async record(sessionId: string, userId: string, value: FeedbackValue): Promise<void> {
    await this.sql.query(
      `INSERT INTO session_feedback (session_id, user_id, value) VALUES ($1, $2, $3)
       ON CONFLICT (session_id, user_id) DO UPDATE SET value = excluded.value, at = now()`,
      [sessionId, userId, value],
    );
  }

  async counts(sessionId: string): Promise<Record<FeedbackValue, number>> {
    const { rows } = await this.sql.query<{ value: string; n: number }>(
      'SELECT value, count(*)::int AS n FROM session_feedback WHERE session_id = $1 GROUP BY value',
      [sessionId],
    );
    const counts = { good: 0, bad: 0 };
    for (const r of rows) if (r.value === 'good' || r.value === 'bad') counts[r.value] = Number(r.n);
    return counts;
  }
}
