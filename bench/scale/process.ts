/** A child process's CPU time and resident memory, read from /proc (Linux) while a benchmark runs. */
import { readFileSync } from 'node:fs';

export interface ProcessUse {
  cpuSeconds: number;
  /** CPU time over the run's wall time, in % of one core. */
  cpuPercent: number;
  peakRssMb: number;
  lastRssMb: number;
}

const TICKS_PER_SECOND = 100;

function cpuTicks(pid: number): number {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th of them.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function rssKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
}

/** Samples every second; `stop()` (before the process exits) gives its use since `sampleProcess`. */
export function sampleProcess(pid: number): { stop: () => ProcessUse } {
  const started = performance.now();
  const ticks0 = cpuTicks(pid);
  let peak = 0;
  let last = 0;
  const sample = () => {
    try {
      last = rssKb(pid, 'VmRSS');
      peak = Math.max(peak, last, rssKb(pid, 'VmHWM'));
    } catch {
      // Gone already.
    }
  };
  sample();
  const timer = setInterval(sample, 1_000);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      let cpuSeconds = 0;
      try {
        cpuSeconds = (cpuTicks(pid) - ticks0) / TICKS_PER_SECOND;
      } catch {
        // Gone already.
      }
      const wall = (performance.now() - started) / 1000;
      return {
        cpuSeconds: Math.round(cpuSeconds * 10) / 10,
        cpuPercent: Math.round((1000 * cpuSeconds) / wall) / 10,
        peakRssMb: Math.round(peak / 102.4) / 10,
        lastRssMb: Math.round(last / 102.4) / 10,
      };
    },
  };
}
