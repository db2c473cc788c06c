import type { SqlExecutor } from './sql.js';

/**
 * A finished session's final card, recorded before its edit is sent and removed once Slack took it: an
 * edit the shutdown grace cut short, or that Slack refused with an error other than a 429, stays here for
 * the next recovery to send.
 */
export interface FinalCardRepository {
  /** The card as it should end (JSON of the edit), owed until `sent`. */
  record(sessionId: string, card: string): Promise<void>;
  /** The card still owed, if any. */
  owed(sessionId: string): Promise<string | undefined>;
  /** Sessions with a card owed (recovery at start). */
  owedSessions(limit: number): Promise<string[]>;
  /** Slack took this card: nothing owed, unless a newer one was recorded since. */
  sent(sessionId: string, card: string): Promise<void>;
}

export class SqlFinalCardRepository implements FinalCardRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async record(sessionId: string, card: string): Promise<void> {
    await this.sql.query(
      `INSERT INTO final_cards (session_id, card) VALUES ($1, $2)
       ON CONFLICT (session_id) DO UPDATE SET card = EXCLUDED.card, recorded_at = now()`,
      [sessionId, card],
    );
  }

  async owed(sessionId: string): Promise<string | undefined> {
    const { rows } = await this.sql.query<{ card: string }>(
      'SELECT card FROM final_cards WHERE session_id = $1',
      [sessionId],
    );
    return rows[0]?.card;
  }

  async owedSessions(limit: number): Promise<string[]> {
    const { rows } = await this.sql.query<{ session_id: string }>(
      'SELECT session_id FROM final_cards ORDER BY recorded_at LIMIT $1',
      [limit],
    );
    return rows.map((r) => r.session_id);
  }

  async sent(sessionId: string, card: string): Promise<void> {
    await this.sql.query('DELETE FROM final_cards WHERE session_id = $1 AND card = $2', [sessionId, card]);
  }
}
