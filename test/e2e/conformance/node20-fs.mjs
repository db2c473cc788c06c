// fs for the conformance suite on Node 20: Node's own, with `globSync` (Node 22) in case it is missing.
// The suite imports it at load time but only calls it to gather reports (`tier-check`), which no test runs.
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export const globSync =
  fs.globSync ??
  (() => {
    throw new Error('fs.globSync needs Node 22');
  });
