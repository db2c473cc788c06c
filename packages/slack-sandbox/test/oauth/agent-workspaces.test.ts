import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/index.js';
import { installInto, sandboxClient } from './installed.js';

/** Slack's agent platform is a workspace's: each answers for itself, whatever token reached the sandbox. */

let sandbox: RunningSandbox;
const tokens: Record<string, string> = {};

const client = (token?: string) => sandboxClient(sandbox, token);
const slackError = async (call: Promise<unknown>) =>
  ((await call.catch((e: unknown) => e)) as { data?: { error?: string } }).data?.error;

beforeAll(async () => {
  // Every workspace starts as a Slack from before the agent platform.
  sandbox = await startSandbox({
    oauth: { redirectUrls: ['http://127.0.0.1:9/cb'] },
    agent: { features: 'unknown' },
    rateLimits: false,
  });
  Object.assign(
    tokens,
    await installInto(sandbox, ['T0SANDBOX', 'T0NORTH'], ['chat:write', 'assistant:write']),
  );
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the agent platform per workspace', () => {
  it('gives every workspace the sandbox’s agent options, and lets one change alone', async () => {
    const status = (team: string) =>
      slackError(
        client(tokens[team]).assistant.threads.setStatus({
          channel_id: 'C0NAGENTS',
          thread_ts: '1.000001',
          status: 'x',
        }),
      );
    expect(await status('T0SANDBOX')).toBe('unknown_method');
    expect(await status('T0NORTH')).toBe('unknown_method');
    sandbox.workspaceFor('T0NORTH').agent.configure({ features: 'on' });
    // Northwind knows the method now (its thread is made up); the default workspace still does not.
    expect(await status('T0NORTH')).toBe('invalid_thread_ts');
    expect(await status('T0SANDBOX')).toBe('unknown_method');
  });
});
