/**
 * Take-over benchmark: how long a replica's sessions go unfollowed when it goes away, by SIGTERM (a
 * rolling update: it drains and releases its leases) against SIGKILL (a crash, an OOM kill: its leases
 * must expire first). Two real bot processes share one PostgreSQL; each trial starts sessions of the
 * emulator's `long` scenario (a message every few seconds, until cancelled), waits until both replicas
 * follow some, signals replica A, and measures from the signal:
 *   - taken over: every session A followed is leased by B (read from the database);
 *   - first post: every such session has a new post in its thread, made by B;
 *   - exit: A's process gone (for SIGTERM, how long its drain took).
 * Prints each trial and the medians; writes bench/results/takeover.json.
 *
 *   npm run bench:takeover -- [--trials 5] [--sessions 4] [--lease-ttl 30]
 *     [--database-url postgres://postgres@127.0.0.1:5432/test]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type SpawnedEmulator, spawnEmulator } from '@agent-sessions/emulator/testing';
import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import pg from 'pg';
import { type Bot, botEnv, spawnBot } from '../bot.js';
import { wholeAbove0, writeResult } from '../cli.js';
import { scratchDatabase } from '../scale/scratch-database.js';
import { median, round } from '../stats.js';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '5' },
    sessions: { type: 'string', default: '4' },
    'lease-ttl': { type: 'string', default: '30' },
    'database-url': { type: 'string', default: process.env.TEST_DATABASE_URL ?? '' },
    out: { type: 'string', default: 'bench/results/takeover.json' },
  },
});
const TRIALS = wholeAbove0('trials', values.trials);
const SESSIONS = wholeAbove0('sessions', values.sessions);
const LEASE_TTL_S = wholeAbove0('lease-ttl', values['lease-ttl']);
const DATABASE_URL = values['database-url'] as string;
if (!DATABASE_URL)
  throw new Error('--database-url (or TEST_DATABASE_URL) is needed: the replicas share PostgreSQL');
const KEY = 'bench_takeover_key';
const CHANNEL = 'C0AGENTS';
const POLL_MS = 25;
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Signal = 'SIGTERM' | 'SIGKILL';
interface Trial {
  signal: Signal;
  sessionsMoved: number;
  takenOverMs: number;
  firstPostMs: number;
  exitMs: number;
  /** SIGTERM: from the signal to the polls in flight done, then to the posts in flight out (A's log). */
  pollsDoneMs?: number;
  postsDoneMs?: number;
}

/** Polls `check` until it answers, or fails after `timeoutMs` naming `what`. */
async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (performance.now() > end) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(POLL_MS);
  }
}

async function trial(signal: Signal, emulator: SpawnedEmulator, sandbox: RunningSandbox, n: number) {
  const database = scratchDatabase(DATABASE_URL, 'bench_takeover');
  await database.create();
  const db = new pg.Client({ connectionString: database.url });
  const bots: Bot[] = [];
  try {
    const env = (id: string) => ({
      ...botEnv(sandbox, emulator.url, KEY),
      DATABASE_URL: database.url,
      REPLICA_ID: id,
      LEASE_TTL_SECONDS: String(LEASE_TTL_S),
      // Classic threads: each agent message a new reply (the agent surface streams into one message).
      AGENT_SLACK_SURFACE: 'classic',
    });
    const a = await spawnBot(env('replica-a'));
    bots.push(a);
    const b = await spawnBot(env('replica-b'));
    bots.push(b);
    await db.connect();
    const drivers = [sandbox.driver(a.eventsUrl), sandbox.driver(b.eventsUrl)];
    for (let i = 0; i < SESSIONS; i++)
      await drivers[i % 2]?.command({
        user: 'U0ALICE',
        channel: CHANNEL,
        text: `start scenario:long trial ${n} #${i}`,
      });
    const leases = async () =>
      (
        await db.query<{ session_id: string; owner: string; card_ts: string }>(
          'SELECT l.session_id, l.owner, s.card_ts FROM leases l JOIN sessions s USING (session_id)',
        )
      ).rows;
    // Both replicas follow some sessions, and every one of A's threads has had a post.
    const ofA = await until('both replicas following', 60_000, async () => {
      const rows = await leases();
      const mine = rows.filter((r) => r.owner === 'replica-a');
      const threadsGoing = mine.every((r) => sandbox.workspace.replies(CHANNEL, r.card_ts).length > 0);
      return rows.length === SESSIONS && mine.length > 0 && mine.length < SESSIONS && threadsGoing
        ? mine
        : undefined;
    });
    const postsBefore = new Map(
      ofA.map((r) => [r.card_ts, sandbox.workspace.replies(CHANNEL, r.card_ts).length]),
    );
    const t0 = performance.now();
    const exited = new Promise<number>((resolve) =>
      a.child.once('exit', () => resolve(performance.now() - t0)),
    );
    a.child.kill(signal);
    const budgetMs = (LEASE_TTL_S + 60) * 1000;
    const firstPost = until('a post after the signal in every thread', budgetMs, async () =>
      ofA.every(
        (r) => sandbox.workspace.replies(CHANNEL, r.card_ts).length > (postsBefore.get(r.card_ts) ?? 0),
      )
        ? performance.now() - t0
        : undefined,
    );
    const takenOverMs = await until('B leasing every session of A', budgetMs, async () => {
      const owners = new Map((await leases()).map((r) => [r.session_id, r.owner]));
      return ofA.every((r) => owners.get(r.session_id) === 'replica-b') ? performance.now() - t0 : undefined;
    });
    // A post made after the signal by A itself (SIGTERM drains) counts only once B posts too.
    const firstPostMs = Math.max(await firstPost, takenOverMs);
    const exitMs = Math.round(await exited);
    const drain = /"pollsDoneMs":(\d+),"postsDoneMs":(\d+)/.exec(a.tail());
    const result: Trial = {
      signal,
      sessionsMoved: ofA.length,
      takenOverMs: Math.round(takenOverMs),
      firstPostMs: Math.round(firstPostMs),
      exitMs,
      ...(drain ? { pollsDoneMs: Number(drain[1]), postsDoneMs: Number(drain[2]) } : {}),
    };
    return result;
  } finally {
    await db.end().catch(() => {});
    for (const bot of bots) await bot.stop();
    await database.drop();
  }
}

async function main() {
  const emulator = await spawnEmulator({ apiKeys: [KEY], speed: 5 });
  const sandbox = await startSandbox({ rateLimits: false, triggerTtlMs: 60_000 });
  const trials: Trial[] = [];
  log(
    `take-over after SIGTERM and after SIGKILL: ${TRIALS} trials each, ${SESSIONS} sessions, lease ${LEASE_TTL_S} s`,
  );
  log(`load average before: ${loadavg()[0]?.toFixed(1)}`);
  try {
    for (let n = 0; n < TRIALS; n++) {
      // Side by side: one of each per round, so a machine getting busier weighs on both alike.
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        const t = await trial(signal, emulator, sandbox, n);
        trials.push(t);
        log(
          `${signal}  moved ${t.sessionsMoved}  taken over ${round(t.takenOverMs / 1000, 2)} s  first post ${round(t.firstPostMs / 1000, 2)} s  exit ${round(t.exitMs / 1000, 2)} s${t.postsDoneMs === undefined ? '' : `  (polls done ${round((t.pollsDoneMs ?? 0) / 1000, 2)} s, posts out ${round(t.postsDoneMs / 1000, 2)} s)`}`,
        );
      }
    }
  } finally {
    await sandbox.close();
    await emulator.close();
  }
  const summary = (signal: Signal) => {
    const of = trials.filter((t) => t.signal === signal);
    return {
      takenOverMs: median(of.map((t) => t.takenOverMs)),
      firstPostMs: median(of.map((t) => t.firstPostMs)),
      exitMs: median(of.map((t) => t.exitMs)),
    };
  };
  const sigterm = summary('SIGTERM');
  const sigkill = summary('SIGKILL');
  log('medians:');
  for (const [name, m] of [
    ['SIGTERM', sigterm],
    ['SIGKILL', sigkill],
  ] as const)
    log(
      `  ${name}: taken over ${round(m.takenOverMs / 1000, 2)} s, first post ${round(m.firstPostMs / 1000, 2)} s, exit ${round(m.exitMs / 1000, 2)} s`,
    );
  log(
    `  SIGKILL / SIGTERM, taken over: ${round(sigkill.takenOverMs / Math.max(1, sigterm.takenOverMs), 1)}×`,
  );
  writeResult(values.out as string, {
    date: new Date().toISOString(),
    trials: TRIALS,
    sessions: SESSIONS,
    leaseTtlSeconds: LEASE_TTL_S,
    loadAverage: round(loadavg()[0] ?? 0, 1),
    medians: { sigterm, sigkill },
    runs: trials,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
