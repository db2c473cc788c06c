import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.js';

// A class's private method says what it does, not that it is the public one's other half: `handle` next to
// `#handle`, `send` next to `#send` leave a reader to guess which one a caller reaches and what the other
// adds. Read from the packages' sources: a class member is a line indented once (Biome's format) that
// opens a method, `#name(` for a private one.

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'return', 'catch', 'function', 'constructor']);
const PRIVATE = /^ {2}(?:static\s+)?(?:async\s+)?(?:get\s+|set\s+)?#([\w$]+)\s*[(<]/;
const PUBLIC = /^ {2}(?:public\s+|static\s+|override\s+|async\s+|get\s+|set\s+)*([\w$]+)\s*[(<]/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each source file (from the root) with the names of its class members: private and public methods. */
const members = readdirSync(join(ROOT, 'packages')).flatMap((name) =>
  ['src', 'nodes', 'credentials']
    .map((dir) => join(ROOT, 'packages', name, dir))
    .filter((dir) => existsSync(dir))
    .flatMap(sources)
    .map((file) => {
      const lines = readFileSync(file, 'utf8').split('\n');
      const named = (pattern: RegExp) =>
        new Set(lines.flatMap((line) => pattern.exec(line)?.[1] ?? []).filter((n) => !KEYWORDS.has(n)));
      return { file: relative(ROOT, file), privates: named(PRIVATE), publics: named(PUBLIC) };
    }),
);

describe('no twin names', () => {
  it('reads the classes (the test would pass vacuously on nothing)', () => {
    const publisher = members.find((m) => m.file.endsWith('services/following/session-publisher.ts'));
    expect(publisher?.publics).toContain('handle');
    expect(publisher?.privates).toContain('dispatch');
  });

  it('no class has a public method and a private one of the same name', () => {
    const twins = members.flatMap(({ file, privates, publics }) =>
      [...privates].filter((name) => publics.has(name)).map((name) => `${file}: ${name} / #${name}`),
    );
    expect(twins).toEqual([]);
  });
});
