import { describe, expect, it } from 'vitest';
import { read } from './markdown.js';

// A README is where a newcomer starts: short enough to read through, with the detail one link away in
// docs/. The root one stays within 150 lines, the n8n node's (also its npm and n8n page) within 200.
const LIMITS: Array<[string, number]> = [
  ['README.md', 150],
  ['packages/n8n-node/README.md', 200],
];

describe('READMEs stay short', () => {
  it.each(LIMITS)('%s has at most %i lines', (file, limit) => {
    const lines = read(file).trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(limit);
  });

  it('the n8n node’s README points to trying it from this checkout', () => {
    expect(read('packages/n8n-node/README.md')).toContain('(docs/from-source.md)');
  });
});
