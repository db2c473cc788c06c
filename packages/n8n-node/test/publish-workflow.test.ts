import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// The publish workflow can't run here (it needs GitHub's OIDC token and npm): what it must do is read from
// the file itself. n8n verifies only packages published from a GitHub Action with npm provenance.
interface Step {
  name?: string;
  run?: string;
  uses?: string;
}
interface Workflow {
  on: { push?: { tags?: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { steps: Step[]; permissions?: Record<string, string> }>;
}

const file = new URL('../../../.github/workflows/publish-n8n-node.yml', import.meta.url);
const workflow = parse(readFileSync(file, 'utf8')) as Workflow;
const [job] = Object.values(workflow.jobs);
const steps = job?.steps ?? [];
const indexOf = (pattern: RegExp) => steps.findIndex((step) => pattern.test(step.run ?? ''));
const publish = indexOf(/npm publish/);

describe('the publish workflow', () => {
  it('runs from a tag of the node package only', () => {
    expect(Object.keys(workflow.on)).toEqual(['push']);
    expect(workflow.on.push?.tags).toEqual(['n8n-node-v*']);
    expect(steps.some((step) => /GITHUB_REF_NAME.*n8n-node-v\$\{version\}/s.test(step.run ?? ''))).toBe(true);
  });

  it('may mint the OIDC token provenance needs, and write nothing else', () => {
    const permissions = { ...workflow.permissions, ...job?.permissions };
    expect(permissions).toEqual({ contents: 'read', 'id-token': 'write' });
  });

  it('publishes the node package, with provenance and public access, as its last step', () => {
    expect(publish).toBe(steps.length - 1);
    const command = steps[publish]?.run ?? '';
    expect(command.split(/\s+/)).toEqual(
      expect.arrayContaining(['npm', 'publish', '--provenance', '--access', 'public', '-w', 'packages/n8n-node']),
    );
  });

  it('installs from the lockfile, builds, lints and tests before it publishes', () => {
    const before = [/^npm ci\b/, /^npm run build\b/, /^npm run lint\b/, /^npm test -w packages\/n8n-node\b/, /^npm run scan -w packages\/n8n-node\b/, /^npm run test:n8n\b/];
    const at = before.map(indexOf);
    expect(at.every((i) => i >= 0), `steps found at ${at.join(', ')}`).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(Math.max(...at)).toBeLessThan(publish);
  });
});
