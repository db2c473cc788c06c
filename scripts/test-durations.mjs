// Writes test/support/durations.json from vitest's results of the last run on this checkout: how long each
// end-to-end and store file took, which orders them on a checkout that has no results of its own (see
// test/support/sequencer.ts). Run it after `npm test` on a quiet machine when files were added or grew.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const PROJECTS = ['e2e', 'slack-bot-store'];
const cacheDir = join(root, 'node_modules/.vite/vitest');

const newest = readdirSync(cacheDir)
  .map((dir) => join(cacheDir, dir, 'results.json'))
  .filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile())
  .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
if (!newest) throw new Error(`no vitest results under ${cacheDir}: run npm test first`);

const { results } = JSON.parse(readFileSync(newest, 'utf8'));
const recorded = Object.fromEntries(
  results
    .filter(([key, result]) => PROJECTS.includes(key.split(':')[0]) && !result.failed)
    .map(([key, result]) => [key, Math.round(result.duration / 100) * 100])
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(join(root, 'test/support/durations.json'), `${JSON.stringify(recorded, null, 2)}\n`);
console.log(`test/support/durations.json: ${Object.keys(recorded).length} files, from ${newest}`);
