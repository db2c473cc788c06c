/**
 * Follow benchmark: our Follower against the fixed-interval baseline, side by side, in one run, on one
 * emulator, under the same request budget. Prints a table and writes bench/results/follow.json.
 *
 *   npm run bench:follow -- [--n 1000] [--rps 50] [--warmup S] [--duration 120]
 *
 * The warm-up (default: the baseline's interval + 10 s) lets both sides get through their first read of
 * every session before anything is measured; measured figures are steady state.
 *
 * One run read top to bottom (sessions, the two workers, the analysis, the heap figure, the report),
 * sharing its arguments; what runs in the workers is in ./worker.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  AgentSessionsClient,
  Follower,
  InMemoryCursorStore,
  initialFollowState,
  type SessionsReader,
} from '@agent-sessions/core';
import { spawnEmulator } from '@agent-sessions/emulator/testing';
import { writeResult } from '../cli.js';
import { percentile, round } from '../stats.js';
import type { Group, WorkerInput, WorkerOutput } from './protocol.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000' },
    rps: { type: 'string', default: '50' },
    warmup: { type: 'string' },
    duration: { type: 'string', default: '120' },
    'memory-n': { type: 'string', default: '5000' },
    out: { type: 'string', default: 'bench/results/follow.json' },
  },
});
const N = Number(values.n);
const RPS = Number(values.rps);
const WARMUP_S = values.warmup === undefined ? Math.ceil((N * 2) / RPS) + 10 : Number(values.warmup);
const DURATION_S = Number(values.duration);
const MEMORY_N = Number(values['memory-n']);
for (const [name, v] of Object.entries({
  n: N,
  rps: RPS,
  warmup: WARMUP_S,
  duration: DURATION_S,
  'memory-n': MEMORY_N,
})) {
  if (!(Number.isFinite(v) && v > 0)) throw new Error(`--${name} must be a positive number`);
}

const KEY = 'bench_key';
const WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);

async function createSessions(
  client: AgentSessionsClient,
): Promise<Array<{ sessionId: string; group: Group }>> {
  const plan: Array<{ group: Group; goal: string; context: Record<string, unknown>; pause: boolean }> = [];
  const running = Math.round(N * 0.3);
  const waiting = Math.round(N * 0.5);
  for (let i = 0; i < N; i++) {
    if (i < running) {
      // A third of the running sessions ask a person something at a spread-out time during the run.
      const raises = i % 3 === 0;
      plan.push({
        group: 'running',
        goal: raises ? 'scenario:approval bench' : 'scenario:long bench',
        context: raises ? { workSteps: 7 + (i % 24) } : {},
        pause: false,
      });
    } else if (i < running + waiting) {
      plan.push({ group: 'waiting', goal: 'scenario:approval bench', context: {}, pause: false });
    } else {
      plan.push({ group: 'quiet', goal: 'scenario:long bench', context: {}, pause: true });
    }
  }
  const out: Array<{ sessionId: string; group: Group }> = [];
  for (let i = 0; i < plan.length; i += 25) {
    const batch = plan.slice(i, i + 25);
    const created = await Promise.all(
      batch.map((p) =>
        client.sessions.create({
          goal: p.goal,
          context: p.context,
          guardrails: { maxIterations: 1_000_000 },
        }),
      ),
    );
    await Promise.all(
      created.map((c, j) => (batch[j]?.pause ? client.sessions.pause(c.sessionId) : undefined)),
    );
    created.forEach((c, j) => {
      out.push({ sessionId: c.sessionId, group: batch[j]?.group ?? 'quiet' });
    });
  }
  return out;
}

function runWorker(input: WorkerInput, dir: string): Promise<WorkerOutput> {
  const inPath = join(dir, `${input.mode}-in.json`);
  const outPath = join(dir, `${input.mode}-out.json`);
  writeFileSync(inPath, JSON.stringify(input));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', WORKER, inPath, outPath], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${input.mode} worker exited with ${code}`));
      else resolve(JSON.parse(readFileSync(outPath, 'utf8')) as WorkerOutput);
    });
  });
}

interface Emitted {
  kind: 'm' | 'h';
  id: string;
  at: number;
}

function analyse(output: WorkerOutput, emitted: Emitted[], sessionsByGroup: Record<Group, number>) {
  const firstReceived = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const [kind, sessionId, key, at] of output.received) {
    const id = `${kind}|${sessionId}|${key}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
    if (!firstReceived.has(id)) firstReceived.set(id, at);
  }
  const latency: Record<'m' | 'h', number[]> = { m: [], h: [] };
  let lost = 0;
  for (const e of emitted) {
    const at = firstReceived.get(e.id);
    if (at === undefined) lost++;
    else latency[e.kind].push(at - e.at);
  }
  const duplicated = [...counts.values()].reduce((n, c) => n + (c > 1 ? c - 1 : 0), 0);
  const minutes = DURATION_S / 60;
  const perSessionMinute = (g: Group) => round(output.requestsByGroup[g] / (sessionsByGroup[g] * minutes), 3);
  const all = [...latency.m, ...latency.h];
  // No sample, no figure: null rather than a 0 that reads like an instant.
  const pct = (values: number[], p: number) =>
    values.length === 0 ? null : Math.round(percentile(values, p));
  return {
    p50Ms: pct(latency.h, 50),
    p95Ms: pct(latency.h, 95),
    maxMs: pct(latency.h, 100),
    humanInput: {
      count: latency.h.length,
      p50Ms: pct(latency.h, 50),
      p95Ms: pct(latency.h, 95),
      maxMs: pct(latency.h, 100),
    },
    message: {
      count: latency.m.length,
      p50Ms: pct(latency.m, 50),
      p95Ms: pct(latency.m, 95),
      maxMs: pct(latency.m, 100),
    },
    allEventsP95Ms: pct(all, 95),
    lost,
    duplicated,
    requests: output.requestsTotal,
    requestsInWindow:
      output.requestsByGroup.running + output.requestsByGroup.waiting + output.requestsByGroup.quiet,
    requestsPerSessionMinute: {
      running: perSessionMinute('running'),
      waiting: perSessionMinute('waiting'),
      quiet: perSessionMinute('quiet'),
    },
    cpuSeconds: round(output.cpuSeconds, 2),
    cpuMsPerSession: round((output.cpuSeconds * 1000) / N, 3),
    rssBytesPerSession: Math.round(Math.max(0, output.peakRssBytes - output.rssBeforeBytes) / N),
  };
}

/** Heap held per followed session, with states as they are in steady state (a cursor, a status, ids). */
async function heapPerSession(n: number): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return Number.NaN;
  const never: SessionsReader = {
    sessions: { get: () => new Promise(() => {}), messages: () => new Promise(() => {}) },
  };
  const store = new InMemoryCursorStore();
  for (let i = 0; i < n; i++) {
    const id = `sess_${i.toString(36).padStart(12, '0')}`;
    await store.save(id, {
      ...initialFollowState(id),
      cursor: {
        afterRoundId: `round_${i}a_xxxxxxxx`,
        rounds: [
          { roundId: `round_${i}a_xxxxxxxx`, seen: 9, before: 9 },
          { roundId: `round_${i}b_xxxxxxxx`, seen: 12 },
        ],
        interleaved: false,
      },
      status: 'running',
      updatedAt: new Date().toISOString(),
      roundCount: 2,
      announcedInputs: [`in_${i}_xxxxxxxx`],
    });
  }
  gc();
  const before = process.memoryUsage().heapUsed;
  const follower = new Follower({ client: never, store });
  for (const id of store.keys()) await follower.follow(id);
  gc();
  const after = process.memoryUsage().heapUsed;
  follower.unfollow('x');
  return Math.round((after - before) / n);
}

async function main(): Promise<void> {
  log(`follow benchmark: N=${N}, budget ${RPS} req/s per key, warm-up ${WARMUP_S}s, measured ${DURATION_S}s`);
  const emulator = await spawnEmulator({ apiKeys: [KEY], speed: 1 });
  const client = new AgentSessionsClient({ baseUrl: emulator.url, apiKey: KEY });
  try {
    const sessions = await createSessions(client);
    const sessionsByGroup: Record<Group, number> = { running: 0, waiting: 0, quiet: 0 };
    for (const s of sessions) sessionsByGroup[s.group]++;
    const startAt = Date.now();
    const measureFrom = startAt + WARMUP_S * 1000;
    const stopAt = measureFrom + DURATION_S * 1000;
    const baselineIntervalMs = (N * 2 * 1000) / RPS;
    log(
      `sessions: ${JSON.stringify(sessionsByGroup)}; baseline interval ${round(baselineIntervalMs / 1000)} s; running both…`,
    );

    const dir = mkdtempSync(join(tmpdir(), 'bench-follow-'));
    const common = { baseUrl: emulator.url, apiKey: KEY, budgetRps: RPS, sessions, measureFrom, stopAt };
    const [ours, baseline] = await Promise.all([
      runWorker({ ...common, mode: 'ours' }, dir),
      runWorker({ ...common, mode: 'baseline' }, dir),
    ]);

    // Events the service emitted while measuring, early enough that a poller at the baseline's interval
    // has had a full interval to see them: the rest can't be called lost yet.
    const cutoff = stopAt - baselineIntervalMs - 5_000;
    const ids = new Set(sessions.map((s) => s.sessionId));
    const emitted: Emitted[] = [];
    for (const e of await emulator.admin.events()) {
      if (!ids.has(e.sessionId) || e.at < measureFrom || e.at > cutoff) continue;
      if (e.type === 'message')
        emitted.push({ kind: 'm', id: `m|${e.sessionId}|${e.roundId}#${e.position}`, at: e.at });
      if (e.type === 'human_input_needed')
        emitted.push({ kind: 'h', id: `h|${e.sessionId}|${e.inputId}`, at: e.at });
    }

    const oursStats = analyse(ours, emitted, sessionsByGroup);
    const baseStats = analyse(baseline, emitted, sessionsByGroup);
    const heapBytesPerSession = await heapPerSession(MEMORY_N);
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      n: N,
      budgetRps: RPS,
      warmupSeconds: WARMUP_S,
      durationSeconds: DURATION_S,
      baselineIntervalMs,
      emittedInWindow: {
        messages: emitted.filter((e) => e.kind === 'm').length,
        humanInput: emitted.filter((e) => e.kind === 'h').length,
      },
      ours: { ...oursStats, heapBytesPerSessionAtMemoryN: heapBytesPerSession, memoryN: MEMORY_N },
      baseline: baseStats,
      ratioP95:
        baseStats.p95Ms === null || oursStats.p95Ms === null
          ? null
          : round(baseStats.p95Ms / Math.max(1, oursStats.p95Ms), 2),
      // null when ours sent no request at all to quiet sessions while measuring (no finite ratio).
      ratioQuietRequests:
        oursStats.requestsPerSessionMinute.quiet === 0
          ? null
          : round(baseStats.requestsPerSessionMinute.quiet / oursStats.requestsPerSessionMinute.quiet, 1),
    };
    writeResult(values.out as string, result);

    const row = (name: string, a: string | number, b: string | number) =>
      log(`${name.padEnd(40)} ${String(a).padStart(12)} ${String(b).padStart(12)}`);
    log('');
    row('', 'ours', 'baseline');
    row('human input surfaced (count)', oursStats.humanInput.count, baseStats.humanInput.count);
    row(
      'human input p50 / p95 / max (ms)',
      `${oursStats.p50Ms}/${oursStats.p95Ms}/${oursStats.maxMs}`,
      `${baseStats.p50Ms}/${baseStats.p95Ms}/${baseStats.maxMs}`,
    );
    const pair = (a: number | null, b: number | null) => (a === null ? 'none seen' : `${a}/${b}`);
    row('messages received in window', oursStats.message.count, baseStats.message.count);
    row(
      'messages p50 / p95 (ms)',
      pair(oursStats.message.p50Ms, oursStats.message.p95Ms),
      pair(baseStats.message.p50Ms, baseStats.message.p95Ms),
    );
    row('lost events', oursStats.lost, baseStats.lost);
    row('duplicated events', oursStats.duplicated, baseStats.duplicated);
    row(
      'req/session-min: running',
      oursStats.requestsPerSessionMinute.running,
      baseStats.requestsPerSessionMinute.running,
    );
    row(
      'req/session-min: waiting on a person',
      oursStats.requestsPerSessionMinute.waiting,
      baseStats.requestsPerSessionMinute.waiting,
    );
    row(
      'req/session-min: paused/quiet',
      oursStats.requestsPerSessionMinute.quiet,
      baseStats.requestsPerSessionMinute.quiet,
    );
    row('CPU seconds (whole run)', oursStats.cpuSeconds, baseStats.cpuSeconds);
    row('peak RSS growth per session (bytes)', oursStats.rssBytesPerSession, baseStats.rssBytesPerSession);
    row(`heap per followed session at N=${MEMORY_N} (bytes)`, heapBytesPerSession, '-');
    log('');
    log(`ratioP95 (baseline p95 / ours p95, human input): ${result.ratioP95}`);
    log(
      result.ratioQuietRequests === null
        ? 'quiet sessions: ours sent them no request while measuring'
        : `quiet sessions: baseline spends ${result.ratioQuietRequests}x our requests per session-minute`,
    );
    log(`wrote ${values.out}`);
  } finally {
    await client.close();
    await emulator.close();
  }
}

await main();
