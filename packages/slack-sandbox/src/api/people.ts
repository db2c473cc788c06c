import type { SandboxMessage } from '../workspace.js';
import { type ApiContext, type Args, type Method, required, SlackApiError, str } from './types.js';

const DEFAULT_PAGE = { max: 1000, default: 100 };

/**
 * One page of a history, as Slack pages it: `limit` (capped at what the app may read at once; for
 * commercially distributed non-Marketplace apps that is 15), an opaque `cursor`, `has_more` and
 * `response_metadata.next_cursor`.
 */
function page(
  all: SandboxMessage[],
  args: Args,
  ctx: ApiContext,
): { messages: SandboxMessage[]; has_more: boolean; response_metadata: { next_cursor: string } } {
  const limits = ctx.limits?.historyPage ?? DEFAULT_PAGE;
  const asked = args.limit === undefined || args.limit === '' ? limits.default : Number(args.limit);
  if (!Number.isInteger(asked) || asked < 1) throw new SlackApiError('invalid_limit');
  const limit = Math.min(asked, limits.max);
  const cursor = str(args, 'cursor');
  let offset = 0;
  if (cursor) {
    const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
    if (!match) throw new SlackApiError('invalid_cursor');
    offset = Number(match[1]);
  }
  const messages = all.slice(offset, offset + limit);
  const hasMore = offset + limit < all.length;
  return {
    messages,
    has_more: hasMore,
    response_metadata: {
      next_cursor: hasMore ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '',
    },
  };
}

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
  'conversations.history': (args, ctx) => {
    const channel = ctx.workspace.channelForBot(required(args, 'channel'));
    if (!channel) throw new SlackApiError('channel_not_found');
    const top = (ctx.workspace.messages.get(channel.id) ?? []).filter(
      (m) => !m.thread_ts || m.thread_ts === m.ts,
    );
    return { ok: true, ...page([...top].reverse(), args, ctx) };
  },
  'conversations.replies': (args, ctx) => {
    const channel = ctx.workspace.channelForBot(required(args, 'channel'));
    if (!channel) throw new SlackApiError('channel_not_found');
    const ts = required(args, 'ts');
    const parent = ctx.workspace.findMessage(channel.id, ts);
    if (!parent) throw new SlackApiError('thread_not_found');
    return { ok: true, ...page([parent, ...ctx.workspace.replies(channel.id, ts)], args, ctx) };
  },
};
