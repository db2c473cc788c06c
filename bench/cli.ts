import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A `--name` option that must be a whole number above 0; a bad one stops the bench, naming it. */
export function wholeAbove0(name: string, raw: string | undefined): number {
  const v = Number(raw);
  if (!(Number.isInteger(v) && v > 0))
    throw new Error(`--${name} must be a whole number above 0, got "${raw}"`);
  return v;
}

/** A bench's figures as pretty JSON at `path` (bench/results/<bench>.json by default), its folder made if missing. */
export function writeResult(path: string, result: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
}
