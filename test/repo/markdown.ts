import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const markdownUnder = (dir: string): string[] => {
  const full = join(ROOT, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
};

/**
 * The documentation a reader follows, as paths from the root: the root's README, CONTRIBUTING, SECURITY and
 * CHANGELOG, everything under docs/, each package's README and the n8n node's docs/. Found on disk, so a
 * new page is checked without anyone listing it.
 */
export function documentationFiles(): string[] {
  const top = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'CHANGELOG.md'].filter((f) =>
    existsSync(join(ROOT, f)),
  );
  const packages = readdirSync(join(ROOT, 'packages'))
    .map((name) => join('packages', name, 'README.md'))
    .filter((f) => existsSync(join(ROOT, f)));
  return [...top, ...markdownUnder('docs'), ...packages, ...markdownUnder('packages/n8n-node/docs')];
}

export const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The text with fenced code blocks blanked out (their lines kept, so line numbers still match). */
export function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '));
}

/** The text with fenced blocks and inline code spans blanked out: what is left is prose and links. */
export function proseOf(text: string): string {
  return withoutFences(text).replace(/``[\s\S]*?``|`[^`\n]*`/g, (span) => span.replace(/[^\n]/g, ' '));
}

/** The line (1-based) an index of the text falls on. */
export const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2… */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of withoutFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const heading = (match[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export const fromRoot = (path: string): string => relative(ROOT, path);
