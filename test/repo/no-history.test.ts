import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationFiles, ROOT, read } from './markdown.js';

// The docs say what is true now. Which issue asked for a behaviour, and when, is history: it goes to
// CHANGELOG.md and git, not into the pages a newcomer reads. So no page names an issue: `#23`, `(#25)`,
// `issue 25`, `Issue #15`, `issues 23 and 25`. An HTML entity (`&#123;`), a link's fragment
// (`page.md#heading`, `…/pull/1#r2`, `[the database](#5-the-database)`), an id in a word (`roundId#position`) and a colour (`#1d2b3a`) are
// not issue references. The same holds for the comments an operator reads while setting the bot up: the
// Slack app's manifest.yml, the Containerfile and the deployment's files in deploy/.

const yamlUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return yamlUnder(path);
    return /\.ya?ml$|\.example$/.test(name) ? [path] : [];
  });

/** The files checked: every documentation page but the changelog, whose job is the history. */
const pages = () => documentationFiles().filter((file) => file !== 'CHANGELOG.md');
/** The set-up files whose comments are documentation too. */
const setupFiles = () =>
  ['manifest.yml', 'Containerfile', ...yamlUnder('deploy')].filter((f) => existsSync(join(ROOT, f)));

const ISSUE_REFERENCES = [/(?<![\w&#/]|\]\()#\d+\b/g, /\b(?:issues?|PR|pull request)\s+#?\d+/gi];

function referencesIn(file: string): string[] {
  return read(file)
    .split('\n')
    .flatMap((line, i) =>
      ISSUE_REFERENCES.flatMap((pattern) => [...line.matchAll(pattern)]).map(
        (match) => `${file}:${i + 1}: ${match[0].trim()}`,
      ),
    );
}

describe('no history in the docs', () => {
  it('checks the README, CONTRIBUTING, SECURITY, docs/ and every package README', () => {
    const files = pages();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'SECURITY.md']));
    expect(files).toEqual(expect.arrayContaining(['packages/n8n-node/README.md', 'docs/ARCHITECTURE.md']));
    expect(files).not.toContain('CHANGELOG.md');
    expect(setupFiles()).toEqual(
      expect.arrayContaining([
        'manifest.yml',
        'Containerfile',
        'deploy/bot/deployment.yaml',
        'deploy/compose.yaml',
      ]),
    );
  });

  it('recognises an issue reference', () => {
    const found = (text: string) => ISSUE_REFERENCES.some((p) => new RegExp(p.source, p.flags).test(text));
    expect(['the agent surface (#23)', 'issue 25', 'Issue #15', 'see #4.'].every(found)).toBe(true);
    const legitimate = [
      '&#123;',
      'page.md#heading',
      'roundId#position',
      'a #hashtag',
      'N = 1,000',
      '"#1d2b3a"',
      'see [the database](#5-the-database)',
    ];
    expect(legitimate.some(found)).toBe(false);
  });

  it('no page names an issue', () => {
    expect(pages().flatMap(referencesIn)).toEqual([]);
  });

  it('no comment in manifest.yml, the Containerfile or deploy/ names an issue', () => {
    expect(setupFiles().flatMap(referencesIn)).toEqual([]);
  });
});
