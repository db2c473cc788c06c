/** A PostgreSQL database of its own for a benchmark's replicas: made before they start, dropped after. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

async function query(sql: string, connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export function scratchDatabase(serverUrl: string, prefix: string) {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    create: () => query(`CREATE DATABASE ${name}`, serverUrl),
    drop: () => query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, serverUrl),
  };
}
