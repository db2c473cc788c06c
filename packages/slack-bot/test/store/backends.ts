import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { testDatabaseUrl } from '../../../../test/support/database-url.js';
import { openPglite, openPostgres, type SqlClient, SqlStore } from '../../src/index.js';

export interface Backend {
  name: string;
  open(): Promise<SqlStore>;
  /** The database with no migration run yet (a store opened on it later migrates it). */
  openSql(): Promise<SqlClient>;
  cleanup(): Promise<void>;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The store on both databases: PGlite in memory, and PostgreSQL in a schema of its own with a random name
 * (dropped at cleanup), since the server is shared with whatever else runs: TEST_DATABASE_URL's, or the one
 * started for the run (test/support/postgres.ts).
 */
export function storeBackends(schemaPrefix: string): Backend[] {
  const schema = `${schemaPrefix}_${Math.random().toString(36).slice(2, 10)}`;
  return [
    {
      name: 'PGlite',
      open: async () => SqlStore.open(await openPglite(undefined)),
      openSql: () => openPglite(undefined),
      cleanup: async () => {},
    },
    {
      name: 'PostgreSQL',
      open: async () => {
        await admin(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        return SqlStore.open(openPostgres(testDatabaseUrl(), { schema }));
      },
      openSql: async () => {
        await admin(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        return openPostgres(testDatabaseUrl(), { schema });
      },
      cleanup: () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
    },
  ];
}

/**
 * A describe block whose tests share one store on the backend: opened before them, closed after, the
 * PostgreSQL schema then dropped. Skipped (reported so, never passed) when the backend is. The body is
 * collected before the store opens, so it gets a stand-in that reads through to the opened store.
 */
export function describeWithStore(backend: Backend, title: string, body: (store: SqlStore) => void): void {
  describe(title, () => {
    let store: SqlStore | undefined;
    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });
    body(openedLater(() => store));
  });
}

function openedLater(current: () => SqlStore | undefined): SqlStore {
  return new Proxy({} as SqlStore, {
    get(_stand, property) {
      const store = current();
      if (!store) throw new Error(`the store opens in beforeAll: '${String(property)}' read before it`);
      const value: unknown = Reflect.get(store, property, store);
      return typeof value === 'function' ? value.bind(store) : value;
    },
  });
}
