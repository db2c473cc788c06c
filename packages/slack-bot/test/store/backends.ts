import pg from 'pg';
import { openPglite, openPostgres, type SqlClient, SqlStore } from '../../src/index.js';

export interface Backend {
  name: string;
  /** PostgreSQL without TEST_DATABASE_URL: reported as skipped, never passed. */
  skip: boolean;
  open(): Promise<SqlStore>;
  /** The database with no migration run yet (a store opened on it later migrates it). */
  openSql(): Promise<SqlClient>;
  cleanup(): Promise<void>;
}

const DATABASE_URL = process.env.TEST_DATABASE_URL;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The store on both databases: PGlite in memory, and PostgreSQL in a schema of its own with a random name
 * (dropped at cleanup), since the server is shared with whatever else runs.
 */
export function storeBackends(schemaPrefix: string): Backend[] {
  const schema = `${schemaPrefix}_${Math.random().toString(36).slice(2, 10)}`;
  return [
    {
      name: 'PGlite',
      skip: false,
      open: async () => SqlStore.open(await openPglite(undefined)),
      openSql: () => openPglite(undefined),
      cleanup: async () => {},
    },
    {
      name: 'PostgreSQL',
      skip: !DATABASE_URL,
      open: async () => {
        await admin(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        return SqlStore.open(openPostgres(DATABASE_URL as string, { schema }));
      },
      openSql: async () => {
        await admin(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        return openPostgres(DATABASE_URL as string, { schema });
      },
      cleanup: () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
    },
  ];
}
