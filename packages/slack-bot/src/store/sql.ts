/** The one SQL surface both stores speak (PostgreSQL's dialect): PGlite embedded, or a PostgreSQL server. */
export interface SqlClient {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  /** Runs `fn` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export type SqlExecutor = Pick<SqlClient, 'query'>;
