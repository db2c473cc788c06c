/** The store: PostgreSQL (shared by replicas, each session leased to one) or PGlite in a data folder. */
import { z } from 'zod';

export const storeSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  LEASE_TTL_SECONDS: z.coerce
    .number({ error: 'LEASE_TTL_SECONDS must be a number' })
    .min(1, 'LEASE_TTL_SECONDS must be at least 1')
    .max(3600, 'LEASE_TTL_SECONDS must be at most 3600')
    .default(30),
  REPLICA_ID: z
    .string()
    .regex(/^[\w.-]{1,100}$/, 'REPLICA_ID may hold letters, digits, dot, dash and underscore (1-100)')
    .optional(),
});

export interface StoreConfig {
  databaseUrl?: string;
  dataDir: string;
  /** With PostgreSQL: how long a dead replica's sessions wait before another takes them. */
  leaseTtlMs: number;
  replicaId?: string;
}

export function storeSettings(env: z.output<typeof storeSchema>): StoreConfig {
  return {
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    dataDir: env.DATA_DIR,
    leaseTtlMs: env.LEASE_TTL_SECONDS * 1000,
    ...(env.REPLICA_ID ? { replicaId: env.REPLICA_ID } : {}),
  };
}

/** The password in a postgres:// URL, scrubbed from logs like the tokens (a driver error may quote it). */
export function databasePassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}
