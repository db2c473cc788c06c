import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import {
  Approvers,
  ApproversOnly,
  ChannelMembers,
  channelPolicy,
  StarterOrApprovers,
} from '../../src/services/policy.js';

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

const session = { sessionId: 's1', startedBy: 'U0ALICE', channelId: 'C0AGENTS' };
const steer = { kind: 'steer' as const, session };

describe('StarterOrApprovers', () => {
  it('lets the starter, listed users and members of listed user groups act; nobody else', async () => {
    const policy = new StarterOrApprovers(new Approvers(slack, ['U0CAROL', 'S0APPROVERS'], logger));
    expect(await policy.mayAct('U0ALICE', steer)).toEqual({ allowed: true });
    expect(await policy.mayAct('U0CAROL', steer)).toEqual({ allowed: true });
    expect(await policy.mayAct('U0BOB', steer)).toEqual({ allowed: true }); // in S0APPROVERS
    const stranger = await policy.mayAct('U0NOBODY', steer);
    expect(stranger).toMatchObject({ allowed: false, reason: expect.stringContaining('<@U0ALICE>') });
  });

  it('fails closed when a user group cannot be read', async () => {
    const policy = new StarterOrApprovers(new Approvers(slack, ['S0MISSING'], logger));
    expect((await policy.mayAct('U0BOB', steer)).allowed).toBe(false);
  });
});

describe('channelPolicy', () => {
  it('limits where sessions start when AGENT_ALLOWED_CHANNELS is set', () => {
    expect(channelPolicy([])('C0GENERAL')).toEqual({ allowed: true });
    const limited = channelPolicy(['C0AGENTS']);
    expect(limited('C0AGENTS')).toEqual({ allowed: true });
    expect(limited('C0GENERAL')).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('<#C0AGENTS>'),
    });
  });
});

const approval = { inputId: 'in_1', kind: 'approval' as const, prompt: 'Deploy?', raw: {} };
const choice = { inputId: 'in_2', kind: 'free_text' as const, prompt: 'Name it', raw: {} };

describe('ApproversOnly (four eyes)', () => {
  it('refuses the starter on approvals (even one who is an approver), and says who may answer', async () => {
    const policy = new ApproversOnly(new Approvers(slack, ['U0ALICE', 'S0APPROVERS'], logger));
    const starter = await policy.mayAct('U0ALICE', { kind: 'answer', session, request: approval });
    expect(starter).toMatchObject({ allowed: false, reason: expect.stringContaining('second person') });
    expect(starter).toMatchObject({ reason: expect.stringContaining('<!subteam^S0APPROVERS>') });
    expect(await policy.mayAct('U0BOB', { kind: 'answer', session, request: approval })).toEqual({
      allowed: true,
    });
    expect((await policy.mayAct('U0CAROL', { kind: 'answer', session, request: approval })).allowed).toBe(
      false,
    );
  });

  it('leaves steering and other kinds of questions to the starter or approvers', async () => {
    const policy = new ApproversOnly(new Approvers(slack, ['S0APPROVERS'], logger));
    expect(await policy.mayAct('U0ALICE', steer)).toEqual({ allowed: true });
    expect(await policy.mayAct('U0ALICE', { kind: 'answer', session, request: choice })).toEqual({
      allowed: true,
    });
    expect((await policy.mayAct('U0CAROL', steer)).allowed).toBe(false);
  });

  it('names who can answer on the prompt: approvers for approvals, the starter too for the rest', () => {
    const policy = new ApproversOnly(new Approvers(slack, ['U0DAN', 'S0APPROVERS'], logger));
    expect(policy.whoMayAnswer(session, approval)).toEqual({
      line: 'Waiting for an approver: <@U0DAN> or <!subteam^S0APPROVERS>',
      mentions: '<@U0DAN> <!subteam^S0APPROVERS>',
    });
    expect(policy.whoMayAnswer(session, choice).line).toBe(
      'Waiting for <@U0ALICE>, <@U0DAN> or <!subteam^S0APPROVERS>',
    );
    const none = new ApproversOnly(new Approvers(slack, [], logger));
    expect(none.whoMayAnswer(session, approval).line).toMatch(/none is configured/);
  });
});

describe('ChannelMembers', () => {
  // The sandbox has no conversations.members: a fake with pages stands in for Slack here.
  const members = (pages: string[][], fail = false) => {
    const calls: Array<{ cursor?: string }> = [];
    return {
      calls,
      conversations: {
        members: async (args: { channel: string; cursor?: string }) => {
          calls.push(args);
          if (fail) throw new Error('channel_not_found');
          const index = args.cursor ? Number(args.cursor) : 0;
          const next = index + 1 < pages.length ? String(index + 1) : '';
          return { ok: true, members: pages[index], response_metadata: { next_cursor: next } };
        },
      },
    } as unknown as ConstructorParameters<typeof ChannelMembers>[0] & { calls: Array<{ cursor?: string }> };
  };

  it('lets anyone in the channel answer (every page read, kept a while); others are refused', async () => {
    const slackFake = members([['U0CAROL'], ['U0ERIN']]);
    const policy = new ChannelMembers(slackFake, new Approvers(slack, [], logger), logger);
    expect(await policy.mayAct('U0ERIN', { kind: 'answer', session, request: approval })).toEqual({
      allowed: true,
    });
    expect(await policy.mayAct('U0CAROL', steer)).toEqual({ allowed: true });
    expect(await policy.mayAct('U0ALICE', steer)).toEqual({ allowed: true });
    const outsider = await policy.mayAct('U0NOBODY', steer);
    expect(outsider).toMatchObject({ allowed: false, reason: expect.stringContaining('<#C0AGENTS>') });
    expect(slackFake.calls).toHaveLength(2);
    expect(policy.whoMayAnswer(session).line).toBe('Anyone in <#C0AGENTS> can answer');
  });

  it('fails closed when the member list cannot be read', async () => {
    const policy = new ChannelMembers(members([], true), new Approvers(slack, [], logger), logger);
    expect((await policy.mayAct('U0CAROL', steer)).allowed).toBe(false);
  });
});
