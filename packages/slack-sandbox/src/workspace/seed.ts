/** Who and what a sandbox workspace starts with: the team, the app, people, channels and groups. */

import type { SandboxChannel, SandboxUser } from './records.js';

export interface WorkspaceSeed {
  teamId: string;
  teamDomain: string;
  /** The workspace's name as Slack shows it (default: its domain). */
  teamName?: string;
  /** The Enterprise Grid organization the workspace belongs to, if any. */
  enterprise?: { id: string; name: string };
  appId: string;
  botId: string;
  botUserId: string;
  users: SandboxUser[];
  channels: SandboxChannel[];
  userGroups: Record<string, string[]>;
  /**
   * The people in each channel (user ids). The bot's own membership is each channel's `is_member`; a DM
   * holds its person and the bot.
   */
  channelMembers?: Record<string, string[]>;
  /** The app's slash commands, as its manifest declares them (default `/agent`): Slack refuses any other. */
  commands?: string[];
}

const user = (id: string, name: string, realName: string, teamId: string, isBot = false): SandboxUser => ({
  id,
  name,
  real_name: realName,
  is_bot: isBot,
  team_id: teamId,
  tz: 'Europe/Berlin',
  profile: { display_name: name, real_name: realName },
});

export function defaultSeed(): WorkspaceSeed {
  const teamId = 'T0SANDBOX';
  return {
    teamId,
    teamDomain: 'sandbox',
    appId: 'A0AGENTS',
    botId: 'B0AGENTS',
    botUserId: 'U0AGENTBOT',
    users: [
      user('U0ALICE', 'alice', 'Alice Starter', teamId),
      user('U0BOB', 'bob', 'Bob Approver', teamId),
      user('U0CAROL', 'carol', 'Carol Bystander', teamId),
      user('U0AGENTBOT', 'agents', 'Agent Sessions', teamId, true),
    ],
    channels: [
      // The first channel a newcomer sees: the app is in it, as once someone added it there.
      { id: 'C0GENERAL', name: 'general', is_private: false, is_im: false, is_member: true },
      { id: 'C0AGENTS', name: 'agents', is_private: false, is_im: false, is_member: true },
      // A public channel the app was never added to: it may post there (chat:write.public), nothing more.
      { id: 'C0RANDOM', name: 'random', is_private: false, is_im: false, is_member: false },
      // The bot is not invited here: Slack hides the channel from it until someone types /invite.
      { id: 'G0PRIVATE', name: 'private-ops', is_private: true, is_im: false, is_member: false },
    ],
    userGroups: { S0APPROVERS: ['U0BOB'] },
    // Carol is in #general only: under a "channel members may answer" rule she is the outsider in #agents.
    channelMembers: {
      C0GENERAL: ['U0ALICE', 'U0BOB', 'U0CAROL'],
      C0AGENTS: ['U0ALICE', 'U0BOB'],
      C0RANDOM: ['U0ALICE', 'U0BOB', 'U0CAROL'],
      G0PRIVATE: ['U0ALICE', 'U0BOB'],
    },
  };
}
