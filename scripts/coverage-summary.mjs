// Prints branch, line and function coverage per package from vitest's json-summary (coverage/coverage-summary.json),
// the figures the README's development section quotes.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const summary = JSON.parse(
  readFileSync(new URL('../coverage/coverage-summary.json', import.meta.url), 'utf8'),
);
const packages = new Map();
for (const [file, figures] of Object.entries(summary)) {
  if (file === 'total') continue;
  const name = /^packages\/([^/]+)\//.exec(relative(root, file))?.[1];
  if (!name) continue;
  const sum = packages.get(name) ?? { branches: [0, 0], lines: [0, 0], functions: [0, 0] };
  for (const kind of ['branches', 'lines', 'functions']) {
    sum[kind][0] += figures[kind].covered;
    sum[kind][1] += figures[kind].total;
  }
  packages.set(name, sum);
}
const pct = ([covered, total]) => (total === 0 ? '—' : `${((100 * covered) / total).toFixed(1)} %`);
const rows = [...packages].sort(([a], [b]) => a.localeCompare(b));
process.stdout.write('\nCoverage per package (V8; code run only in child processes is not counted)\n');
process.stdout.write(
  `${'package'.padEnd(16)}${'branches'.padStart(10)}${'lines'.padStart(10)}${'functions'.padStart(11)}\n`,
);
for (const [name, sum] of rows) {
  process.stdout.write(
    `${name.padEnd(16)}${pct(sum.branches).padStart(10)}${pct(sum.lines).padStart(10)}${pct(sum.functions).padStart(11)}\n`,
  );
}
