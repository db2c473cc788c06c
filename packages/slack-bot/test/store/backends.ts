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

/** The worker's one in-memory PGlite, and which schema its single connection is in now. */
interface SharedPglite {
  db: SqlClient;
  schema: string | undefined;
  /** The end of the last SET-then-query, so a client's search_path and its query are never split. */
  queue: Promise<unknown>;
}

const SHARED_PGLITE = Symbol.for('agent-sessions.test.shared-pglite');

/**
 * One in-memory PGlite per worker process, opened from the build's template on first use and kept for
 * every store file the worker runs (the files share workers: isolate false). Opening one costs about 1.3
 * CPU-seconds (its file system image and WebAssembly instance), and a file opened one to three; each file
 * still gets an empty database of its own: a schema with a random name, as on PostgreSQL. Never closed:
 * it holds no handle, so it goes with the worker. Opening itself is the subject of pglite.test.ts and of
 * the on-disk tests, which open their own.
 */
function sharedPglite(): Promise<SharedPglite> {
  const holder = globalThis as { [SHARED_PGLITE]?: Promise<SharedPglite> };
  holder[SHARED_PGLITE] ??= openPglite(undefined).then(
    (db) => ({ db, schema: undefined, queue: Promise.resolve() }),
    (error: unknown) => {
      delete holder[SHARED_PGLITE];
      throw error;
    },
  );
  return holder[SHARED_PGLITE];
}

/**
 * A client of the shared PGlite whose every statement runs in `schema` (made if missing): it sets the
 * connection's search_path first when another client left it elsewhere. Closing it leaves the database
 * open for the others; the backend's cleanup drops the schema.
 */
async function pgliteInSchema(schema: string): Promise<SqlClient> {
  const shared = await sharedPglite();
  const inSchema = <T>(run: () => Promise<T>): Promise<T> => {
    const turn = shared.queue.then(async () => {
      if (shared.schema !== schema) {
        await shared.db.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await shared.db.query(`SET search_path TO ${schema}`);
        shared.schema = schema;
      }
      return run();
    });
    shared.queue = turn.catch(() => undefined);
    return turn;
  };
  await inSchema(async () => undefined);
  return {
    query: (text, params) => inSchema(() => shared.db.query(text, params)),
    transaction: (fn) => inSchema(() => shared.db.transaction(fn)),
    close: async () => {},
  };
}

async function dropPgliteSchema(schema: string): Promise<void> {
  const holder = globalThis as { [SHARED_PGLITE]?: Promise<SharedPglite> };
  const shared = await holder[SHARED_PGLITE];
  if (!shared) return;
  const turn = shared.queue.then(async () => {
    await shared.db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    if (shared.schema === schema) shared.schema = undefined;
  });
  shared.queue = turn.catch(() => undefined);
  await turn;
}

/**
 * The store on both databases: PGlite in memory and PostgreSQL, each in a schema of its own with a random
 * name (dropped at cleanup): the PostgreSQL server is shared with whatever else runs (TEST_DATABASE_URL's,
 * or the one started for the run: test/support/postgres.ts), the PGlite with the worker's other files.
 */
export function storeBackends(schemaPrefix: string): Backend[] {
  const schema = `${schemaPrefix}_${Math.random().toString(36).slice(2, 10)}`;
  return [
    {
      name: 'PGlite',
      open: async () => SqlStore.open(await pgliteInSchema(schema)),
      openSql: () => pgliteInSchema(schema),
      cleanup: () => dropPgliteSchema(schema),
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
 * A describe block whose tests share one store on the backend: opened before them, closed after, its
 * schema then dropped. Skipped (reported so, never passed) when the backend is. The body is
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
