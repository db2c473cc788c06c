import { defaultSeed } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { NO_RETRIES, useSandboxWithClient } from '../../../../../test/support/world.js';
import { loadConfig } from '../../../src/config/index.js';
import { createLogger } from '../../../src/logger.js';
import { Approvers, channelPolicy } from '../../../src/services/people/policy.js';
import { escalationIn } from '../../../src/services/people/workspace-entries.js';
import type { SlackClient } from '../../../src/services/slack-out/outbound/index.js';
import { currentWorkspace, inWorkspace, type Workspace } from '../../../src/workspace.js';
import { configProblems } from '../../config-problems.js';

// AGENT_APPROVERS, AGENT_ALLOWED_CHANNELS and AGENT_ESCALATE_TO entries limited to a workspace.

const logger = createLogger({ secrets: [], level: 'silent' });
const ws = (teamId: string): Workspace => ({
  teamId,
  isEnterpriseInstall: false,
  key: teamId,
  isolated: true,
});
const HOME = ws('T0SANDBOX');
const NORTH = ws('T0NORTH');

/** Slack as each workspace's token sees it: who belongs where, and each workspace's own user groups. */
function twoWorkspaces(): SlackClient {
  const people: Record<string, string> = {
    U0ALICE: 'T0SANDBOX',
    U0BOB: 'T0SANDBOX',
    U0DANA: 'T0NORTH',
    U0ERIN: 'T0NORTH',
  };
  const groups: Record<string, Record<string, string[]>> = {
    T0SANDBOX: { S0APPROVERS: ['U0BOB'] },
    T0NORTH: { S0NAPPROVERS: ['U0ERIN'] },
  };
  const here = () => currentWorkspace()?.teamId as string;
  return {
    users: {
      info: async ({ user }: { user: string }) => {
        if (!people[user])
          throw Object.assign(new Error('user_not_found'), { data: { error: 'user_not_found' } });
        return { ok: true, user: { id: user, team_id: people[user] } };
      },
    },
    usergroups: {
      users: {
        list: async ({ usergroup }: { usergroup: string }) => {
          const members = groups[here()]?.[usergroup];
          if (!members)
            throw Object.assign(new Error('no_such_subteam'), { data: { error: 'no_such_subteam' } });
          return { ok: true, users: members };
        },
      },
    },
    auth: { test: async () => ({ ok: true, team_id: 'T0SANDBOX', user_id: 'UBOT' }) },
  } as unknown as SlackClient;
}

describe('workspace prefixes in the lists (configuration)', () => {
  it('reads prefixed and plain entries as written', () => {
    const config = loadConfig({
      AGENT_APPROVERS: 'T0NORTH:U0ERIN, U0BOB, T0NORTH:S0NAPPROVERS',
      AGENT_ALLOWED_CHANNELS: 'T0NORTH:C0NAGENTS, C0AGENTS, T0NORTH:dm',
      AGENT_ESCALATE_TO: 'S0APPROVERS, T0NORTH:C0NOPS',
    });
    expect(config.approvers).toEqual(['T0NORTH:U0ERIN', 'U0BOB', 'T0NORTH:S0NAPPROVERS']);
    expect(config.allowedChannels).toEqual(['T0NORTH:C0NAGENTS', 'C0AGENTS', 'T0NORTH:dm']);
    expect(config.approvals.escalateTo).toBe('S0APPROVERS,T0NORTH:C0NOPS');
  });

  it('names the variable, the entry and the rule', () => {
    expect(configProblems({ AGENT_APPROVERS: 'north:U0ERIN' })).toContain(
      `AGENT_APPROVERS: AGENT_APPROVERS's workspace prefix must be a team id (T…) and a colon, like T0NORTH:U0ERIN; got "north:U0ERIN"`,
    );
    expect(configProblems({ AGENT_APPROVERS: 'T0NORTH:@erin' })).toContain(
      `AGENT_APPROVERS: AGENT_APPROVERS takes user ids (U…, W…) and user group ids (S…), each optionally prefixed with its workspace (T0NORTH:…); got "T0NORTH:@erin"`,
    );
    expect(configProblems({ AGENT_ALLOWED_CHANNELS: 'T0NORTH:#general' })).toContain(
      `AGENT_ALLOWED_CHANNELS takes channel ids (C…, G…) and dm (the bot's direct messages), each optionally prefixed with its workspace (T0NORTH:…); got "T0NORTH:#general"`,
    );
    expect(configProblems({ AGENT_ESCALATE_TO: 'T0NORTH:S0ONE, T0NORTH:C0TWO' })).toContain(
      `AGENT_ESCALATE_TO: AGENT_ESCALATE_TO takes one target per workspace and one without a prefix; T0NORTH has a second; got "T0NORTH:C0TWO"`,
    );
    expect(configProblems({ AGENT_ESCALATE_TO: '@ops' })).toContain(
      'AGENT_ESCALATE_TO must be a user group id (S…) or a channel id (C…, G…)',
    );
  });

  it('AGENT_ESCALATE_TO: the workspace’s own target, else the one without a prefix', () => {
    const raw = 'S0APPROVERS,T0NORTH:C0NOPS';
    expect(escalationIn(raw, 'T0NORTH')?.id).toBe('C0NOPS');
    expect(escalationIn(raw, 'T0SANDBOX')?.id).toBe('S0APPROVERS');
    expect(escalationIn(raw, undefined)?.id).toBe('S0APPROVERS');
    expect(escalationIn('T0NORTH:C0NOPS', 'T0SANDBOX')).toBeUndefined();
    expect(escalationIn('T0SANDBOX:S0APPROVERS', undefined)?.id).toBe('S0APPROVERS');
  });
});

describe('approvers per workspace, under OAuth (two workspaces)', () => {
  const slack = twoWorkspaces();

  it('a prefixed approver counts only in that workspace', async () => {
    const approvers = new Approvers(slack, ['T0NORTH:U0ERIN', 'T0NORTH:U0ALICE'], logger, 0);
    expect(await inWorkspace(NORTH, () => approvers.includes('U0ERIN'))).toBe(true);
    expect(await inWorkspace(HOME, () => approvers.includes('U0ERIN'))).toBe(false);
    // Even an id that is Alice's in the home workspace: the entry was written for Northwind.
    expect(await inWorkspace(HOME, () => approvers.includes('U0ALICE'))).toBe(false);
    expect(inWorkspace(HOME, () => approvers.mentions())).toEqual([]);
    expect(inWorkspace(NORTH, () => approvers.mentions())).toEqual(['<@U0ERIN>', '<@U0ALICE>']);
  });

  it('an unprefixed user counts only in the workspace Slack says they belong to (a colliding id grants nothing)', async () => {
    const approvers = new Approvers(slack, ['U0BOB', 'U0ERIN', 'U0GHOST'], logger, 0);
    expect(await inWorkspace(HOME, () => approvers.includes('U0BOB'))).toBe(true);
    expect(await inWorkspace(NORTH, () => approvers.includes('U0BOB'))).toBe(false);
    expect(await inWorkspace(NORTH, () => approvers.includes('U0ERIN'))).toBe(true);
    expect(await inWorkspace(HOME, () => approvers.includes('U0ERIN'))).toBe(false);
    expect(await inWorkspace(HOME, () => approvers.includes('U0GHOST'))).toBe(false);
  });

  it('an unprefixed group is read with the workspace’s token: another workspace’s grants nothing', async () => {
    const approvers = new Approvers(slack, ['S0APPROVERS', 'T0NORTH:S0NAPPROVERS'], logger, 0);
    expect(await inWorkspace(HOME, () => approvers.includes('U0BOB'))).toBe(true);
    expect(await inWorkspace(NORTH, () => approvers.includes('U0ERIN'))).toBe(true);
    expect(await inWorkspace(NORTH, () => approvers.includes('U0BOB'))).toBe(false);
    expect(await inWorkspace(HOME, () => approvers.includes('U0ERIN'))).toBe(false);
  });

  it('allowed channels: a prefixed entry opens a channel in its workspace only; a workspace with none starts nowhere', () => {
    const allowed = channelPolicy(['T0NORTH:C0NAGENTS', 'T0NORTH:dm']);
    expect(inWorkspace(NORTH, () => allowed('C0NAGENTS'))).toEqual({ allowed: true });
    expect(inWorkspace(NORTH, () => allowed('D0DANA'))).toEqual({ allowed: true });
    const home = inWorkspace(HOME, () => allowed('C0NAGENTS'));
    expect(home).toEqual({
      allowed: false,
      reason:
        "Agent sessions can't be started in this channel. None is allowed in this workspace (AGENT_ALLOWED_CHANNELS).",
    });
    expect(inWorkspace(HOME, () => allowed('D0ALICE')).allowed).toBe(false);
    const mixed = channelPolicy(['C0AGENTS', 'T0NORTH:C0NAGENTS']);
    expect(inWorkspace(HOME, () => mixed('C0AGENTS'))).toEqual({ allowed: true });
    expect(inWorkspace(HOME, () => mixed('C0OTHER'))).toMatchObject({
      reason: expect.stringMatching(/Allowed: <#C0AGENTS>\.$/),
    });
  });
});

describe('with one bot token (the sandbox’s workspace is T0SANDBOX)', () => {
  const world = useSandboxWithClient({}, NO_RETRIES);

  it('unprefixed entries keep today’s meaning; a prefix counts when it is the bot’s workspace', async () => {
    expect(defaultSeed().teamId).toBe('T0SANDBOX');
    const client = world.slack as unknown as SlackClient;
    expect(await new Approvers(client, ['U0BOB'], logger).includes('U0BOB')).toBe(true);
    expect(await new Approvers(client, ['T0SANDBOX:U0BOB'], logger).includes('U0BOB')).toBe(true);
    expect(await new Approvers(client, ['T0NORTH:U0BOB'], logger).includes('U0BOB')).toBe(false);
  });
});
