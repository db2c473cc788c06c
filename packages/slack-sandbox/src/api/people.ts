import type { SandboxMessage } from '../workspace.js';
import { type ApiContext, type Args, type Method, required, SlackApiError, str } from './types.js';

/**
 * Reads take a conversation id only: a user id (which chat.postMessage takes for the DM) is
 * `channel_not_found`, as on Slack, so a bot must `conversations.open` its DM to read it; and only where
 * the bot is a member.
 */
function conversationForBot(ctx: ApiContext, id: string) {
  const channel = ctx.workspace.channels.get(id) && ctx.workspace.channelForBot(id);
  if (!channel) throw new SlackApiError('channel_not_found');
  // channels:history reads "public channels your app has been added to": posting there with
  // chat:write.public does not make it readable.
  if (!channel.is_member) throw new SlackApiError('not_in_channel');
  return channel;
}

/** Slack's cursor pages: 100 items unless `limit` says otherwise, never more than 1000 at once. */
const SLACK_PAGE = { max: 1000, default: 100 };

/** `limit` as Slack reads it: the default when absent, refused unless a whole number of at least 1, capped. */
function pageLimit(args: Args, limits: { max: number; default: number }): number {
  const asked = args.limit === undefined || args.limit === '' ? limits.default : Number(args.limit);
  if (!Number.isInteger(asked) || asked < 1) throw new SlackApiError('invalid_limit');
  return Math.min(asked, limits.max);
}

/** What a cursor this sandbox gave out says (the one group of `pattern`); `invalid_cursor` for any other. */
function readCursor(args: Args, pattern: RegExp): string | undefined {
  const cursor = str(args, 'cursor');
  if (!cursor) return undefined;
  const match = pattern.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  if (!match) throw new SlackApiError('invalid_cursor');
  return match[1] as string;
}

/** Cursors are opaque to the app, as Slack's are: base64 of what `readCursor` reads back. */
const cursorFor = (text: string) => Buffer.from(text).toString('base64');

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
  const limit = pageLimit(args, ctx.limits?.historyPage ?? SLACK_PAGE);
  const offset = Number(readCursor(args, /^offset:(\d+)$/) ?? 0);
  const messages = all.slice(offset, offset + limit);
  const hasMore = offset + limit < all.length;
  return {
    messages,
    has_more: hasMore,
    response_metadata: {
      next_cursor: hasMore ? cursorFor(`offset:${offset + limit}`) : '',
    },
  };
}

export const people: Record<string, Method> = {
  'auth.test': (_args, { workspace, baseUrl, caller }) => {
    const { seed } = workspace;
    const person = caller?.kind === 'user' ? workspace.users.get(caller.userId) : undefined;
    return {
      ok: true,
      url: `${baseUrl()}/`,
      // An org-wide token is the organization's: its team is the organization.
      team:
        (caller?.isEnterpriseInstall ? seed.enterprise?.name : undefined) ?? seed.teamName ?? seed.teamDomain,
      user: person?.name ?? 'agents',
      team_id: (caller?.isEnterpriseInstall ? caller.enterpriseId : undefined) ?? seed.teamId,
      user_id: person?.id ?? seed.botUserId,
      ...(person ? {} : { bot_id: seed.botId }),
      ...(caller?.enterpriseId ? { enterprise_id: caller.enterpriseId } : {}),
      is_enterprise_install: caller?.isEnterpriseInstall ?? false,
      ...(caller?.expiresIn !== undefined ? { expires_in: caller.expiresIn } : {}),
    };
  },
  'users.info': (args, { workspace }) => {
    const user = workspace.users.get(required(args, 'user'));
    if (!user) throw new SlackApiError('user_not_found');
    // Slack says `deleted` of everyone: false while active, true once deactivated.
    return { ok: true, user: { ...user, deleted: user.deleted === true } };
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
  'conversations.members': (args, { workspace }) => {
    // A conversation id only (no user id standing for a DM, as chat.postMessage takes); a private
    // channel the bot is not in does not exist for it.
    const channel = workspace.channels.get(required(args, 'channel'));
    const all = channel && (!channel.is_private || channel.is_member) && workspace.members(channel.id);
    if (!all) throw new SlackApiError('channel_not_found');
    const limit = pageLimit(args, SLACK_PAGE);
    // The cursor names the first member of the next page (as Slack's `user:U…` cursors do), so someone
    // leaving between two pages makes no one else be skipped.
    const first = readCursor(args, /^user:([A-Z0-9]+)$/);
    let from = 0;
    if (first !== undefined) {
      from = all.findIndex((id) => id >= first);
      if (from < 0) from = all.length;
    }
    const next = all[from + limit];
    return {
      ok: true,
      members: all.slice(from, from + limit),
      response_metadata: { next_cursor: next ? cursorFor(`user:${next}`) : '' },
    };
  },
  'conversations.open': (args, { workspace }) => {
    // The bot's DM with one person (opened once, then the same id); a group DM is not modelled.
    const reopen = str(args, 'channel');
    if (reopen) {
      const dm = workspace.channels.get(reopen);
      if (!dm?.is_im) throw new SlackApiError('channel_not_found');
      return { ok: true, channel: { id: dm.id } };
    }
    const users = (str(args, 'users') ?? '').split(',').filter(Boolean);
    if (users.length === 0) throw new SlackApiError('users_list_not_supplied');
    if (users.length > 1) throw new SlackApiError('not_supported');
    const [user] = users as [string];
    if (!workspace.users.has(user)) throw new SlackApiError('user_not_found');
    const existed = workspace.channels.has(`D${user.slice(1)}`);
    const dm = workspace.channel(user);
    if (!dm) throw new SlackApiError('user_not_found');
    return { ok: true, ...(existed ? { already_open: true } : {}), channel: { id: dm.id } };
  },
  'conversations.history': (args, ctx) => {
    const channel = conversationForBot(ctx, required(args, 'channel'));
    const top = (ctx.workspace.messages.get(channel.id) ?? []).filter(
      (m) => !m.thread_ts || m.thread_ts === m.ts,
    );
    return { ok: true, ...page([...top].reverse(), args, ctx) };
  },
  'conversations.replies': (args, ctx) => {
    const channel = conversationForBot(ctx, required(args, 'channel'));
    const ts = required(args, 'ts');
    const parent = ctx.workspace.findMessage(channel.id, ts);
    if (!parent) throw new SlackApiError('thread_not_found');
    return { ok: true, ...page([parent, ...ctx.workspace.replies(channel.id, ts)], args, ctx) };
  },
};
