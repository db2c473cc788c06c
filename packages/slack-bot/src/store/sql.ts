/** The one SQL surface both stores speak (PostgreSQL's dialect): PGlite embedded, or a PostgreSQL server. */
export interface SqlClient {
  query<Row = Record<string, unknown>>(
    text: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<{ rows: Row[] }>;
  /** Runs `fn` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export type SqlExecutor = Pick<SqlClient, 'query'>;

export interface QueryOptions {
  /**
   * A statement of a hot path (a read on every MCP call): prepared once per connection and run by name
   * after, so the database parses and plans it once rather than on every run (in PGlite, planning a
   * one-row read cost more than running it). Only for statements with string, number or null parameters.
   */
  prepare?: boolean;
}

/** The name a statement is prepared under: one per text, the same on every connection. */
export function preparedName(names: Map<string, string>, text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `hot_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}
