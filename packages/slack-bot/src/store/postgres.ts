import pg from 'pg';
import { preparedName, type QueryOptions, type SqlClient } from './sql.js';

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
  const names = new Map<string, string>();
  return {
    query: async <Row>(text: string, params: unknown[] = [], options: QueryOptions = {}) => {
      // pg prepares a named statement on each connection the first time it runs there (a statement's
      // columns must keep their types across migrations: the hot read returns jsonb).
      const result = options.prepare
        ? await pool.query({ name: preparedName(names, text), text, values: params })
        : await pool.query(text, params);
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
