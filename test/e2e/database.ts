import { randomBytes } from 'node:crypto';
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
