import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { Permissions } from '../../src/services/permissions.js';

let sandbox: RunningSandbox;
let slack: webApi.WebClient;
const logger = createLogger({ secrets: [], level: 'silent' });

beforeAll(async () => {
  sandbox = await startSandbox();
  slack = new webApi.WebClient(sandbox.botToken, {
    slackApiUrl: sandbox.apiUrl,
    retryConfig: { retries: 0 },
  });
});

afterAll(async () => {
  await sandbox?.close();
});

describe('Permissions', () => {
  it('lets the starter, listed users and members of listed user groups act; nobody else', async () => {
    const permissions = new Permissions(
      slack,
      { approvers: ['U0CAROL', 'S0APPROVERS'], allowedChannels: [] },
      logger,
    );
    const session = { startedBy: 'U0ALICE' };
    expect(await permissions.act('U0ALICE', session)).toEqual({ allowed: true });
    expect(await permissions.act('U0CAROL', session)).toEqual({ allowed: true });
    expect(await permissions.act('U0BOB', session)).toEqual({ allowed: true }); // in S0APPROVERS
    const stranger = await permissions.act('U0NOBODY', session);
    expect(stranger).toMatchObject({ allowed: false, reason: expect.stringContaining('<@U0ALICE>') });
  });

  it('fails closed when a user group cannot be read', async () => {
    const permissions = new Permissions(slack, { approvers: ['S0MISSING'], allowedChannels: [] }, logger);
    expect((await permissions.act('U0BOB', { startedBy: 'U0ALICE' })).allowed).toBe(false);
  });

  it('limits where sessions start when AGENT_ALLOWED_CHANNELS is set', () => {
    const open = new Permissions(slack, { approvers: [], allowedChannels: [] }, logger);
    expect(open.channel('C0GENERAL')).toEqual({ allowed: true });
    const limited = new Permissions(slack, { approvers: [], allowedChannels: ['C0AGENTS'] }, logger);
    expect(limited.channel('C0AGENTS')).toEqual({ allowed: true });
    expect(limited.channel('C0GENERAL')).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('<#C0AGENTS>'),
    });
  });
});
