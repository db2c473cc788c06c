import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { ActivePeople, type McpCaller, type SlackUser, slackUser } from '../../../src/services/mcp/index.js';
import { currentWorkspace } from '../../../src/workspace.js';

// Whether a token's person is still in Slack: users.info, kept a minute; a leaver refused and revoked;
// Slack unreachable served from the last answer for a while, then refused.
const caller = (userId: string): McpCaller => ({
  tokenId: `tok-${userId}`,
  userId,
  workspace: { teamId: 'T1', key: 'T1', isEnterpriseInstall: false, isolated: true },
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
});

function world(answer: (userId: string) => Promise<SlackUser | undefined>) {
  let now = 1_000_000;
  const asked: Array<{ userId: string; team: string | undefined }> = [];
  const revoked: string[] = [];
  const people = new ActivePeople({
    usersInfo: (userId) => {
      asked.push({ userId, team: currentWorkspace()?.teamId });
      return answer(userId);
    },
    revokePerson: async (c) => {
      revoked.push(c.userId);
      return 1;
    },
    logger: createLogger({ secrets: [], level: 'silent' }),
    settings: { freshMs: 60_000, staleMs: 300_000 },
    now: () => now,
  });
  return { people, asked, revoked, later: (ms: number) => (now += ms) };
}

describe('ActivePeople', () => {
  it('asks users.info in the token’s workspace once a minute, and once for a burst of calls', async () => {
    const w = world(async () => ({ deleted: false }));
    const burst = await Promise.all([1, 2, 3].map(() => w.people.standing(caller('U1'))));
    expect(burst).toEqual([{ active: true }, { active: true }, { active: true }]);
    expect(await w.people.standing(caller('U1'))).toEqual({ active: true });
    expect(w.asked).toEqual([{ userId: 'U1', team: 'T1' }]);
    w.later(60_001);
    await w.people.standing(caller('U1'));
    expect(w.asked).toHaveLength(2);
  });

  it('a deactivated person, or one Slack no longer knows, is refused as gone and their tokens revoked', async () => {
    let deleted = false;
    const w = world(async (userId) => (userId === 'U0GONE' ? undefined : { deleted }));
    expect(await w.people.standing(caller('U2'))).toEqual({ active: true });
    deleted = true;
    w.later(60_001);
    expect(await w.people.standing(caller('U2'))).toMatchObject({
      active: false,
      gone: true,
      message: expect.stringMatching(/deactivated/),
    });
    expect(await w.people.standing(caller('U0GONE'))).toMatchObject({ active: false, gone: true });
    expect(w.revoked).toEqual(['U2', 'U0GONE']);
  });

  it('Slack unreachable: the last "active" serves for staleMs past its minute, then the person is refused until Slack answers', async () => {
    let down = false;
    const w = world(async () => {
      if (down) throw new Error('slack is down');
      return { deleted: false };
    });
    expect(await w.people.standing(caller('U3'))).toEqual({ active: true });
    down = true;
    w.later(60_001 + 200_000);
    expect(await w.people.standing(caller('U3'))).toEqual({ active: true });
    w.later(100_000);
    expect(await w.people.standing(caller('U3'))).toMatchObject({
      active: false,
      gone: false,
      retryAfterSeconds: 60,
      message: expect.stringMatching(/could not confirm/),
    });
    // Never known, and Slack down: refused too, nothing revoked.
    expect(await w.people.standing(caller('U4'))).toMatchObject({ active: false, gone: false });
    expect(w.revoked).toEqual([]);
    down = false;
    expect(await w.people.standing(caller('U3'))).toEqual({ active: true });
  });

  it('slackUser reads user_not_found as nobody, and throws any other error', async () => {
    const slackError = (error: string) => Object.assign(new Error(error), { data: { ok: false, error } });
    expect(await slackUser(async () => ({ user: { deleted: true } }))).toEqual({ deleted: true });
    expect(
      await slackUser(async () => {
        throw slackError('user_not_found');
      }),
    ).toBeUndefined();
    await expect(
      slackUser(async () => {
        throw slackError('ratelimited');
      }),
    ).rejects.toThrow(/ratelimited/);
  });
});
