import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../packages/slack-bot/src/store/migrations.js';

// Every store table that holds a Slack channel or user id says whose workspace the row is: Slack's ids
// are per workspace (a Slack Connect channel has one id in two organisations, a Grid user one id in every
// workspace of theirs), so a row keyed by such an id alone can carry one workspace's data into another.
// The schema is read from the bot's migrations, as they run, statement by statement: a table added or
// changed later is checked without anyone listing it here. A table without such a column is listed
// below, with the reason it can't cross.

/** Columns that say whose workspace a row is: the installation's key, or Slack's team id. */
const WORKSPACE_COLUMNS = new Set(['workspace', 'team_id']);

/** A Slack channel or user id: `channel_id`, `user_id`, `…_user_id`, and who did something (`…_by`). */
const holdsSlackId = (column: string) => /(^|_)(channel|user)_id$/.test(column) || /_by$/.test(column);

/** Tables with a channel or user column and no workspace column, each with why it can't cross. */
const EXCEPTIONS: Record<string, string> = {
  prompts:
    "a session's questions: reached only through its session (session_id), whose row names the workspace and which the store filters by",
  session_feedback:
    "👍/👎 under a session's report: reached only through its session (session_id), as prompts are",
};

type Schema = Map<string, Set<string>>;

const CONSTRAINTS = /^(PRIMARY|UNIQUE|CHECK|FOREIGN|CONSTRAINT|EXCLUDE)\b/i;

/** The columns of `CREATE TABLE t (…)`: each top-level entry's first word, constraints left out. */
function columnsOf(body: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of body) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      entries.push(current);
      current = '';
    } else current += ch;
  }
  entries.push(current);
  return entries
    .map((e) => e.trim())
    .filter((e) => e !== '' && !CONSTRAINTS.test(e))
    .map((e) => (e.split(/\s+/)[0] ?? '').toLowerCase());
}

/** One statement applied to the schema; one this reader doesn't know is an error, never skipped. */
function apply(schema: Schema, statement: string): void {
  const sql = statement.replace(/--.*$/gm, '').trim();
  const create = /^CREATE TABLE (?:IF NOT EXISTS )?(\w+)\s*\(([\s\S]*)\)$/i.exec(sql);
  if (create) {
    schema.set((create[1] as string).toLowerCase(), new Set(columnsOf(create[2] as string)));
    return;
  }
  if (/^(CREATE (UNIQUE )?INDEX|INSERT|UPDATE|DELETE)\b/i.test(sql)) return;
  const drop = /^DROP TABLE (?:IF EXISTS )?(\w+)$/i.exec(sql);
  if (drop) {
    schema.delete((drop[1] as string).toLowerCase());
    return;
  }
  const alter = /^ALTER TABLE (\w+) ([\s\S]+)$/i.exec(sql);
  const table = alter && schema.get((alter[1] as string).toLowerCase());
  if (!alter || !table) throw new Error(`a statement this test can't read: ${sql}`);
  const action = alter[2] as string;
  const add = /^ADD COLUMN (?:IF NOT EXISTS )?(\w+)/i.exec(action);
  const dropColumn = /^DROP COLUMN (?:IF EXISTS )?(\w+)/i.exec(action);
  const rename = /^RENAME COLUMN (\w+) TO (\w+)$/i.exec(action);
  if (add) table.add((add[1] as string).toLowerCase());
  else if (dropColumn) table.delete((dropColumn[1] as string).toLowerCase());
  else if (rename) {
    table.delete((rename[1] as string).toLowerCase());
    table.add((rename[2] as string).toLowerCase());
  } else if (!/^(ADD PRIMARY KEY|DROP CONSTRAINT|ADD CONSTRAINT)\b/i.test(action))
    throw new Error(`an ALTER TABLE this test can't read: ${sql}`);
}

/** The schema every migration leaves, statement by statement as `migrate` splits them. */
function schemaOfMigrations(): Schema {
  const schema: Schema = new Map();
  for (const migration of MIGRATIONS)
    for (const statement of migration.split(/;\s*$/m).filter((s) => s.trim())) apply(schema, statement);
  return schema;
}

describe('store tables and workspaces', () => {
  const schema = schemaOfMigrations();

  it('reads the schema the migrations build', () => {
    expect(schema.get('sessions')).toEqual(expect.any(Set));
    expect([...(schema.get('sessions') ?? [])]).toEqual(
      expect.arrayContaining(['channel_id', 'started_by', 'workspace']),
    );
    expect([...(schema.get('channel_settings') ?? [])]).toContain('workspace');
  });

  it('every table with a channel or user column has a workspace column, or a named reason', () => {
    const unscoped = [...schema]
      .filter(([, columns]) => [...columns].some(holdsSlackId))
      .filter(([, columns]) => ![...columns].some((c) => WORKSPACE_COLUMNS.has(c)))
      .map(([table]) => table);
    expect(unscoped.filter((table) => !(table in EXCEPTIONS))).toEqual([]);
  });

  it('each exception is a table the schema has, with a channel or user column and no workspace', () => {
    for (const table of Object.keys(EXCEPTIONS)) {
      const columns = [...(schema.get(table) ?? [])];
      expect(columns, table).toContain('session_id');
      expect(columns.some(holdsSlackId), table).toBe(true);
      expect(
        columns.some((c) => WORKSPACE_COLUMNS.has(c)),
        table,
      ).toBe(false);
    }
  });
});
