import { expect } from 'vitest';
import { API_KEY } from './harness.js';

/** Every secret of the run: none may appear in a log line or anything posted to Slack. */
export function expectNoSecrets(haystacks: string[], secrets: string[]): void {
  const leaks = haystacks.filter((line) => secrets.some((secret) => line.includes(secret)));
  expect(leaks, 'lines that contain a secret').toEqual([]);
}

export const SECRETS = [API_KEY, 'xoxb-sandbox-token', 'sandbox-signing-secret'];
