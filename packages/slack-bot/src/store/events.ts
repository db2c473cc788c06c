import type { SqlExecutor } from './sql.js';

/** Slack's Events API re-delivers: each event_id is handled once. */
export interface EventLog {
  /** True the first time an event_id is seen. */
  markProcessed(eventId: string): Promise<boolean>;
  /** Forgets a mark, so the next `markProcessed` of it is the first again (a claim whose work failed). */
  unmark(eventId: string): Promise<void>;
}

/** Slack retries for minutes, not days: older marks only take room (every message a thread reply brings). */
const KEEP = '1 day';
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export class SqlEventLog implements EventLog {
  #prunedAt = 0;

  constructor(private readonly sql: SqlExecutor) {}

  async markProcessed(eventId: string): Promise<boolean> {
    if (Date.now() - this.#prunedAt > PRUNE_EVERY_MS) {
      this.#prunedAt = Date.now();
      await this.sql.query(`DELETE FROM processed_events WHERE received_at < now() - interval '${KEEP}'`);
    }
    const { rows } = await this.sql.query<{ event_id: string }>(
      'INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING event_id',
      [eventId],
    );
    return rows.length > 0;
  }

  async unmark(eventId: string): Promise<void> {
    await this.sql.query('DELETE FROM processed_events WHERE event_id = $1', [eventId]);
  }
}
