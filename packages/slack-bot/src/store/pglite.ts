import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { SqlClient } from './sql.js';

/** PostgreSQL in WebAssembly, persisted in a folder: the embedded default (no server to run). */
export async function openPglite(dataDir: string | undefined): Promise<SqlClient> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = dataDir ? await PGlite.create(dataDir) : await PGlite.create();
  return {
    query: async <Row>(text: string, params: unknown[] = []) => {
      const result = await db.query<Row>(text, params);
      return { rows: result.rows };
    },
    transaction: (fn) =>
      db.transaction(async (tx) =>
        fn({
          query: async <Row>(text: string, params: unknown[] = []) => ({
            rows: (await tx.query<Row>(text, params)).rows,
          }),
        }),
      ),
    close: () => db.close(),
  };
}
