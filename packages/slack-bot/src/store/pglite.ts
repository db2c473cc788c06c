import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import {
  isTemplateStamp,
  isUsableTemplate,
  PGLITE_INITDB_PARAMS,
  PGLITE_TEMPLATE_DIR,
  PGLITE_TEMPLATE_TAR,
} from './pglite-template.js';
import { preparedName, type QueryOptions, type SqlClient } from './sql.js';

/**
 * PostgreSQL settings for the one backend PGlite runs. Its cluster is sized for a server (initdb writes
 * shared_buffers = 128MB and max_connections = 100), and in WebAssembly shared memory is part of the bot's
 * heap, which never shrinks: about 140 MB of RSS for buffers a bot's small tables never fill. The operating
 * system's page cache still holds the files; `-c` on the command line wins over postgresql.conf, so data
 * directories made before this apply it too. PGlite's own parameters (single-user mode, its fsync setting)
 * are kept as they are.
 */
export const PGLITE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  ...['shared_buffers=8MB', 'max_connections=5'].flatMap((setting) => ['-c', setting]),
];

/**
 * PGlite's 9 MB WebAssembly module compiled by V8's baseline compiler (Liftoff) alone. By default V8 also
 * recompiles hot functions with its optimizing compiler (TurboFan) on background threads, and the memory
 * those compilations take stays with the process: about 45 MB more RSS for the bot, measured, for no gain
 * in the store's speed on 2 cores (the same work took 4-5 s with Liftoff alone, 6-9 s with tier-up). The
 * flag concerns WebAssembly only and is left alone when the process was started with a wasm flag of its
 * own. It must be set before the module is compiled, hence here rather than in main.
 */
function compileWasmWithBaselineOnly(): void {
  if (process.execArgv.some((arg) => /wasm|liftoff|turbofan/.test(arg))) return;
  setFlagsFromString('--liftoff-only');
}

export interface PgliteOptions {
  /** The initialized cluster copied into an empty data directory (tests point it elsewhere). */
  templateDir?: string;
}

/** PostgreSQL in WebAssembly, persisted in a folder: the embedded default (no server to run). */
export async function openPglite(
  dataDir: string | undefined,
  options: PgliteOptions = {},
): Promise<SqlClient> {
  if (dataDir) await ensureCluster(dataDir, options.templateDir ?? PGLITE_TEMPLATE_DIR);
  compileWasmWithBaselineOnly();
  const db = await PGlite.create({
    ...(dataDir ? { dataDir } : inMemoryTemplate()),
    startParams: [...PGLITE_START_PARAMS],
  });
  const prepared = preparedStatements(db);
  return {
    query: async <Row>(text: string, params: unknown[] = [], options: QueryOptions = {}) => {
      const execute = options.prepare ? await prepared.executeOf(text, params) : undefined;
      const result = execute ? await db.query<Row>(execute) : await db.query<Row>(text, params);
      return { rows: result.rows };
    },
    transaction: (fn) =>
      db.transaction(async (tx) =>
        fn({
          query: async <Row>(text: string, params: unknown[] = []) => ({
            rows: (await tx.query<Row>(text, params)).rows,
          }),
        }),
      ),
    close: () => db.close(),
  };
}

/**
 * Statements prepared in PGlite's one backend (SQL's PREPARE, once per text) and run as `EXECUTE name(…)`.
 * PGlite parses and plans every statement sent with parameters anew, and for a one-row read that was
 * most of its cost: 0.4-0.65 ms a read against 0.13-0.2 ms executed by name (measured on this 2-core
 * machine). EXECUTE takes no bound parameters, so its arguments are SQL literals: strings (quotes
 * doubled, with standard_conforming_strings on, as it is by default and checked here), finite numbers
 * and NULL. Anything else (or a string with a NUL, which PostgreSQL's text can't hold) runs unprepared.
 */
function preparedStatements(db: PGlite) {
  const names = new Map<string, string>();
  const ready = new Map<string, Promise<boolean>>();
  const prepare = async (name: string, text: string): Promise<boolean> => {
    const [shown] = await db.exec('SHOW standard_conforming_strings');
    const setting = shown?.rows[0] as { standard_conforming_strings?: string } | undefined;
    if (setting?.standard_conforming_strings !== 'on') return false;
    await db.exec(`PREPARE ${name} AS ${text}`);
    return true;
  };
  return {
    /** The EXECUTE statement running `text` with `params`; undefined when it must run unprepared. */
    async executeOf(text: string, params: unknown[]): Promise<string | undefined> {
      const args = params.map(literal);
      if (args.some((a) => a === undefined)) return undefined;
      const name = preparedName(names, text);
      let made = ready.get(name);
      if (!made) {
        // A statement PostgreSQL refuses to prepare runs unprepared, and says why when it does.
        made = prepare(name, text).catch(() => false);
        ready.set(name, made);
      }
      if (!(await made)) return undefined;
      return args.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${args.join(', ')})`;
    },
  };
}

/** A parameter as an SQL literal for EXECUTE; undefined when it can't be written as one safely. */
function literal(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'string' && !value.includes('\0')) return `'${value.replaceAll("'", "''")}'`;
  return undefined;
}

/** An in-memory store starts from the build's template when there is one (else PGlite runs initdb). */
function inMemoryTemplate(): { loadDataDir?: Blob } {
  if (!isUsableTemplate() || !existsSync(PGLITE_TEMPLATE_TAR)) return {};
  return { loadDataDir: new BytesBlob(readFileSync(PGLITE_TEMPLATE_TAR)) };
}

/**
 * Bytes read for one store, as the Blob PGlite's loadDataDir takes. PGlite reads it once, with
 * arrayBuffer(), which this one answers with the bytes themselves (not a copy per call, as Blob's would
 * be); Node 20's own copies a Blob's contents back in small chunks, which for the template's tar was half
 * of an in-memory store's opening (0.5 of 1.1 CPU-s, measured). Its other methods are Blob's, over the
 * same bytes.
 */
class BytesBlob extends Blob {
  readonly #bytes: Buffer;

  constructor(bytes: Buffer) {
    super([bytes]);
    this.#bytes = bytes;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.#bytes;
    // A file this large is read into a buffer of its own (Node pools small ones only): no copy then.
    const own = byteOffset === 0 && byteLength === buffer.byteLength;
    return (own ? buffer : buffer.slice(byteOffset, byteOffset + byteLength)) as ArrayBuffer;
  }
}

/** A data directory holds a cluster once PG_VERSION is there (PGlite's own test, too). */
const CLUSTER_MARK = 'PG_VERSION';
/** Where a new cluster is put together inside the data directory (same file system, so renames are atomic). */
const STAGING_PREFIX = '.pglite-init-';

/**
 * Gives an empty data directory its cluster without initdb in this process: a copy of the template made at
 * build time, or, without one, initdb in a short-lived child process. Either way the cluster is assembled in
 * a staging folder and moved in with PG_VERSION last, so a kill at any point leaves either no cluster (the
 * next start begins again) or a whole one. Other files in the folder (a log) are left alone.
 */
async function ensureCluster(dataDir: string, templateDir: string = PGLITE_TEMPLATE_DIR): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(join(dataDir, CLUSTER_MARK))) return;
  for (const name of readdirSync(dataDir)) {
    if (name.startsWith(STAGING_PREFIX)) rmSync(join(dataDir, name), { recursive: true, force: true });
  }
  const staging = join(dataDir, `${STAGING_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    if (isUsableTemplate(templateDir)) {
      cpSync(templateDir, staging, {
        recursive: true,
        filter: (source) => !isTemplateStamp(basename(source)),
      });
    } else {
      await initdbInChild(staging);
    }
    const names = readdirSync(staging).filter((name) => name !== CLUSTER_MARK);
    for (const name of [...names, CLUSTER_MARK]) {
      // Without PG_VERSION nothing here is a cluster: these are the remains of a start killed while moving.
      rmSync(join(dataDir, name), { recursive: true, force: true });
      renameSync(join(staging, name), join(dataDir, name));
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * initdb in a child Node process with the same PGlite, so its memory is returned when the child exits. The
 * program is inline (CommonJS, `require` of the path resolved here) so it runs the same from src/ under the
 * test runner and from dist/.
 */
function initdbInChild(dir: string): Promise<void> {
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const program = [
    'const { PGlite } = require(process.argv[1]);',
    'PGlite.create({ dataDir: process.argv[2], initDbStartParams: JSON.parse(process.argv[3]) })',
    '  .then((db) => db.close())',
    '  .then(',
    '    () => process.exit(0),',
    '    (error) => { process.stderr.write(String(error && error.message ? error.message : error)); process.exit(1); },',
    ');',
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-e', program, pglite, dir, JSON.stringify(PGLITE_INITDB_PARAMS)],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4_000);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`PGlite could not initialize ${dir} (initdb ${signal ?? `exit ${code}`}): ${stderr}`),
        );
    });
  });
}
