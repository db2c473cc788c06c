import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Projects whose files run longest go first, in this order: the end-to-end files, then the store's (a
 * PGlite per file, initdb in child processes). vitest otherwise orders the projects by name, which left
 * the store's 50 s file to start near the end and finish the run alone.
 */
const LONGEST_PROJECTS = ['e2e', 'slack-bot-store'];

/**
 * How long the long files took in a run on the reference machine (ms): what orders them on a checkout
 * whose vitest has no results of its own yet (a fresh clone, CI). Refreshed by
 * `node scripts/test-durations.mjs` after a run; a file it doesn't list runs before those it does, as
 * vitest runs a file it has never timed.
 */
const RECORDED: Record<string, number> = JSON.parse(
  readFileSync(new URL('./durations.json', import.meta.url), 'utf8'),
);

/**
 * Inside a project, the longest file first: by this checkout's last run, else by the recorded run, so the
 * slowest files don't start last and keep the run waiting for them alone (vitest by itself orders files it
 * has never timed by size, which on a fresh clone ends the end-to-end group about 25 s later).
 */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_PROJECTS.indexOf(spec.project.name);
      return index === -1 ? LONGEST_PROJECTS.length : index;
    };
    // Each file's duration, read once: a file that failed last time goes first too, as in vitest's order.
    const durations = new Map(
      sorted.map((spec) => {
        const key = `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
        const last = this.ctx.cache.getFileTestResults(key);
        const ms = last?.failed ? undefined : (last?.duration ?? RECORDED[key]);
        return [spec, ms ?? Number.POSITIVE_INFINITY];
      }),
    );
    const longer = (a: TestSpecification, b: TestSpecification) => {
      const [da, db] = [durations.get(a) ?? 0, durations.get(b) ?? 0];
      return da === db ? 0 : da > db ? -1 : 1;
    };
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    // Array.prototype.sort is stable: vitest's order holds among equals.
    return sorted.sort(
      (a, b) =>
        group(a) - group(b) ||
        rank(a) - rank(b) ||
        a.project.name.localeCompare(b.project.name) ||
        longer(a, b),
    );
  }
}
