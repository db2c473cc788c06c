import type { SandboxUser, Workspace, WorkspaceSeed } from './workspace.js';

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

/**
 * A Slack Connect channel between two organisations, as Slack has it: one channel id listed in both
 * workspaces (`is_ext_shared`), the app in it on both sides, each side's people members of it; everyone
 * is listed by conversations.members in both, and users.info gives each their own team's `team_id`. The
 * sandbox links the two copies at start into one history (Workspace.shareChannel). Both seeds, with it.
 */
export function withSharedChannel(
  a: WorkspaceSeed,
  b: WorkspaceSeed,
  channel: { id: string; name: string; members: { a: string[]; b: string[] } },
): [WorkspaceSeed, WorkspaceSeed] {
  const side = (own: WorkspaceSeed, other: WorkspaceSeed, ownMembers: string[], theirs: string[]) => {
    const record = { id: channel.id, name: channel.name, is_private: false, is_im: false, is_member: true };
    let seed: WorkspaceSeed = {
      ...own,
      channels: [...own.channels, { ...record, is_ext_shared: true }],
      channelMembers: { ...own.channelMembers, [channel.id]: ownMembers },
    };
    for (const id of theirs) {
      const person = other.users.find((u) => u.id === id);
      if (!person) throw new Error(`sandbox: ${id} is not in ${other.teamId}`);
      seed = withExternalMember(seed, {
        id,
        name: person.name,
        channels: [channel.id],
        teamId: other.teamId,
      });
    }
    return seed;
  };
  return [side(a, b, channel.members.a, channel.members.b), side(b, a, channel.members.b, channel.members.a)];
}

/** Links the workspaces' copies of every Slack Connect channel they both list into one history. */
export function linkSharedChannels(workspaces: Workspace[]): void {
  for (const [i, first] of workspaces.entries())
    for (const second of workspaces.slice(i + 1))
      for (const channel of second.channels.values())
        if (channel.is_ext_shared && first.channels.get(channel.id)?.is_ext_shared)
          second.shareChannel(first, channel.id);
}
