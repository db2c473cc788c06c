import type { RunningSandbox } from '@agent-sessions/slack-sandbox';
import { expect } from 'vitest';
import { API_KEY } from './harness.js';

/** Every secret of the run: none may appear in a log line or anything posted to Slack. */
export function expectNoSecrets(haystacks: string[], secrets: string[]): void {
  const leaks = haystacks.filter((line) => secrets.some((secret) => line.includes(secret)));
  expect(leaks, 'lines that contain a secret').toEqual([]);
}

/** The run's secrets: the service key and the sandbox's token and signing secret (new at each start). */
export const secretsOf = (sandbox: Pick<RunningSandbox, 'botToken' | 'signingSecret'>): string[] => [
  API_KEY,
  sandbox.botToken,
  sandbox.signingSecret,
];
