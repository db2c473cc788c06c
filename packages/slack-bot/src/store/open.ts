import type { SqlClient } from './sql.js';
import { SqlStore } from './store.js';

/** Where the store lives: a PostgreSQL server (and schema), else PGlite's folder (none: in memory). */
export interface StoreLocation {
  databaseUrl?: string;
  dataDir?: string;
  schema?: string;
}

/**
 * PostgreSQL when `databaseUrl` is set, else PGlite in `dataDir` (in memory without one); migrated. Only
 * the backend asked for is loaded (`pg`, or PGlite and its WebAssembly): a bot start, in production and
 * in every end-to-end test that spawns one, pays for one store's modules, not both.
 */
export async function openStore(options: StoreLocation): Promise<SqlStore> {
  const sql = await openSql(options);
  try {
    return await SqlStore.open(sql);
  } catch (error) {
    await sql.close().catch(() => {});
    throw error;
  }
}

async function openSql(options: StoreLocation): Promise<SqlClient> {
  if (options.databaseUrl) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(options.databaseUrl, options.schema ? { schema: options.schema } : {});
  }
  const { openPglite } = await import('./pglite.js');
  return openPglite(options.dataDir);
}
