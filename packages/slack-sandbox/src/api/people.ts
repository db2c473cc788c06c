import { type Method, required, SlackApiError } from './types.js';

export const people: Record<string, Method> = {
  'auth.test': (_args, { workspace, baseUrl }) => {
    const { seed } = workspace;
    return {
      ok: true,
      url: `${baseUrl()}/`,
      team: seed.teamDomain,
      user: 'agents',
      team_id: seed.teamId,
      user_id: seed.botUserId,
      bot_id: seed.botId,
      is_enterprise_install: false,
    };
  },
  'users.info': (args, { workspace }) => {
    const user = workspace.users.get(required(args, 'user'));
    if (!user) throw new SlackApiError('user_not_found');
    return { ok: true, user };
  },
  'usergroups.users.list': (args, { workspace }) => {
    const users = workspace.seed.userGroups[required(args, 'usergroup')];
    if (!users) throw new SlackApiError('no_such_subteam');
    return { ok: true, users };
  },
  'conversations.info': (args, { workspace }) => {
    const channel = workspace.channelForBot(required(args, 'channel'));
    if (!channel) throw new SlackApiError('channel_not_found');
    return { ok: true, channel: { ...channel, is_channel: !channel.is_private && !channel.is_im } };
  },
  'conversations.history': (args, { workspace }) => {
    const channel = workspace.channelForBot(required(args, 'channel'));
    if (!channel) throw new SlackApiError('channel_not_found');
    const limit = Math.min(Number(args.limit ?? 100) || 100, 1000);
    const top = (workspace.messages.get(channel.id) ?? []).filter(
      (m) => !m.thread_ts || m.thread_ts === m.ts,
    );
    return { ok: true, messages: top.slice(-limit).reverse(), has_more: top.length > limit };
  },
  'conversations.replies': (args, { workspace }) => {
    const channel = workspace.channelForBot(required(args, 'channel'));
    if (!channel) throw new SlackApiError('channel_not_found');
    const ts = required(args, 'ts');
    const parent = workspace.findMessage(channel.id, ts);
    if (!parent) throw new SlackApiError('thread_not_found');
    return { ok: true, messages: [parent, ...workspace.replies(channel.id, ts)], has_more: false };
  },
};
