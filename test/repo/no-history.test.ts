import { describe, expect, it } from 'vitest';
import { documentationFiles, read } from './markdown.js';

// The docs say what is true now. Which issue asked for a behaviour, and when, is history: it goes to
// CHANGELOG.md and git, not into the pages a newcomer reads. So no page names an issue: `#23`, `(#25)`,
// `issue 25`, `Issue #15`, `issues 23 and 25`. An HTML entity (`&#123;`), a link's fragment
// (`page.md#heading`, `…/pull/1#r2`) and an id in a word (`roundId#position`) are not issue references.

/** The files checked: every documentation page but the changelog, whose job is the history. */
const pages = () => documentationFiles().filter((file) => file !== 'CHANGELOG.md');

const ISSUE_REFERENCES = [/(?<![\w&#/])#\d+\b/g, /\b(?:issues?|PR|pull request)\s+#?\d+/gi];

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
  });

  it('recognises an issue reference', () => {
    const found = (text: string) => ISSUE_REFERENCES.some((p) => new RegExp(p.source, p.flags).test(text));
    expect(['the agent surface (#23)', 'issue 25', 'Issue #15', 'see #4.'].every(found)).toBe(true);
    expect(['&#123;', 'page.md#heading', 'roundId#position', 'a #hashtag', 'N = 1,000'].some(found)).toBe(
      false,
    );
  });

  it('no page names an issue', () => {
    expect(pages().flatMap(referencesIn)).toEqual([]);
  });
});
