import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineAt, ROOT, read, withoutFences } from './markdown.js';

// Every repository path docs/ARCHITECTURE.md names, in code spans or links, exists. A path is read the way
// the page reads it: from the repository's root, from docs/, or from a folder the page itself names (the
// services' table names `slack-out/` and then its files by their names alone). Routes (`/healthz`),
// globs and placeholders (`<kind>`) are not paths.

const PAGE = 'docs/ARCHITECTURE.md';

/** A code span or link target that names a file or folder: a known extension, or a slash inside. */
const looksLikePath = (token: string) =>
  /^[\w.@-]+(\/[\w.@-]+)*\/?$/.test(token) &&
  (/\.(ts|js|mjs|json|md|yml|yaml|png|css|html)$/.test(token) || /\w\/\w|\w\/$/.test(token));

const isDir = (path: string) => existsSync(path) && statSync(path).isDirectory();

/** The paths the page names, with their lines. */
function namedPaths(): Array<{ path: string; line: number }> {
  const text = withoutFences(read(PAGE));
  const named: Array<{ path: string; line: number }> = [];
  for (const match of text.matchAll(/`([^`\n]+)`|\]\(([^)\s#]+)[^)]*\)/g)) {
    const token = (match[1] ?? match[2] ?? '').trim();
    if (looksLikePath(token)) named.push({ path: token, line: lineAt(text, match.index ?? 0) });
  }
  return named;
}

/** The folders a name may be read from: the root, docs/, and every existing folder the page names. */
function bases(paths: string[]): string[] {
  const found = new Set(['', dirname(PAGE)]);
  // A folder may be named from another named folder (`services/`, then `people/`): grow until nothing new.
  for (let grew = true; grew; ) {
    grew = false;
    for (const path of paths) {
      for (const base of [...found]) {
        const dir = normalize(join(base, path.endsWith('/') ? path : dirname(path)));
        if (dir !== '.' && !found.has(dir) && isDir(join(ROOT, dir)) && existsSync(join(ROOT, base, path))) {
          found.add(dir);
          grew = true;
        }
      }
    }
  }
  return [...found];
}

describe('docs/ARCHITECTURE.md', () => {
  const named = namedPaths();
  const from = bases(named.map((n) => n.path));

  it('names paths', () => {
    expect(named.length).toBeGreaterThan(50);
  });

  it('names only paths that exist', () => {
    const missing = named
      .filter(({ path }) => !from.some((base) => existsSync(join(ROOT, base, path))))
      .map(({ path, line }) => `${PAGE}:${line}: ${path}`);
    expect(missing).toEqual([]);
  });
});
