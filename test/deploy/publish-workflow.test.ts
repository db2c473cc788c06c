import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// The image's publish workflow can't run here (it needs GitHub's runners, registry and OIDC token): what
// it must do is read from the file itself, as the n8n node's publish workflow is.
interface Step {
  name?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Workflow {
  on: { push?: { tags?: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { steps: Step[]; permissions?: Record<string, string> }>;
}

const file = new URL('../../.github/workflows/publish-image.yml', import.meta.url);
const workflow = parse(readFileSync(file, 'utf8')) as Workflow;
const [job] = Object.values(workflow.jobs);
const steps = job?.steps ?? [];
const runAt = (pattern: RegExp) => steps.findIndex((step) => pattern.test(step.run ?? ''));
const usesAt = (action: string, from = 0) =>
  steps.findIndex((step, i) => i >= from && (step.uses ?? '').startsWith(`${action}@`));
const build = usesAt('docker/build-push-action');
const push = usesAt('docker/build-push-action', build + 1);

describe('the image publish workflow', () => {
  it('runs from a version tag that names the bot’s version', () => {
    expect(Object.keys(workflow.on)).toEqual(['push']);
    expect(workflow.on.push?.tags).toEqual(['v*']);
    expect(steps.some((step) => /GITHUB_REF_NAME.*"v\$\{version\}"/s.test(step.run ?? ''))).toBe(true);
    expect(steps.some((step) => /packages\/slack-bot\/package\.json/.test(step.run ?? ''))).toBe(true);
  });

  it('may push packages and mint the OIDC token provenance needs, and write nothing else', () => {
    const permissions = { ...workflow.permissions, ...job?.permissions };
    expect(permissions).toEqual({ contents: 'read', packages: 'write', 'id-token': 'write' });
  });

  it('installs, builds, lints and tests, then builds the Containerfile and tests that image before pushing', () => {
    const before = [
      /^npm ci\b/,
      /^npm run build\b/,
      /^npm run lint\b/,
      /^npx vitest run --project deploy\b/,
    ].map(runAt);
    expect(
      before.every((i) => i >= 0),
      `steps found at ${before.join(', ')}`,
    ).toBe(true);
    expect([...before].sort((a, b) => a - b)).toEqual(before);
    expect(build).toBeGreaterThan(Math.max(...before));
    expect(steps[build]?.with).toMatchObject({ file: 'Containerfile', load: true });
    const check = runAt(/^node scripts\/image-check\.mjs\b/);
    expect(check).toBeGreaterThan(build);
    expect(push).toBeGreaterThan(check);
    expect(usesAt('docker/login-action')).toBeLessThan(push);
  });

  it('pushes as its last step, with provenance and an SBOM', () => {
    expect(push).toBe(steps.length - 1);
    expect(steps[push]?.with).toMatchObject({
      push: true,
      provenance: 'mode=max',
      sbom: true,
      file: 'Containerfile',
    });
    expect(String(steps[push]?.with?.tags)).toMatch(/:\$\{\{ env\.VERSION \}\}/);
  });
});
