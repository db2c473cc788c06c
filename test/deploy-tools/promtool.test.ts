import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from './tools.js';

// The alert rules' own unit tests, in Debian's promtool. The structure (every alert has a test that
// fires it, the dashboard shows what each alert watches) is checked in `npm test` (test/deploy/alerts.test.ts).
const dir = fileURLToPath(new URL('../../deploy/monitoring/', import.meta.url));

const promtool = (...args: string[]) => {
  const result = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
};

describe('the alert rules, in promtool', () => {
  beforeAll(() => requireTool('promtool', ['--version'], 'apt-get install prometheus'));

  it('are valid rules', () => {
    const checked = promtool('check', 'rules', 'alerts.yaml');
    expect(checked.output).toContain('SUCCESS');
    expect(checked.status).toBe(0);
  });

  it('pass their unit tests', () => {
    const tested = promtool('test', 'rules', 'alerts.test.yaml');
    expect(tested.output).toContain('SUCCESS');
    expect(tested.status).toBe(0);
  });
});
