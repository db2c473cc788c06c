import { availableParallelism } from 'node:os';

/**
 * How fast this machine runs the suite, and how much of it may run at once: read by `vitest.config.ts` once
 * per run, before any test starts. CONTRIBUTING ("How the suite uses the machine") has the measurements
 * behind the numbers.
 */

/** The calibration's median on the reference machine: 2 cores, quiet, nothing else running. */
const REFERENCE_CALIBRATION_MS = 35;

/**
 * A fixed piece of the work the suite does most (building, serialising and parsing objects, as module
 * loading, HTTP handlers and the store do), timed as wall time: a slower processor and other processes
 * competing for it both show as a longer time.
 */
function calibrationRun(): number {
  const started = performance.now();
  let checksum = 0;
  for (let round = 0; round < 160; round++) {
    const rows = Array.from({ length: 400 }, (_, i) => ({
      id: `row-${round}-${i}`,
      n: i * round,
      tags: ['a', 'b'],
    }));
    const parsed = JSON.parse(JSON.stringify(rows)) as typeof rows;
    checksum += parsed.filter((row) => /-\d*7$/.test(row.id)).length;
  }
  if (checksum < 0) throw new Error('unreachable: keeps the loop from being optimised away');
  return performance.now() - started;
}

/** The calibration's median wall time here, in ms: nine runs after three that warm the JIT up. */
export function calibrationMs(): number {
  for (let i = 0; i < 3; i++) calibrationRun();
  const runs = Array.from({ length: 9 }, calibrationRun).sort((a, b) => a - b);
  return runs[4] as number;
}

/** This machine's slowness against the reference, at least 1. */
export function measureSlowness(): number {
  return Math.max(1, calibrationMs() / REFERENCE_CALIBRATION_MS);
}

export interface SuitePlan {
  cores: number;
  /** End-to-end files at once (vitest's `maxWorkers`). */
  workers: number;
  /** Unit files at once: the unit projects' own `maxWorkers` (see `unitGroup`). */
  unitWorkers: number;
  /** The multiple of every wait budget: see test/support/patience.ts. */
  patience: number;
  /** How the patience was found: measured, or given by `TEST_PATIENCE`. */
  patienceSource: 'measured' | 'TEST_PATIENCE';
}

/**
 * Files at once: WORKERS_PER_CORE per core. An end-to-end file spends most of its time waiting (on the
 * emulator's clock, on Slack's pacing) and keeps about a fifth of a core busy, so about five of them fill a
 * core; more only queue their processes for the processors and stretch every wait (CONTRIBUTING: "How the
 * suite uses the machine", measured).
 */
const WORKERS_PER_CORE = 5;

/**
 * Unit files at once: UNIT_WORKERS_PER_CORE per core. A unit file keeps its core busy, and each worker
 * loads its project's modules once (the projects run with `isolate: false`), so more workers than this
 * only load the same modules again: vitest keeps a worker for the next file of its project only.
 */
const UNIT_WORKERS_PER_CORE = 2;

/**
 * The run's plan, measured once: the root config stores it in `TEST_PLAN`, so a config evaluated again in the
 * same run (and every worker) reads the same figures.
 */
export function planSuite(env: NodeJS.ProcessEnv = process.env): SuitePlan {
  if (env.TEST_PLAN) return JSON.parse(env.TEST_PLAN) as SuitePlan;
  const cores = availableParallelism();
  const given = Number(env.TEST_PATIENCE);
  const isGiven = Number.isFinite(given) && given >= 1;
  const plan: SuitePlan = {
    cores,
    workers: Math.max(2, cores * WORKERS_PER_CORE),
    unitWorkers: Math.max(2, cores * UNIT_WORKERS_PER_CORE),
    patience: isGiven ? given : Math.round(measureSlowness() * 100) / 100,
    patienceSource: isGiven ? 'TEST_PATIENCE' : 'measured',
  };
  env.TEST_PLAN = JSON.stringify(plan);
  env.TEST_PATIENCE = String(plan.patience);
  return plan;
}

/**
 * What every unit project sets (the packages' own, the store's, repo and deploy): a group of their own,
 * run once the end-to-end files are done, `unitWorkers` files at once. The machine is busy either way
 * (the suite is bound by CPU from start to end), so what counts is the CPU it needs: ten workers per
 * project loaded each project's modules ten times.
 */
export function unitGroup(): { maxWorkers: number; sequence: { groupOrder: number } } {
  return { maxWorkers: planSuite().unitWorkers, sequence: { groupOrder: 1 } };
}
