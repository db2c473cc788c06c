import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** One line of the bot's probe (probe.ts). */
export interface ProbeLine {
  at: number;
  pid: number;
  afterGc: boolean;
  rssMb: number;
  heapUsedMb: number;
  externalMb: number;
  delayMeanMs: number;
  delayP99Ms: number;
  delayMaxMs: number;
}

/** Reads what the probe inside the bot wrote, and asks it for a sample after garbage collection. */
export class ProbeReader {
  constructor(
    private readonly file: string,
    private readonly pid: () => number | undefined,
  ) {}

  lines(): ProbeLine[] {
    if (!existsSync(this.file)) return [];
    return readFileSync(this.file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ProbeLine)
      .filter((l) => l.pid === this.pid());
  }

  /** Lines written between two instants (ms since the epoch). */
  between(from: number, to: number): ProbeLine[] {
    return this.lines().filter((l) => l.at >= from && l.at <= to && !l.afterGc);
  }

  /** The bot's memory right after a full collection (SIGUSR2 to the probe). */
  async afterGc(): Promise<ProbeLine> {
    const pid = this.pid();
    if (pid === undefined) throw new Error('the bot is not running');
    const before = this.lines().filter((l) => l.afterGc).length;
    process.kill(pid, 'SIGUSR2');
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      const marked = this.lines().filter((l) => l.afterGc);
      if (marked.length > before) return marked.at(-1) as ProbeLine;
      await sleep(100);
    }
    throw new Error('the probe in the bot wrote no sample after garbage collection within 15 s');
  }
}
