import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, documentationFiles, lineAt, proseOf, ROOT, read } from './markdown.js';

// Every relative link in the documentation leads somewhere: the file (or folder) exists, and a link to a
// heading of a Markdown page (`page.md#heading`, or `#heading` on the same page) names a heading it has.
// Links to the web (https:, mailto:) are left alone. Code blocks and code spans are not links.

/**
 * Pages linked before they exist here, each with why: written on another branch of the same change. Remove
 * an entry once its page is in; the test then checks links to it like any other.
 */

interface Link {
  file: string;
  line: number;
  target: string;
}

function linksOf(file: string): Link[] {
  const text = proseOf(read(file));
  const links: Link[] = [];
  // [text](target) and ![alt](target), with an optional "title"; and reference definitions `[x]: target`.
  for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)/gm)) {
    const target = match[1] ?? match[2] ?? '';
    links.push({ file, line: lineAt(text, match.index ?? 0), target });
  }
  return links;
}

const isWeb = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with a link, or undefined when it leads somewhere. */
function problemOf(link: Link): string | undefined {
  const [pathPart = '', anchor] = link.target.split('#');
  const path = decodeURIComponent(pathPart);
  const file = path === '' ? link.file : normalize(join(dirname(link.file), path));
  const full = join(ROOT, file);
  if (!existsSync(full)) return `${file} does not exist`;
  if (anchor === undefined || !file.endsWith('.md') || statSync(full).isDirectory()) return undefined;
  return anchorsOf(read(file)).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

describe('documentation links', () => {
  const files = documentationFiles();

  it('finds the documentation', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'SECURITY.md']));
    expect(files.some((f) => f.startsWith('docs/'))).toBe(true);
  });

  it('every relative link leads to an existing file, and every anchor to a heading', () => {
    const broken = files
      .flatMap(linksOf)
      .filter((link) => !isWeb(link.target))
      .flatMap((link) => {
        const problem = problemOf(link);
        return problem ? [`${link.file}:${link.line} (${link.target}): ${problem}`] : [];
      });
    expect(broken).toEqual([]);
  });
});
