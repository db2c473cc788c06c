/**
 * An Enterprise Grid organization, Globex, of two workspaces: the app can be installed in one of them, or
 * org-wide (one token, one bot user for the whole organization). Start a sandbox with
 * `workspaces: gridSeeds()` (beside `secondSeed()` if wanted).
 */

import type { SandboxUser } from './records.js';
import type { WorkspaceSeed } from './seed.js';

export const GRID_ENTERPRISE = { id: 'E0GLOBEX', name: 'Globex' } as const;

const person = (id: string, name: string, realName: string, teamId: string, isBot = false): SandboxUser => ({
  id,
  name,
  real_name: realName,
  is_bot: isBot,
  team_id: teamId,
  tz: 'Europe/London',
  profile: { display_name: name, real_name: realName },
});

/** Globex Sales (T0GSALES: Gina, Hank, #deals) and Globex Ops (T0GOPS: Ivy, #incidents); one bot user. */
export function gridSeeds(appId = 'A0AGENTS'): WorkspaceSeed[] {
  const enterprise = { ...GRID_ENTERPRISE };
  const bot = { botId: 'B0GLOBEX', botUserId: 'W0GLOBEXBOT' };
  return [
    {
      teamId: 'T0GSALES',
      teamDomain: 'globex-sales',
      teamName: 'Globex Sales',
      enterprise,
      appId,
      ...bot,
      users: [
        person('U0GINA', 'gina', 'Gina Starter', 'T0GSALES'),
        person('U0HANK', 'hank', 'Hank Approver', 'T0GSALES'),
        person('W0GLOBEXBOT', 'agents', 'Agent Sessions', 'T0GSALES', true),
      ],
      channels: [{ id: 'C0GDEALS', name: 'deals', is_private: false, is_im: false, is_member: true }],
      userGroups: {},
      channelMembers: { C0GDEALS: ['U0GINA', 'U0HANK'] },
    },
    {
      teamId: 'T0GOPS',
      teamDomain: 'globex-ops',
      teamName: 'Globex Ops',
      enterprise,
      appId,
      ...bot,
      users: [
        person('U0IVY', 'ivy', 'Ivy Operator', 'T0GOPS'),
        person('W0GLOBEXBOT', 'agents', 'Agent Sessions', 'T0GOPS', true),
      ],
      channels: [{ id: 'C0GINCIDENTS', name: 'incidents', is_private: false, is_im: false, is_member: true }],
      userGroups: {},
      channelMembers: { C0GINCIDENTS: ['U0IVY'] },
    },
  ];
}

/**
 * Someone of the organisation in several of its workspaces, as on Grid: one user id in each, their home
 * workspace as `team_id` wherever users.info is asked, and a workspace admin only where `adminOf` says
 * (an admin of one workspace is a plain member of the others). The seeds, with them.
 */
export function withGridMember(
  seeds: WorkspaceSeed[],
  member: { id: string; name: string; home: string; teams: string[]; adminOf: string[] },
): WorkspaceSeed[] {
  return seeds.map((seed) => {
    if (!member.teams.includes(seed.teamId)) return seed;
    const known = seed.users.find((u) => u.id === member.id);
    const user: SandboxUser = {
      ...(known ?? person(member.id, member.name, member.name, member.home)),
      team_id: member.home,
      ...(member.adminOf.includes(seed.teamId) ? { is_admin: true } : {}),
    };
    if (!member.adminOf.includes(seed.teamId)) delete user.is_admin;
    return { ...seed, users: [...seed.users.filter((u) => u.id !== member.id), user] };
  });
}
