import pg from 'pg';
import type { SqlClient } from './sql.js';

/** A PostgreSQL server through a `pg` pool; `schema` (if given) is the search_path of every connection. */
export function openPostgres(
  connectionString: string,
  options: { schema?: string; max?: number } = {},
): SqlClient {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client's error (server restart) must not crash the bot; the next query reconnects.
  pool.on('error', () => {});
  return {
    query: async <Row>(text: string, params: unknown[] = []) => {
      const result = await pool.query(text, params);
      return { rows: result.rows as Row[] };
    },
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <Row>(text: string, params: unknown[] = []) => ({
            rows: (await client.query(text, params)).rows as Row[],
          }),
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
