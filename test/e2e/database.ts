import { randomBytes } from 'node:crypto';
import { openPostgres, SqlStore } from '@agent-sessions/slack-bot';
import pg from 'pg';
import { testDatabaseUrl } from '../support/database-url.js';

async function query<T extends pg.QueryResultRow>(
  sql: string,
  connectionString = testDatabaseUrl(),
): Promise<T[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A database of its own with a random name, on the shared server: made before the replicas start, dropped
 * (with any connection a killed replica left) when the suite ends.
 */
export function scratchDatabase(prefix: string) {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    create: async () => void (await query(`CREATE DATABASE ${name}`)),
    drop: async () => void (await query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
    /** Reads what the replicas wrote. */
    query: <T extends pg.QueryResultRow>(sql: string) => query<T>(sql, url.toString()),
  };
}

/** A store and what ends it: its pool closed, then its schema dropped. */
export interface ScratchStore {
  store: SqlStore;
  close(): Promise<void>;
}

/**
 * An in-process bot's store: a schema of its own, with a random name, on the run's PostgreSQL (which the
 * project's globalSetup provides), migrated as a bot migrates it, dropped when it closes. Opening PGlite in
 * memory cost each bot about 3 CPU-seconds (its file system image and its WebAssembly), the largest share
 * of this suite's CPU; the embedded store stays under test in the store's suites and in npm start's. A
 * small pool: ten files at once each hold one or more of these.
 */
export async function scratchStore(): Promise<ScratchStore> {
  const schema = `e2e_${randomBytes(6).toString('hex')}`;
  await query(`CREATE SCHEMA ${schema}`);
  const store = await SqlStore.open(openPostgres(testDatabaseUrl(), { schema, max: 4 })).catch(
    async (error: unknown) => {
      await query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      throw error;
    },
  );
  return {
    store,
    close: async () => {
      await store.close();
      await query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}
