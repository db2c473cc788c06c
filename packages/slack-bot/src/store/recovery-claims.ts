import type { SqlExecutor } from './sql.js';

/**
 * Who sends a finished session's leftovers: its posts recorded and never sent, its final card edit. A
 * finished session has no lease, and every replica runs recovery at its start, so the replicas starting
 * together would all send them: the one holding the session's claim does, the others leave them. The claim
 * lapses (a holder that died), and its holder renews it right before each Slack call it makes.
 */
export interface RecoveryClaimRepository {
  /** Takes the claim (free, lapsed, or `holder`'s already) for `ttlMs`: whether `holder` has it now. */
  claim(sessionId: string, holder: string, ttlMs: number): Promise<boolean>;
}

export class SqlRecoveryClaimRepository implements RecoveryClaimRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async claim(sessionId: string, holder: string, ttlMs: number): Promise<boolean> {
    // One statement: replicas claiming at the same moment serialize on the row, and one of them wins.
    const { rows } = await this.sql.query<{ session_id: string }>(
      `INSERT INTO recovery_claims (session_id, holder, expires_at)
       VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (session_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
        WHERE recovery_claims.holder = EXCLUDED.holder OR recovery_claims.expires_at <= now()
       RETURNING session_id`,
      [sessionId, holder, ttlMs],
    );
    return rows.length > 0;
  }
}
