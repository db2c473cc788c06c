import type { SandboxUser, WorkspaceSeed } from './workspace.js';

/** The other organisation of a Slack Connect channel, as the sandbox models it. */
export const PARTNER_TEAM_ID = 'T0PARTNER';

/**
 * A seed with someone of another organisation (Slack Connect) in some of its channels. As on Slack, they
 * are listed by conversations.members with everyone else, and users.info gives their own team's
 * `team_id`, not the workspace's.
 */
export function withExternalMember(
  seed: WorkspaceSeed,
  member: { id: string; name: string; channels: string[]; teamId?: string },
): WorkspaceSeed {
  const user: SandboxUser = {
    id: member.id,
    name: member.name,
    real_name: member.name,
    is_bot: false,
    team_id: member.teamId ?? PARTNER_TEAM_ID,
    tz: 'America/New_York',
    profile: { display_name: member.name, real_name: member.name },
  };
  const channelMembers = { ...seed.channelMembers };
  for (const channel of member.channels)
    channelMembers[channel] = [...(channelMembers[channel] ?? []), member.id];
  return { ...seed, users: [...seed.users, user], channelMembers };
}
