import type { SqlClient } from './sql.js';

/** Which replica follows which session, and the pokes that ask it to look now. */
export interface LeaseRepository {
  /**
   * Renews this replica's leases and takes unleased or expired ones, up to its fair share of the
   * unfinished sessions among live replicas (and `limit`); leases beyond it are released.
   */
  acquire(owner: string, options: { limit: number; ttlMs: number }): Promise<string[]>;
  /**
   * Gives up every lease of `owner` (a replica going away) and pokes their sessions, so the live replicas
   * take them at their next poke pass (`awaitingOwner`) rather than when the leases would have expired.
   */
  release(owner: string): Promise<void>;
  /**
   * Whether an unfinished session has no lease: one a replica let go (going away, or beyond its fair
   * share), or one started while every replica that took leases was at its share. Either waits for an owner.
   */
  awaitingOwner(): Promise<boolean>;
  /** Asks whichever replica follows the session to poll it now (someone just acted on it). */
  poke(sessionId: string): Promise<void>;
  /** The pokes waiting for sessions `owner` holds, taken (each is returned once). */
  takePokes(owner: string): Promise<string[]>;
}

export class SqlLeaseRepository implements LeaseRepository {
  constructor(private readonly sql: SqlClient) {}

  acquire(owner: string, options: { limit: number; ttlMs: number }): Promise<string[]> {
    return this.sql.transaction(async (tx) => {
      // A heartbeat per replica: the live ones split the unfinished sessions fairly between them.
      await tx.query(
        `INSERT INTO replicas (owner, seen_at) VALUES ($1, now())
         ON CONFLICT (owner) DO UPDATE SET seen_at = now()`,
        [owner],
      );
      const { rows: counts } = await tx.query<{ live: number | string; active: number | string }>(
        `SELECT (SELECT count(*) FROM replicas WHERE seen_at > now() - $1 * interval '1 millisecond') AS live,
                (SELECT count(*) FROM sessions WHERE NOT finished AND detached_at IS NULL) AS active`,
        [options.ttlMs],
      );
      const live = Math.max(1, Number(counts[0]?.live ?? 1));
      const share = Math.min(options.limit, Math.ceil(Number(counts[0]?.active ?? 0) / live));
      // Own leases first (no churn), renewed whatever else holds their sessions' rows: a replica never
      // loses its own session to a lock (an update of the session in flight) while nobody else took it.
      const { rows: own } = await tx.query<{ session_id: string }>(
        `UPDATE leases SET expires_at = now() + $3 * interval '1 millisecond'
          WHERE owner = $1 AND session_id IN (
            SELECT l.session_id FROM leases l JOIN sessions s ON s.session_id = l.session_id
             WHERE l.owner = $1 AND NOT s.finished AND s.detached_at IS NULL ORDER BY s.created_at LIMIT $2)
          RETURNING session_id`,
        [owner, share, options.ttlMs],
      );
      // Then free sessions and others' expired leases, each row locked with SKIP LOCKED: replicas acquiring
      // at the same moment split the sessions instead of waiting on each other (or deadlocking).
      const { rows: taken } = await tx.query<{ session_id: string }>(
        `WITH free AS (
           SELECT s.session_id, s.created_at FROM sessions s
            WHERE NOT s.finished AND s.detached_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.session_id = s.session_id)
           FOR UPDATE OF s SKIP LOCKED
         ), expired AS (
           SELECT l.session_id, s.created_at FROM leases l JOIN sessions s ON s.session_id = l.session_id
            WHERE NOT s.finished AND s.detached_at IS NULL AND l.expires_at < now() AND l.owner <> $1
           FOR UPDATE OF l SKIP LOCKED
         ), candidates AS (
           SELECT session_id FROM (SELECT * FROM free UNION ALL SELECT * FROM expired) c
            ORDER BY created_at LIMIT $2
         )
         INSERT INTO leases (session_id, owner, expires_at)
         SELECT session_id, $1, now() + $3 * interval '1 millisecond' FROM candidates
         ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
           WHERE leases.expires_at < now()
         RETURNING session_id`,
        [owner, Math.max(0, share - own.length), options.ttlMs],
      );
      const rows = [...own, ...taken];
      const held = rows.map((r) => r.session_id);
      // Beyond the fair share (a replica joined): hand the rest over.
      await tx.query(`DELETE FROM leases WHERE owner = $1 AND NOT (session_id = ANY($2::text[]))`, [
        owner,
        held,
      ]);
      return held;
    });
  }

  release(owner: string): Promise<void> {
    return this.sql.transaction(async (tx) => {
      await tx.query(
        `UPDATE sessions SET poked_at = now()
          WHERE session_id IN (SELECT session_id FROM leases WHERE owner = $1) AND NOT finished`,
        [owner],
      );
      await tx.query('DELETE FROM leases WHERE owner = $1', [owner]);
      // Out of the live replicas at once: the others' fair share grows to take these sessions now.
      await tx.query('DELETE FROM replicas WHERE owner = $1', [owner]);
    });
  }

  async awaitingOwner(): Promise<boolean> {
    const { rows } = await this.sql.query<{ waiting: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM sessions s
          WHERE NOT s.finished AND s.detached_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.session_id = s.session_id)
       ) AS waiting`,
    );
    return rows[0]?.waiting === true;
  }

  async poke(sessionId: string): Promise<void> {
    await this.sql.query('UPDATE sessions SET poked_at = now() WHERE session_id = $1', [sessionId]);
  }

  async takePokes(owner: string): Promise<string[]> {
    const { rows } = await this.sql.query<{ session_id: string }>(
      `UPDATE sessions s SET poked_at = NULL FROM leases l
       WHERE l.session_id = s.session_id AND l.owner = $1 AND s.poked_at IS NOT NULL
       RETURNING s.session_id`,
      [owner],
    );
    return rows.map((r) => r.session_id);
  }
}
