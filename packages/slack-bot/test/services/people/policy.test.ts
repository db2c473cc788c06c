import { defaultSeed, type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import { describe, expect, it, vi } from 'vitest';
import { approval } from '../../../../../test/support/questions.js';
import { NO_RETRIES, sandboxWebClient, useSandboxWithClient } from '../../../../../test/support/world.js';
import { createLogger } from '../../../src/logger.js';
import { BudgetCeiling } from '../../../src/services/people/budget-ceiling.js';
import {
  Approvers,
  ApproversOnly,
  ChannelMembers,
  channelPolicy,
  StarterOrApprovers,
} from '../../../src/services/people/policy.js';

const world = useSandboxWithClient({}, NO_RETRIES);
const logger = createLogger({ secrets: [], level: 'silent' });

const session = { sessionId: 's1', startedBy: 'U0ALICE', channelId: 'C0AGENTS' };
const steer = { kind: 'steer' as const, session };

describe('StarterOrApprovers', () => {
  it('lets the starter, listed users and members of listed user groups act; nobody else', async () => {
    const policy = new StarterOrApprovers(new Approvers(world.slack, ['U0CAROL', 'S0APPROVERS'], logger));
    expect(await policy.mayAct('U0ALICE', steer)).toEqual({ allowed: true });
    expect(await policy.mayAct('U0CAROL', steer)).toEqual({ allowed: true });
    expect(await policy.mayAct('U0BOB', steer)).toEqual({ allowed: true }); // in S0APPROVERS
    const stranger = await policy.mayAct('U0NOBODY', steer);
    expect(stranger).toMatchObject({ allowed: false, reason: expect.stringContaining('<@U0ALICE>') });
  });

  it('a refusal names who may act in the very words of the prompt’s "Waiting for" line', async () => {
    const policy = new StarterOrApprovers(new Approvers(world.slack, ['U0BOB', 'S0APPROVERS'], logger));
    const waiting = policy.whoMayAnswer(session).line;
    expect(waiting).toBe('Waiting for <@U0ALICE>, <@U0BOB> or <!subteam^S0APPROVERS>');
    const refusal = await policy.mayAct('U0CAROL', steer);
    expect(refusal).toEqual({
      allowed: false,
      reason: 'Only <@U0ALICE>, <@U0BOB> or <!subteam^S0APPROVERS> can do that.',
    });
  });

  it('fails closed when a user group cannot be read', async () => {
    const policy = new StarterOrApprovers(new Approvers(world.slack, ['S0MISSING'], logger));
    expect((await policy.mayAct('U0BOB', steer)).allowed).toBe(false);
  });
});

describe('Approvers', () => {
  it('while Slack can’t be asked, the last user-group list serves a few minutes past its life, then nothing', async () => {
    const approvers = new Approvers(world.slack, ['S0APPROVERS'], logger, 0);
    expect(await approvers.includes('U0BOB')).toBe(true);
    world.sandbox.failNext({ method: 'usergroups.users.list', error: 'internal_error' });
    expect(await approvers.includes('U0BOB')).toBe(true); // expired, yet just read
    const sixMinutesOn = Date.now() + 6 * 60_000;
    const now = vi.spyOn(Date, 'now').mockReturnValue(sixMinutesOn);
    try {
      world.sandbox.failNext({ method: 'usergroups.users.list', error: 'internal_error' });
      expect(await approvers.includes('U0BOB')).toBe(false);
    } finally {
      now.mockRestore();
    }
    expect(world.sandbox.workspace.apiCalls.at(-1)).toMatchObject({
      method: 'usergroups.users.list',
      error: 'internal_error',
    });
    // Once Slack answers again, the group counts again.
    expect(await approvers.includes('U0BOB')).toBe(true);
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

  it('holds for the bot’s DMs too: refused unless the list says dm (each person’s DM id differs)', () => {
    expect(channelPolicy([])('D0ALICE')).toEqual({ allowed: true });
    expect(channelPolicy(['C0AGENTS'])('D0ALICE')).toEqual({
      allowed: false,
      reason: "Agent sessions can't be started in direct messages. Allowed: <#C0AGENTS>.",
    });
    const withDms = channelPolicy(['C0AGENTS', 'dm']);
    expect(withDms('D0ALICE')).toEqual({ allowed: true });
    expect(withDms('C0GENERAL')).toEqual({
      allowed: false,
      reason:
        "Agent sessions can't be started in this channel. Allowed: <#C0AGENTS>, direct messages with me.",
    });
  });
});

const choice = { inputId: 'in_2', kind: 'free_text' as const, prompt: 'Name it', raw: {} };

describe('ApproversOnly (four eyes)', () => {
  it('refuses the starter on approvals (even one who is an approver), and says who may answer', async () => {
    const policy = new ApproversOnly(new Approvers(world.slack, ['U0ALICE', 'S0APPROVERS'], logger));
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
    const policy = new ApproversOnly(new Approvers(world.slack, ['S0APPROVERS'], logger));
    expect(await policy.mayAct('U0ALICE', steer)).toEqual({ allowed: true });
    expect(await policy.mayAct('U0ALICE', { kind: 'answer', session, request: choice })).toEqual({
      allowed: true,
    });
    expect((await policy.mayAct('U0CAROL', steer)).allowed).toBe(false);
  });

  it('while an approval waits, the starter can’t redirect past it; an approver can; without one, the starter can', async () => {
    const policy = new ApproversOnly(new Approvers(world.slack, ['U0ALICE', 'S0APPROVERS'], logger));
    const past = { ...steer, redirect: true, approvalWaiting: true };
    const starter = await policy.mayAct('U0ALICE', past);
    expect(starter).toEqual({
      allowed: false,
      reason:
        'An approval is waiting in this session and needs a second person: you started it, so <@U0ALICE> or <!subteam^S0APPROVERS> must approve or reject it before you can redirect the agent.',
    });
    expect(await policy.mayAct('U0BOB', past)).toEqual({ allowed: true });
    expect(await policy.mayAct('U0ALICE', { ...steer, redirect: true })).toEqual({ allowed: true });
    // Pausing or cancelling stops the agent: never a way past the decision.
    expect(await policy.mayAct('U0ALICE', { ...steer, approvalWaiting: true })).toEqual({ allowed: true });
  });

  it('names who can answer on the prompt: approvers for approvals, the starter too for the rest', () => {
    const policy = new ApproversOnly(new Approvers(world.slack, ['U0DAN', 'S0APPROVERS'], logger));
    expect(policy.whoMayAnswer(session, approval)).toEqual({
      line: 'Waiting for an approver: <@U0DAN> or <!subteam^S0APPROVERS>',
      mentions: '<@U0DAN> <!subteam^S0APPROVERS>',
    });
    expect(policy.whoMayAnswer(session, choice).line).toBe(
      'Waiting for <@U0ALICE>, <@U0DAN> or <!subteam^S0APPROVERS>',
    );
    const none = new ApproversOnly(new Approvers(world.slack, [], logger));
    expect(none.whoMayAnswer(session, approval).line).toMatch(/none is configured/);
  });
});

describe('ChannelMembers', () => {
  const membersCalls = (on: RunningSandbox) =>
    on.workspace.apiCalls.filter((c) => c.method === 'conversations.members').length;

  it('lets anyone in the channel act, every page of members read and kept a while; others are refused', async () => {
    // More members than one page holds (we ask for 999 at once, under Slack's 1000): the last one is on page two.
    const crowd = Array.from({ length: 1_005 }, (_, i) => `U1${String(i).padStart(6, '0')}`);
    const seed = defaultSeed();
    const big = await startSandbox({
      seed: { ...seed, channelMembers: { ...seed.channelMembers, C0AGENTS: ['U0ALICE', 'U0BOB', ...crowd] } },
    });
    try {
      const bigSlack = sandboxWebClient(big, NO_RETRIES);
      const policy = new ChannelMembers(bigSlack, new Approvers(bigSlack, [], logger), logger);
      const last = crowd.at(-1) as string;
      expect(await policy.mayAct(last, { kind: 'answer', session, request: approval })).toEqual({
        allowed: true,
      });
      expect(membersCalls(big)).toBe(2);
      expect(await policy.mayAct('U0BOB', steer)).toEqual({ allowed: true });
      expect(await policy.mayAct('U0ALICE', steer)).toEqual({ allowed: true });
      const outsider = await policy.mayAct('U0CAROL', steer);
      expect(outsider).toMatchObject({ allowed: false, reason: expect.stringContaining('<#C0AGENTS>') });
      expect(membersCalls(big)).toBe(2);
    } finally {
      await big.close();
    }
  });

  it("many asking at once about a channel whose list isn't kept yet: one read of Slack answers them all", async () => {
    const policy = new ChannelMembers(world.slack, new Approvers(world.slack, [], logger), logger);
    const before = membersCalls(world.sandbox);
    const verdicts = await Promise.all(
      Array.from({ length: 20 }, () => policy.includes('C0AGENTS', 'U0BOB')),
    );
    expect(verdicts).toEqual(Array.from({ length: 20 }, () => true));
    expect(membersCalls(world.sandbox) - before).toBe(1);
  });

  it('sees someone who joined once the kept list expires (a minute; shorter when configured)', async () => {
    const kept = new ChannelMembers(world.slack, new Approvers(world.slack, [], logger), logger);
    const fresh = new ChannelMembers(world.slack, new Approvers(world.slack, [], logger), logger, 0);
    expect((await kept.mayAct('U0CAROL', steer)).allowed).toBe(false);
    expect((await fresh.mayAct('U0CAROL', steer)).allowed).toBe(false);
    world.sandbox.workspace.join('C0AGENTS', 'U0CAROL');
    try {
      expect((await kept.mayAct('U0CAROL', steer)).allowed).toBe(false);
      expect((await fresh.mayAct('U0CAROL', steer)).allowed).toBe(true);
    } finally {
      world.sandbox.workspace.leave('C0AGENTS', 'U0CAROL');
    }
    expect((await fresh.mayAct('U0CAROL', steer)).allowed).toBe(false);
  });

  it('fails closed when the member list cannot be read; the starter and approvers need none', async () => {
    const policy = new ChannelMembers(world.slack, new Approvers(world.slack, [], logger), logger);
    world.sandbox.failNext({ method: 'conversations.members', error: 'fetch_members_failed' });
    expect((await policy.mayAct('U0BOB', steer)).allowed).toBe(false); // in #agents, but unreadable
    expect(world.sandbox.workspace.apiCalls.at(-1)).toMatchObject({
      method: 'conversations.members',
      error: 'fetch_members_failed',
    });
    expect((await policy.mayAct('U0ALICE', steer)).allowed).toBe(true);
    // A private channel the bot is not in does not exist for it (channel_not_found): Bob is in it, refused.
    const hidden = { kind: 'steer' as const, session: { ...session, channelId: 'G0PRIVATE' } };
    expect((await policy.mayAct('U0BOB', hidden)).allowed).toBe(false);
    expect(world.sandbox.workspace.apiCalls.at(-1)).toMatchObject({ error: 'channel_not_found' });
    const withApprovers = new ChannelMembers(
      world.slack,
      new Approvers(world.slack, ['S0APPROVERS'], logger),
      logger,
    );
    expect((await withApprovers.mayAct('U0BOB', hidden)).allowed).toBe(true);
  });

  it('while Slack can’t be asked, the last list read serves a few minutes past its life, then nothing', async () => {
    const policy = new ChannelMembers(world.slack, new Approvers(world.slack, [], logger), logger, 0);
    expect((await policy.mayAct('U0BOB', steer)).allowed).toBe(true);
    world.sandbox.failNext({ method: 'conversations.members', error: 'internal_error' });
    expect((await policy.mayAct('U0BOB', steer)).allowed).toBe(true); // expired, yet just read
    const sixMinutesOn = Date.now() + 6 * 60_000;
    const now = vi.spyOn(Date, 'now').mockReturnValue(sixMinutesOn);
    try {
      world.sandbox.failNext({ method: 'conversations.members', error: 'internal_error' });
      expect((await policy.mayAct('U0BOB', steer)).allowed).toBe(false);
    } finally {
      now.mockRestore();
    }
    expect(world.sandbox.workspace.apiCalls.at(-1)).toMatchObject({ error: 'internal_error' });
  });

  it('pings only the starter and says in words that anyone in the channel can answer', () => {
    const policy = new ChannelMembers(world.slack, new Approvers(world.slack, [], logger), logger);
    expect(policy.whoMayAnswer(session)).toEqual({
      line: 'Anyone in <#C0AGENTS> can answer',
      mentions: '<@U0ALICE>',
      others: 'Anyone in <#C0AGENTS> can answer',
    });
  });
});

describe('BudgetCeiling (AGENT_MAX_BUDGET)', () => {
  const raise = (to: number) => ({ ...steer, newBudget: to });

  it('under four eyes: up to the ceiling the starter raises; above it an approver other than the starter', async () => {
    const approvers = new Approvers(world.slack, ['U0ALICE', 'S0APPROVERS'], logger);
    const policy = new BudgetCeiling(new ApproversOnly(approvers), approvers, 10, true);
    expect(await policy.mayAct('U0ALICE', raise(10))).toEqual({ allowed: true });
    expect(await policy.mayAct('U0ALICE', raise(10.01))).toEqual({
      allowed: false,
      reason:
        'A budget above $10.00 (AGENT_MAX_BUDGET) needs a second person: you started this session, so ask <@U0ALICE> or <!subteam^S0APPROVERS> to raise it.',
    });
    expect(await policy.mayAct('U0BOB', raise(50))).toEqual({ allowed: true });
    expect((await policy.mayAct('U0CAROL', raise(50))).allowed).toBe(false);
    // Everything else is the wrapped policy's: Carol may not steer at all, Alice may pause.
    expect((await policy.mayAct('U0CAROL', raise(5))).allowed).toBe(false);
    expect(await policy.mayAct('U0ALICE', steer)).toEqual({ allowed: true });
    expect(policy.whoMayAnswer?.(session, approval).line).toBe(
      'Waiting for an approver: <@U0ALICE> or <!subteam^S0APPROVERS>',
    );
  });

  it('under the other policies: above the ceiling, any approver (a starter who approves too)', async () => {
    const approvers = new Approvers(world.slack, ['S0APPROVERS'], logger);
    const policy = new BudgetCeiling(new StarterOrApprovers(approvers), approvers, 10, false);
    expect(await policy.mayAct('U0ALICE', raise(20))).toEqual({
      allowed: false,
      reason:
        'A budget above $10.00 (AGENT_MAX_BUDGET) needs an approver: ask <!subteam^S0APPROVERS> to raise it.',
    });
    expect(await policy.mayAct('U0BOB', raise(20))).toEqual({ allowed: true });
    const bobsOwn = { kind: 'steer' as const, session: { ...session, startedBy: 'U0BOB' }, newBudget: 20 };
    expect(await policy.mayAct('U0BOB', bobsOwn)).toEqual({ allowed: true });
  });
});
