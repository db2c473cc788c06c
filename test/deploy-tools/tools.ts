import { spawnSync } from 'node:child_process';

/**
 * A tool this suite runs, or a failure saying how to get it: these suites are `npm run test:deploy-tools`,
 * which CI runs after installing them, never part of `npm test` (a fresh clone has none of them).
 */
export function requireTool(command: string, versionArgs: string[], howToGet: string): void {
  if (spawnSync(command, versionArgs).status !== 0)
    throw new Error(`${command} is not installed: ${howToGet}`);
}
