/**
 * A second workspace for a distributed app: its own team, people, channels and bot user (the same app,
 * installed there through OAuth). Nothing in it is shared with the default workspace.
 */

import type { SandboxUser } from './records.js';
import type { WorkspaceSeed } from './seed.js';

const person = (id: string, name: string, realName: string, teamId: string, isBot = false): SandboxUser => ({
  id,
  name,
  real_name: realName,
  is_bot: isBot,
  team_id: teamId,
  tz: 'America/New_York',
  profile: { display_name: name, real_name: realName },
});

/** "Northwind": Dana starts sessions, Erin approves, Frank looks on; the bot is in #agents only. */
export function secondSeed(appId = 'A0AGENTS'): WorkspaceSeed {
  const teamId = 'T0NORTH';
  return {
    teamId,
    teamDomain: 'northwind',
    teamName: 'Northwind',
    appId,
    botId: 'B0NORTHBOT',
    botUserId: 'U0NORTHBOT',
    users: [
      person('U0DANA', 'dana', 'Dana Starter', teamId),
      person('U0ERIN', 'erin', 'Erin Approver', teamId),
      person('U0FRANK', 'frank', 'Frank Bystander', teamId),
      person('U0NORTHBOT', 'agents', 'Agent Sessions', teamId, true),
    ],
    channels: [
      { id: 'C0NGENERAL', name: 'general', is_private: false, is_im: false, is_member: false },
      { id: 'C0NAGENTS', name: 'agents', is_private: false, is_im: false, is_member: true },
    ],
    userGroups: { S0NAPPROVERS: ['U0ERIN'] },
    channelMembers: {
      C0NGENERAL: ['U0DANA', 'U0ERIN', 'U0FRANK'],
      C0NAGENTS: ['U0DANA', 'U0ERIN'],
    },
  };
}
