import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The team's rule for every source file: at most 400 lines, and one over 300 says why in its first comment
// ("Over 300 lines because …"). Tests, builds and dependencies are not sources.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGES = readdirSync(join(ROOT, 'packages'));
const SOURCE_DIRS = [
  ...PACKAGES.map((name) => `packages/${name}/src`),
  'packages/slack-sandbox/web',
  'packages/n8n-node/nodes',
  'packages/n8n-node/credentials',
  'bench',
  'scripts',
];
const SKIPPED = new Set(['node_modules', 'dist', 'test', 'tests', '__tests__', 'results', 'coverage']);
const CODE = /\.(ts|mts|cts|js|mjs|cjs|css)$/;

function sources(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(ROOT, dir), { withFileTypes: true });
  } catch {
    return []; // a package without src/ (or a folder not there yet)
  }
  return entries.flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sources(path);
    return CODE.test(entry.name) && !/\.test\.[cm]?[jt]s$/.test(entry.name) ? [path] : [];
  });
}

/** The file's first comment: a block comment, or a run of `//` lines, wherever it starts (after imports, too). */
function firstComment(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^\s*(\/\*|\/\/)/.test(line));
  if (start < 0) return '';
  if (/^\s*\/\*/.test(lines[start] ?? '')) {
    const end = lines.findIndex((line, i) => i >= start && line.includes('*/'));
    return lines.slice(start, end < 0 ? undefined : end + 1).join('\n');
  }
  const run: string[] = [];
  for (const line of lines.slice(start)) {
    if (!/^\s*\/\//.test(line)) break;
    run.push(line);
  }
  return run.join('\n');
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
const files = SOURCE_DIRS.flatMap(sources).map((path) => {
  const text = readFileSync(join(ROOT, path), 'utf8');
  return { path: relative(ROOT, join(ROOT, path)), lines: lineCount(text), text };
});

describe('source file sizes', () => {
  it('reads the sources (the rules below would pass on an empty list)', () => {
    const paths = files.map((f) => f.path);
    for (const known of [
      'packages/slack-bot/src/wiring.ts',
      'packages/slack-sandbox/web/client.js',
      'packages/n8n-node/nodes/AgentSessions/helpers/forms.ts',
      'bench/cli.ts',
      'scripts/start.mjs',
    ])
      expect(paths).toContain(known);
    expect(
      paths.some((p) => p.includes('/dist/') || p.includes('node_modules') || p.includes('/test/')),
    ).toBe(false);
  });

  it('no source file is over 400 lines', () => {
    expect(files.filter((f) => f.lines > 400).map((f) => `${f.path}: ${f.lines} lines`)).toEqual([]);
  });

  it('each source file over 300 lines says why in its first comment ("Over 300 lines because …")', () => {
    const unexplained = files
      .filter((f) => f.lines > 300 && !/\bover 300 lines\b/i.test(firstComment(f.text)))
      .map(
        (f) => `${f.path}: ${f.lines} lines, first comment: ${firstComment(f.text).slice(0, 80) || '(none)'}`,
      );
    expect(unexplained).toEqual([]);
  });

  it('finds the first comment wherever it is', () => {
    expect(
      firstComment('#!/usr/bin/env node\n// One.\n// Over 300 lines because two.\nconst a = 1;\n// Later.'),
    ).toBe('// One.\n// Over 300 lines because two.');
    expect(firstComment("import a from 'a';\n/**\n * Over 300 lines because b.\n */\nclass B {}")).toBe(
      '/**\n * Over 300 lines because b.\n */',
    );
    expect(firstComment('const a = 1;')).toBe('');
  });
});
