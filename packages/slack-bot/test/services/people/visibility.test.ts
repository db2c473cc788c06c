import { defaultSeed, withExternalMember } from '@agent-sessions/slack-sandbox';
import { describe, expect, it, vi } from 'vitest';
import { NO_RETRIES, useSandboxWithClient } from '../../../../../test/support/world.js';
import { createLogger } from '../../../src/logger.js';
import { OwnOrganisation } from '../../../src/services/people/own-organisation.js';
import { Approvers, ChannelMembers } from '../../../src/services/people/policy.js';
import { SessionVisibility } from '../../../src/services/people/visibility.js';

// Against the sandbox, where #agents holds Alice, Bob and Dave — Dave of another organisation, there
// through Slack Connect — and Carol is in #general only. Bob approves (S0APPROVERS).
const DAVE = 'U0DAVE';
const world = useSandboxWithClient(
  { seed: withExternalMember(defaultSeed(), { id: DAVE, name: 'dave', channels: ['C0AGENTS'] }) },
  NO_RETRIES,
);
const logger = createLogger({ secrets: [], level: 'silent' });

const session = { sessionId: 's1', startedBy: 'U0ALICE', channelId: 'C0AGENTS' };
const steer = { kind: 'steer' as const, session };

describe('OwnOrganisation (Slack Connect)', () => {
  it('counts the workspace’s own people, not another organisation’s; one it can’t read is not ours', async () => {
    const home = new OwnOrganisation(world.slack, logger, 0);
    expect(await home.includes('U0CAROL')).toBe(true);
    expect(await home.includes(DAVE)).toBe(false);
    expect(await home.includes('U0NOBODY')).toBe(false); // user_not_found
    world.sandbox.failNext({ method: 'users.info', error: 'internal_error' });
    expect(await home.includes('U0CAROL')).toBe(false);
    expect(await home.includes('U0CAROL')).toBe(true);
  });

  it('keeps each answer ttlMs: users.info is asked again only after it', async () => {
    const asked = () => world.sandbox.workspace.apiCalls.filter((c) => c.method === 'users.info').length;
    const home = new OwnOrganisation(world.slack, logger, 60_000);
    const before = asked();
    expect(await home.includes('U0CAROL')).toBe(true);
    expect(await home.includes('U0CAROL')).toBe(true);
    expect(asked()).toBe(before + 1);
    const later = Date.now() + 61_000;
    vi.spyOn(Date, 'now').mockReturnValue(later);
    try {
      expect(await home.includes('U0CAROL')).toBe(true);
    } finally {
      vi.restoreAllMocks();
    }
    expect(asked()).toBe(before + 2);
  });

  it('checks of one person at once share one users.info (a burst of calls would spend Tier 4 many times over)', async () => {
    const home = new OwnOrganisation(world.slack, logger, 60_000);
    const asked: string[] = [];
    const count = (change: { kind: string; call?: { method: string } }) => {
      if (change.kind === 'api_call' && change.call?.method === 'users.info') asked.push(change.call.method);
    };
    world.sandbox.workspace.on('change', count);
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => home.includes('U0ALICE')));
      expect(answers.every(Boolean)).toBe(true);
      expect(asked).toHaveLength(1);
    } finally {
      world.sandbox.workspace.off('change', count);
    }
  });

  it('an external member of the channel is not a member under channel-members; without the check he was', async () => {
    const approvers = new Approvers(world.slack, [], logger);
    const guarded = new ChannelMembers(
      world.slack,
      approvers,
      logger,
      0,
      new OwnOrganisation(world.slack, logger, 0),
    );
    const refused = await guarded.mayAct(DAVE, steer);
    expect(refused).toMatchObject({ allowed: false, reason: expect.stringContaining('<#C0AGENTS>') });
    expect(await guarded.mayAct('U0BOB', steer)).toEqual({ allowed: true });
    // What conversations.members says on its own: Dave is listed.
    expect((await new ChannelMembers(world.slack, approvers, logger, 0).mayAct(DAVE, steer)).allowed).toBe(
      true,
    );
  });
});

describe('SessionVisibility', () => {
  const visibility = () => {
    const approvers = new Approvers(world.slack, ['S0APPROVERS'], logger, 0);
    const members = new ChannelMembers(
      world.slack,
      approvers,
      logger,
      0,
      new OwnOrganisation(world.slack, logger, 0),
    );
    return new SessionVisibility({ members, approvers });
  };

  it('a channel’s session: its starter, the approvers and the channel’s own members; nobody else', async () => {
    const v = visibility();
    const inAgents = { startedBy: 'U0ALICE', channelId: 'C0AGENTS' };
    expect(await v.maySee('U0ALICE', inAgents)).toBe(true);
    expect(await v.maySee('U0BOB', inAgents)).toBe(true);
    expect(await v.maySee('U0CAROL', inAgents)).toBe(false); // in #general only
    expect(await v.maySee(DAVE, inAgents)).toBe(false); // in #agents, from another organisation
    const inGeneral = { startedBy: 'U0ALICE', channelId: 'C0GENERAL' };
    expect(await v.maySee('U0CAROL', inGeneral)).toBe(true);
  });

  it('a DM’s session: its starter and the approvers only', async () => {
    const v = visibility();
    const dm = { startedBy: 'U0ALICE', channelId: 'D0ALICE' };
    expect(await v.maySee('U0ALICE', dm)).toBe(true);
    expect(await v.maySee('U0BOB', dm)).toBe(true);
    expect(await v.maySee('U0CAROL', dm)).toBe(false);
  });

  it('fails closed: a member list that can’t be read shows nothing to members', async () => {
    const v = visibility();
    world.sandbox.failNext({ method: 'conversations.members', error: 'internal_error' });
    expect(await v.maySee('U0CAROL', { startedBy: 'U0ALICE', channelId: 'C0GENERAL' })).toBe(false);
  });
});

describe('HomeTeam (people who left)', () => {
  it('a member Slack deactivated is no longer one of ours, though conversations.members still lists them', async () => {
    const home = new OwnOrganisation(world.slack, logger, 0);
    expect(await home.includes('U0CAROL')).toBe(true);
    world.sandbox.workspace.deactivate('U0CAROL');
    expect(await home.includes('U0CAROL')).toBe(false);
    expect((await world.slack.conversations.members({ channel: 'C0GENERAL' })).members).toContain('U0CAROL');
  });
});
