import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/**
 * An initialized, empty PGlite cluster made by `npm run build`, which the bot copies into an empty DATA_DIR
 * instead of running initdb in its own process: PGlite's initdb grows the WebAssembly heap to about 800 MB
 * and WebAssembly memory never shrinks. It sits in dist/ (from src/store and dist/store
 * alike, `../../dist`) so the published package ships it and git ignores it.
 */
export const PGLITE_TEMPLATE_DIR = fileURLToPath(new URL('../../dist/pglite-template/', import.meta.url));

/**
 * The same cluster as a tar file, which an in-memory store (no data directory: the tests) loads instead of
 * running initdb, which takes seconds and hundreds of megabytes each time.
 */
export const PGLITE_TEMPLATE_TAR = fileURLToPath(new URL('../../dist/pglite-template.tar', import.meta.url));

/** Beside the cluster's files: which PGlite made it, and how; a template made otherwise is not used. */
const STAMP = 'PGLITE_TEMPLATE.json';

/** The template's shape: 2 since its WAL is in 1 MB segments (PGLITE_INITDB_PARAMS). */
const TEMPLATE_FORMAT = 2;

/**
 * initdb's settings for the bot's clusters: write-ahead log in 1 MB segments, not 16. Each segment is a file
 * of its full size, and a new cluster's log fits in one, so with 16 MB segments 16 of the template's 39 MB
 * were one log file of mostly zeros, copied into every new data directory and read into every in-memory
 * store; with 1 MB segments the template is 25 MB.
 */
export const PGLITE_INITDB_PARAMS: readonly string[] = ['--wal-segsize=1'];

/** The installed @electric-sql/pglite's version (its data directory format follows it). */
export function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Whether `dir` holds a complete template made by the installed PGlite (the tar file is made before it). */
export function isUsableTemplate(dir: string = PGLITE_TEMPLATE_DIR): boolean {
  try {
    const stamp = JSON.parse(readFileSync(join(dir, STAMP), 'utf8')) as {
      pglite?: unknown;
      format?: unknown;
    };
    return (
      stamp.pglite === pgliteVersion() &&
      stamp.format === TEMPLATE_FORMAT &&
      existsSync(join(dir, 'PG_VERSION'))
    );
  } catch {
    return false;
  }
}

/** The files of a cluster, without the stamp. */
export const isTemplateStamp = (name: string): boolean => name === STAMP;

/**
 * Makes the template (the build step): initdb in this process, the log files it left for later use
 * removed, the tar of the result, then the stamp, written last so a build killed half-way leaves no usable
 * template. Does nothing when a usable one is there.
 */
export async function buildPgliteTemplate(
  dir: string = PGLITE_TEMPLATE_DIR,
  tar: string = PGLITE_TEMPLATE_TAR,
): Promise<'built' | 'kept'> {
  if (isUsableTemplate(dir) && existsSync(tar)) return 'kept';
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const made = await PGlite.create({ dataDir: dir, initDbStartParams: [...PGLITE_INITDB_PARAMS] });
  await made.exec('CHECKPOINT');
  // The segment being written, and the next, which closing may begin: named by PostgreSQL itself.
  const { rows } = await made.query<{ next: string }>(
    `SELECT pg_walfile_name(lsn + pg_size_bytes(current_setting('wal_segment_size'))) AS next
       FROM (SELECT pg_current_wal_insert_lsn() AS lsn) AS insert_at`,
  );
  await made.close();
  removeRecycledWal(dir, rows[0]?.next);
  const db = await PGlite.create(dir);
  writeFileSync(tar, new Uint8Array(await (await db.dumpDataDir('none')).arrayBuffer()));
  await db.close();
  writeFileSync(
    join(dir, STAMP),
    `${JSON.stringify({ pglite: pgliteVersion(), format: TEMPLATE_FORMAT })}\n`,
  );
  return 'built';
}

/**
 * initdb's checkpoints leave old log segments renamed ahead for reuse (PostgreSQL's recycling), files of
 * their full size the cluster doesn't need: PostgreSQL makes a segment when it reaches one that is missing.
 * Removed: every segment after `next`, the one after the segment being written.
 */
function removeRecycledWal(dir: string, next: string | undefined): void {
  if (!next) return;
  const walDir = join(dir, 'pg_wal');
  for (const name of readdirSync(walDir)) {
    if (/^[0-9A-F]{24}$/.test(name) && name > next) rmSync(join(walDir, name));
  }
}
