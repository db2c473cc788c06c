import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { patient } from '../../../../test/support/patience.js';
import { openPglite } from '../../src/store/pglite.js';
import { isUsableTemplate, PGLITE_TEMPLATE_DIR } from '../../src/store/pglite-template.js';

// The writer runs as production does, from dist/ (built before the tests, as the e2e tests' bot is).
const PGLITE_JS = pathToFileURL(join(import.meta.dirname, '../../dist/store/pglite.js')).href;

/**
 * A child process that opens a store in `dataDir` and commits rows one by one, printing each id once its
 * INSERT has returned; it never stops on its own.
 */
const WRITER = `
const { openPglite } = await import(process.argv[1]);
const options = process.argv[3] ? { templateDir: process.argv[3] } : {};
const sql = await openPglite(process.argv[2], options);
await sql.query('CREATE TABLE IF NOT EXISTS durability (id integer PRIMARY KEY, note text NOT NULL)');
for (let id = 1; ; id++) {
  await sql.transaction(async (tx) => {
    await tx.query('INSERT INTO durability (id, note) VALUES ($1, $2)', [id, 'row ' + id]);
  });
  process.stdout.write('committed ' + id + '\\n');
}
`;

/** Runs the writer until it has committed `atLeast` rows, SIGKILLs it, and returns the ids it reported. */
function writeThenKill(dataDir: string, atLeast: number, templateDir?: string): Promise<number[]> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', WRITER, PGLITE_JS, dataDir, ...(templateDir ? [templateDir] : [])],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const committed: number[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const id = /^committed (\d+)$/.exec(line)?.[1];
      if (id) committed.push(Number(id));
    }
    if (committed.length >= atLeast) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    child.once('close', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(committed);
      else reject(new Error(`the writer stopped by itself (${signal ?? _code}): ${stderr}`));
    });
  });
}

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pglite-store-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('PGlite data directory', () => {
  it('the build made a template cluster for the installed PGlite', () => {
    expect(isUsableTemplate(PGLITE_TEMPLATE_DIR)).toBe(true);
  });

  it('the template carries no log files for later: its segments are 1 MB, and at most two', () => {
    const walDir = join(PGLITE_TEMPLATE_DIR, 'pg_wal');
    const segments = readdirSync(walDir).filter((name) => /^[0-9A-F]{24}$/.test(name));
    expect(segments.length).toBeGreaterThanOrEqual(1);
    expect(segments.length).toBeLessThanOrEqual(2);
    for (const name of segments) expect(statSync(join(walDir, name)).size).toBe(1024 * 1024);
  });

  for (const path of ['a copy of the build template', 'initdb in a child process'] as const) {
    it(
      `made by ${path}, survives SIGKILL mid-writes and reopens with every committed row`,
      async () => {
        const dataDir = join(freshDir(), 'data');
        const templateDir =
          path === 'initdb in a child process' ? join(freshDir(), 'no-template') : undefined;
        const committed = await writeThenKill(dataDir, 30, templateDir);
        expect(committed.length).toBeGreaterThanOrEqual(30);

        const sql = await openPglite(dataDir);
        try {
          const { rows } = await sql.query<{ id: number }>('SELECT id FROM durability ORDER BY id');
          const stored = new Set(rows.map((r) => r.id));
          expect(committed.filter((id) => !stored.has(id))).toEqual([]);
          // Either way the cluster is made with the same initdb settings (PGLITE_INITDB_PARAMS).
          const segment = await sql.query<{ wal_segment_size: string }>('SHOW wal_segment_size');
          expect(segment.rows[0]?.wal_segment_size).toBe('1MB');
        } finally {
          await sql.close();
        }
      },
      patient(120_000),
    );
  }

  it('a start killed while creating the cluster leaves no half cluster: the next one completes it', async () => {
    const dataDir = freshDir();
    // What a kill leaves: a staging folder, and some of the cluster moved in without PG_VERSION.
    mkdirSync(join(dataDir, '.pglite-init-1-dead/base'), { recursive: true });
    mkdirSync(join(dataDir, 'global'));
    writeFileSync(join(dataDir, 'global', 'pg_control'), 'torn');
    writeFileSync(join(dataDir, 'bot.log'), 'a log the operator keeps here\n');

    const sql = await openPglite(dataDir);
    try {
      const { rows } = await sql.query<{ n: number }>('SELECT 1 + 1 AS n');
      expect(rows).toEqual([{ n: 2 }]);
      // The small settings reach the server: initdb's postgresql.conf says 128MB.
      const settings = await sql.query<{ shared_buffers: string }>('SHOW shared_buffers');
      expect(settings.rows[0]?.shared_buffers).toBe('8MB');
    } finally {
      await sql.close();
    }
    const left = readdirSync(dataDir);
    expect(left.filter((name) => name.startsWith('.pglite-init-'))).toEqual([]);
    expect(left).toContain('bot.log');
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
  }, 60_000);
});
