/**
 * Loaded into the bot by bench:mcp (`NODE_OPTIONS=--import …/probe.js`): the bot's own memory and
 * event-loop delay, which only the process itself can see. Each second it appends one JSON line to
 * BENCH_PROBE_FILE: RSS and heap, and the event loop's delay since the last line (mean, p99, max, from
 * `monitorEventLoopDelay`). On SIGUSR2 it collects garbage first (the bot runs with --expose-gc) and
 * marks the line, so a heap figure is what is still held, not what is yet to be collected.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_PROBE_FILE;
// Only the bot: a process it starts (PGlite's initdb, when there is no template) inherits NODE_OPTIONS.
if (file && process.env.BENCH_PROBE_PID === undefined) {
  process.env.BENCH_PROBE_PID = String(process.pid);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const sample = (afterGc: boolean) => {
    const m = process.memoryUsage();
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    const line = {
      at: Date.now(),
      pid: process.pid,
      afterGc,
      rssMb: m.rss / 2 ** 20,
      heapUsedMb: m.heapUsed / 2 ** 20,
      externalMb: m.external / 2 ** 20,
      delayMeanMs: ms(delay.mean),
      delayP99Ms: ms(delay.percentile(99)),
      delayMaxMs: ms(delay.max),
    };
    delay.reset();
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  setInterval(() => sample(false), 1_000).unref();
  process.on('SIGUSR2', () => {
    (globalThis as { gc?: () => void }).gc?.();
    sample(true);
  });
}

// BENCH_PROBE_PROFILE=<file>: a CPU profile of the whole run, written as the bot exits (--cpu-prof is not
// allowed in NODE_OPTIONS), to see where a call's time goes.
const profile = process.env.BENCH_PROBE_PROFILE;
if (profile && process.env.BENCH_PROBE_PID === String(process.pid)) {
  const { Session } = await import('node:inspector');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  const startedAt = Date.now();
  let written = false;
  // On the first SIGTERM, before the bot's drain (which may outlast the bench's patience and end in
  // SIGKILL), and on exit otherwise. `startedAt` (wall clock, ms) places a phase's marks in the profile.
  const write = () => {
    if (written) return;
    written = true;
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(profile, JSON.stringify({ ...result.profile, startedAt }));
    });
  };
  process.prependListener('SIGTERM', write);
  process.on('exit', write);
}
