import type { CursorStore, FollowState } from '@agent-sessions/core';
import type { SqlExecutor } from './sql.js';

/** The follower's cursor per session (the core's CursorStore): where reading resumes after a restart. */
export class SqlFollowStateRepository implements CursorStore {
  constructor(private readonly sql: SqlExecutor) {}

  async load(sessionId: string): Promise<FollowState | undefined> {
    // Written only by save() below, from the core's own type: the core reads it back as it wrote it.
    const { rows } = await this.sql.query<{ state: FollowState }>(
      'SELECT state FROM cursors WHERE session_id = $1',
      [sessionId],
    );
    return rows[0]?.state;
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
}
