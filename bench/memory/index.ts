/**
 * Memory benchmark: the Slack bot's resident set size (RSS) as production runs it (`node dist/main.js`),
 * on PGlite (the embedded default) and on PostgreSQL, side by side. Prints a table and writes
 * bench/results/memory.json.
 *
 *   npm run bench:memory -- [--runs 3] [--sessions 200] [--concurrency 20] [--database-url postgres://…]
 *
 * For each store, `--runs` times: a first start on an empty store (PGlite: an empty DATA_DIR; PostgreSQL: a
 * new database), then a restart on it. Then one more start drives `--sessions` sessions of the emulator's
 * `complete` scenario through the Slack sandbox and reads the RSS when all of them are done. Figures are
 * medians over the runs; "peak" is the kernel's high-water mark (VmHWM) of the process.
 *
 * PostgreSQL: `--database-url` or BENCH_DATABASE_URL / TEST_DATABASE_URL names a server (any database on
 * it); the bench creates a database of its own there and drops it at the end. Without one it tries
 * postgres://postgres@127.0.0.1:5432/postgres and, when nothing answers, reports PostgreSQL as skipped.
 *
 * One run read top to bottom: reading a process's RSS, driving sessions, the two stores under test and
 * the report share its arguments and run nothing on their own.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnEmulator } from '@agent-sessions/emulator/testing';
import {
  defaultSeed,
  type RunningSandbox,
  type SandboxMessage,
  startSandbox,
} from '@agent-sessions/slack-sandbox';
import pg from 'pg';
import { type Bot, botEnv, spawnBot } from '../bot.js';
import { wholeAbove0, writeResult } from '../cli.js';
import { median, round } from '../stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    sessions: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '20' },
    speed: { type: 'string', default: '50' },
    'database-url': { type: 'string' },
    out: { type: 'string', default: 'bench/results/memory.json' },
  },
});
const RUNS = wholeAbove0('runs', values.runs);
const SESSIONS = wholeAbove0('sessions', values.sessions);
const CONCURRENCY = wholeAbove0('concurrency', values.concurrency);
const SPEED = wholeAbove0('speed', values.speed);

/** The memory target: the bot's RSS on PGlite under a cap, and within a ratio of its RSS on PostgreSQL. */
const TARGET = { maxMb: 250, maxRatioToPostgres: 2 };
const KEY = 'bench_memory_key';
const USER = 'U0ALICE';
/** Sessions are spread over channels so no one thread of the sandbox holds all of them. */
const CHANNELS = Array.from({ length: 10 }, (_, i) => `C0MEM${String(i).padStart(2, '0')}`);
const log = (line: string) => process.stdout.write(`${line}\n`);
const mb = (kb: number) => Math.round(kb / 1024);

interface Rss {
  rssMb: number;
  peakMb: number;
  /**
   * Resident part of WebAssembly memories (PGlite's heap): read-write mappings of 64 MiB or more that
   * border a reservation of 1 GiB or more (V8 reserves guard space around a memory); 0 where unknown.
   */
  wasmMb: number;
}

/** VmRSS and VmHWM of a process, from /proc (Linux); elsewhere `ps` gives the RSS and no peak. */
function readRss(pid: number): Rss {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssMb: mb(field('VmRSS')), peakMb: mb(field('VmHWM')), wasmMb: mb(wasmKb(pid)) };
  } catch {
    const kb = Number(
      execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
        .toString()
        .trim(),
    );
    return { rssMb: mb(kb), peakMb: mb(kb), wasmMb: 0 };
  }
}

function wasmKb(pid: number): number {
  const maps: Array<{ start: number; end: number; perms: string; rssKb: number }> = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
    if (m)
      maps.push({
        start: Number.parseInt(m[1] as string, 16),
        end: Number.parseInt(m[2] as string, 16),
        perms: m[3] as string,
        rssKb: 0,
      });
    else if (line.startsWith('Rss:')) (maps.at(-1) as { rssKb: number }).rssKb = Number(line.split(/\s+/)[1]);
  }
  const reservation = (m: (typeof maps)[number] | undefined) =>
    m?.perms.startsWith('---') && m.end - m.start >= 2 ** 30;
  return maps
    .filter(
      (m, i) =>
        m.perms.startsWith('rw') &&
        m.end - m.start >= 64 * 2 ** 20 &&
        ((reservation(maps[i - 1]) && maps[i - 1]?.end === m.start) ||
          (reservation(maps[i + 1]) && maps[i + 1]?.start === m.end)),
    )
    .reduce((sum, m) => sum + m.rssKb, 0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The RSS once the bot has listened and had a moment to finish its start (follower, first poll). */
async function settledRss(bot: Bot): Promise<Rss> {
  await sleep(2_000);
  return readRss(bot.child.pid as number);
}

const textOf = (m: SandboxMessage | undefined) =>
  m ? `${m.text ?? ''}\n${JSON.stringify(m.blocks ?? [])}` : '';

/** Starts `count` sessions through Slack, `concurrency` at a time, each followed to its ✅ Completed card. */
async function driveSessions(sandbox: RunningSandbox, bot: Bot, label: string, count: number): Promise<void> {
  const driver = sandbox.driver(bot.eventsUrl);
  const ws = sandbox.workspace;
  let next = 0;
  let done = 0;
  const one = async (i: number) => {
    const channel = CHANNELS[i % CHANNELS.length] as string;
    // The trailing word keeps session #1 from matching session #10's card.
    const goal = `memory bench ${label} #${i} end`;
    const response = await driver.command({ user: USER, channel, text: `start scenario:complete ${goal}` });
    if (response.status !== 200) throw new Error(`/agent start answered ${response.status}`);
    const find = () =>
      (ws.messages.get(channel) ?? []).find(
        (m) => !m.thread_ts && textOf(m).includes(goal) && /session `/.test(textOf(m)),
      );
    const card = await ws.waitFor(find, { what: `the card of ${goal}`, timeoutMs: 60_000 });
    await ws.waitFor(() => /Completed/.test(textOf(ws.findMessage(channel, card.ts))), {
      what: `${goal} completed`,
      timeoutMs: 120_000,
    });
    done += 1;
    if (done % 50 === 0) log(`  ${label}: ${done}/${count} sessions completed`);
  };
  const worker = async () => {
    while (next < count) await one(next++);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
}

interface StoreFigures {
  firstStart: Rss & { startMs: number };
  restart: Rss & { startMs: number };
  afterSessions: Rss & { sessions: number };
  runs: Array<{ firstStart: Rss & { startMs: number }; restart: Rss & { startMs: number } }>;
}

interface StoreUnderTest {
  label: string;
  /** Bot environment for a fresh, empty store; `dispose` removes it. */
  fresh(): Promise<{ env: Record<string, string>; dispose(): Promise<void> }>;
}

async function measure(
  store: StoreUnderTest,
  sandbox: RunningSandbox,
  baseEnv: Record<string, string>,
): Promise<StoreFigures> {
  const runs: StoreFigures['runs'] = [];
  const medianOf = (pick: (r: StoreFigures['runs'][number]) => Rss & { startMs: number }) => ({
    rssMb: median(runs.map((r) => pick(r).rssMb)),
    peakMb: median(runs.map((r) => pick(r).peakMb)),
    wasmMb: median(runs.map((r) => pick(r).wasmMb)),
    startMs: median(runs.map((r) => pick(r).startMs)),
  });
  let afterSessions: StoreFigures['afterSessions'] | undefined;
  for (let run = 0; run < RUNS; run++) {
    const { env, dispose } = await store.fresh();
    try {
      const first = await spawnBot({ ...baseEnv, ...env });
      const firstStart = { ...(await settledRss(first)), startMs: first.startMs };
      await first.stop();
      const second = await spawnBot({ ...baseEnv, ...env });
      const restart = { ...(await settledRss(second)), startMs: second.startMs };
      await second.stop();
      runs.push({ firstStart, restart });
      log(
        `  ${store.label} run ${run + 1}: first start ${firstStart.rssMb} MB (peak ${firstStart.peakMb}), restart ${restart.rssMb} MB (peak ${restart.peakMb})`,
      );
      if (run === RUNS - 1) {
        const third = await spawnBot({ ...baseEnv, ...env });
        try {
          await driveSessions(sandbox, third, store.label, SESSIONS);
          afterSessions = { ...(await settledRss(third)), sessions: SESSIONS };
          log(
            `  ${store.label}: after ${SESSIONS} sessions ${afterSessions.rssMb} MB (peak ${afterSessions.peakMb})`,
          );
        } finally {
          await third.stop();
        }
      }
    } finally {
      await dispose();
    }
  }
  return {
    firstStart: medianOf((r) => r.firstStart),
    restart: medianOf((r) => r.restart),
    afterSessions: afterSessions as StoreFigures['afterSessions'],
    runs,
  };
}

function pgliteStore(root: string): StoreUnderTest {
  let n = 0;
  return {
    label: 'PGlite',
    fresh: async () => {
      const dataDir = join(root, `data-${n++}`);
      return {
        env: { DATA_DIR: dataDir },
        dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  };
}

/** A database of our own on the server `adminUrl` names; undefined when no server answers. */
async function postgresStore(adminUrl: string): Promise<StoreUnderTest | undefined> {
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch (error) {
    log(`PostgreSQL: nothing answers at ${redact(adminUrl)} (${(error as Error).message}); skipped.`);
    return undefined;
  }
  await admin.end();
  return {
    label: 'PostgreSQL',
    fresh: async () => {
      const name = `bench_memory_${randomBytes(6).toString('hex')}`;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return {
        env: { DATABASE_URL: url.toString() },
        dispose: async () => {
          const c = new pg.Client({ connectionString: adminUrl });
          await c.connect();
          await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await c.end();
        },
      };
    },
  };
}

const redact = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');

async function main(): Promise<void> {
  // The bench measures memory, not pacing: Slack's rate limits in the sandbox would only
  // stretch the run.
  process.env.SANDBOX_RATE_LIMITS = 'off';
  const emulator = await spawnEmulator({ apiKeys: [KEY], speed: SPEED });
  const seed = defaultSeed();
  seed.channels.push(
    ...CHANNELS.map((id) => ({
      id,
      name: id.toLowerCase(),
      is_private: false,
      is_im: false,
      is_member: true,
    })),
  );
  // Everyone is in every channel: a person starts sessions only where they are a member.
  seed.channelMembers = {
    ...seed.channelMembers,
    ...Object.fromEntries(CHANNELS.map((id) => [id, seed.users.map((u) => u.id)])),
  };
  const sandbox = await startSandbox({ seed, triggerTtlMs: 30_000 });
  const root = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  const baseEnv = botEnv(sandbox, emulator.url, KEY);
  const adminUrl =
    values['database-url'] ??
    process.env.BENCH_DATABASE_URL ??
    process.env.TEST_DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  const results: Record<string, StoreFigures> = {};
  try {
    log(`Memory benchmark: ${RUNS} runs, ${SESSIONS} sessions (emulator at ${SPEED}x)`);
    results.pglite = await measure(pgliteStore(root), sandbox, baseEnv);
    const postgres = await postgresStore(adminUrl);
    if (postgres) results.postgres = await measure(postgres, sandbox, baseEnv);
  } finally {
    await sandbox.close();
    await emulator.close();
    rmSync(root, { recursive: true, force: true });
  }

  const p = results.pglite as StoreFigures;
  const q = results.postgres;
  const verdict = (pgliteMb: number, postgresMb: number | undefined) => {
    const underCap = pgliteMb <= TARGET.maxMb;
    const ratio = postgresMb ? round(pgliteMb / postgresMb, 2) : null;
    return {
      pgliteMb,
      postgresMb: postgresMb ?? null,
      ratio,
      met: underCap && (ratio === null || ratio <= TARGET.maxRatioToPostgres),
    };
  };
  const targets = {
    firstStart: verdict(p.firstStart.rssMb, q?.firstStart.rssMb),
    afterSessions: verdict(p.afterSessions.rssMb, q?.afterSessions.rssMb),
  };
  const result = {
    measuredAt: new Date().toISOString(),
    node: process.version,
    runs: RUNS,
    sessions: SESSIONS,
    target: `PGlite <= ${TARGET.maxMb} MB RSS on first start and after ${SESSIONS} sessions, and <= ${TARGET.maxRatioToPostgres}x PostgreSQL`,
    targets,
    ...results,
  };
  writeResult(values.out as string, result);

  const row = (name: string, a: string | number, b: string | number, c: string | number = '') =>
    log(`${name.padEnd(28)} ${String(a).padStart(16)} ${String(b).padStart(16)} ${String(c).padStart(14)}`);
  const cell = (r: Rss | undefined) => (r ? `${r.rssMb} (${r.peakMb})` : 'skipped');
  const wasm = (r: Rss | undefined) => (r ? `${r.wasmMb}` : '-');
  log('');
  log('RSS in MB (peak in brackets), medians of the runs');
  row('', 'PGlite', 'PostgreSQL', 'PGlite/PG');
  const ratio = (a: number, b: number | undefined) => (b ? (a / b).toFixed(2) : '-');
  row('first start', cell(p.firstStart), cell(q?.firstStart), ratio(p.firstStart.rssMb, q?.firstStart.rssMb));
  row('restart', cell(p.restart), cell(q?.restart), ratio(p.restart.rssMb, q?.restart.rssMb));
  row(
    `after ${SESSIONS} sessions`,
    cell(p.afterSessions),
    cell(q?.afterSessions),
    ratio(p.afterSessions.rssMb, q?.afterSessions.rssMb),
  );
  row('  of which WebAssembly: first', wasm(p.firstStart), wasm(q?.firstStart));
  row('  restart', wasm(p.restart), wasm(q?.restart));
  row(`  after ${SESSIONS} sessions`, wasm(p.afterSessions), wasm(q?.afterSessions));
  row('start time (ms): first', p.firstStart.startMs, q?.firstStart.startMs ?? '-');
  row('start time (ms): restart', p.restart.startMs, q?.restart.startMs ?? '-');
  log('');
  log(`Target: ${result.target}`);
  log(
    `  first start: ${targets.firstStart.met ? 'met' : 'NOT met'}; after ${SESSIONS} sessions: ${targets.afterSessions.met ? 'met' : 'NOT met'}`,
  );
  log(`wrote ${values.out}`);
}

await main();
