import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type Manifest, render } from '../deploy/kustomize.js';
import { requireTool } from './tools.js';

// kustomize itself (kubectl's; none comes from Debian's packages or the npm registry): each overlay
// renders as ../deploy/kustomize.ts renders it, which every manifest test in `npm test` reads.
const root = fileURLToPath(new URL('../..', import.meta.url));
const OVERLAYS = ['deploy/bot', 'deploy/trial', 'deploy/monitored'] as const;
const key = (doc: Manifest) => `${doc.kind} ${doc.metadata?.name}`;
const byKey = (docs: Manifest[]) => Object.fromEntries(docs.map((doc) => [key(doc), doc]));

describe('the overlays, rendered by kubectl kustomize', () => {
  beforeAll(() => requireTool('kubectl', ['version', '--client'], 'install kubectl (v1.21 or newer)'));

  it.each(OVERLAYS)('%s renders as the tests read it', (dir) => {
    const result = spawnSync('kubectl', ['kustomize', join(root, dir)], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const byKubectl = parseAllDocuments(result.stdout).map((d) => d.toJSON() as Manifest);
    expect(byKey(render(join(root, dir)))).toEqual(byKey(byKubectl));
    for (const doc of byKubectl)
      expect(doc.metadata.labels['app.kubernetes.io/part-of'], key(doc)).toBe('agent-sessions');
  });
});
