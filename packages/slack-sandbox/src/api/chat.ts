import { blocksChars, MAX_BLOCKS_CHARS } from '../blockkit/size.js';
import { describeProblem, MAX_MESSAGE_TEXT, validateBlocks } from '../blockkit/validate.js';
import type { Workspace } from '../workspace.js';
import { type ApiContext, type Args, json, type Method, required, SlackApiError, str } from './types.js';

/** A message's blocks as Slack checks them: each block (`invalid_blocks`), then their size in all. */
export function checkMessageBlocks(blocks: unknown, ctx: ApiContext): unknown[] {
  const problems = validateBlocks(blocks, 'message');
  if (problems.length > 0) {
    const errors = problems.map(describeProblem);
    throw new SlackApiError('invalid_blocks', {
      errors,
      response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) },
    });
  }
  if (blocksChars(blocks) > (ctx.limits?.maxBlocksChars ?? MAX_BLOCKS_CHARS))
    throw new SlackApiError('msg_blocks_too_long');
  return blocks as unknown[];
}

function content(args: Args, ctx: ApiContext): { text: string; blocks?: unknown[] } {
  const text = str(args, 'text') ?? '';
  const blocks = json(args, 'blocks');
  if (text === '' && (blocks === undefined || (Array.isArray(blocks) && blocks.length === 0)))
    throw new SlackApiError('no_text');
  if (text.length > MAX_MESSAGE_TEXT) throw new SlackApiError('msg_too_long');
  if (blocks !== undefined) return { text, blocks: checkMessageBlocks(blocks, ctx) };
  return { text };
}

function channelOf(workspace: Workspace, args: Args): string {
  const channel = workspace.channelForBot(required(args, 'channel'));
  if (!channel) throw new SlackApiError('channel_not_found');
  if (channel.is_archived) throw new SlackApiError('is_archived');
  return channel.id;
}

export const chat: Record<string, Method> = {
  'chat.postMessage': (args, ctx) => {
    const { workspace } = ctx;
    const channel = channelOf(workspace, args);
    const threadTs = str(args, 'thread_ts');
    if (threadTs && !workspace.findMessage(channel, threadTs)) throw new SlackApiError('thread_not_found');
    const { seed } = workspace;
    const message = workspace.post({
      channel,
      ...content(args, ctx),
      bot_id: seed.botId,
      app_id: seed.appId,
      user: seed.botUserId,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(args.metadata !== undefined ? { metadata: json(args, 'metadata') } : {}),
    });
    return { ok: true, channel, ts: message.ts, message };
  },
  'chat.update': (args, ctx) => {
    const { workspace } = ctx;
    const channel = channelOf(workspace, args);
    const message = workspace.findMessage(channel, required(args, 'ts'));
    if (!message) throw new SlackApiError('message_not_found');
    if (message.bot_id !== workspace.seed.botId) throw new SlackApiError('cant_update_message');
    // Slack keeps the message's metadata unless the edit gives new metadata.
    const metadata = args.metadata !== undefined ? { metadata: json(args, 'metadata') } : {};
    const updated = workspace.update(message, { ...content(args, ctx), ...metadata });
    return { ok: true, channel, ts: updated.ts, text: updated.text, message: updated };
  },
  'chat.delete': (args, { workspace }) => {
    const channel = channelOf(workspace, args);
    const ts = required(args, 'ts');
    const message = workspace.findMessage(channel, ts);
    if (!message) throw new SlackApiError('message_not_found');
    if (message.bot_id !== workspace.seed.botId) throw new SlackApiError('cant_delete_message');
    workspace.remove(channel, ts);
    return { ok: true, channel, ts };
  },
  'chat.postEphemeral': (args, ctx) => {
    const { workspace } = ctx;
    const channel = channelOf(workspace, args);
    const user = required(args, 'user');
    if (!workspace.users.has(user)) throw new SlackApiError('user_not_found');
    const threadTs = str(args, 'thread_ts');
    const ephemeral = workspace.postEphemeral({
      channel,
      user,
      ...content(args, ctx),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      via: 'api',
    });
    return { ok: true, message_ts: ephemeral.ts };
  },
  'chat.getPermalink': (args, { workspace, baseUrl }) => {
    const channel = channelOf(workspace, args);
    const ts = required(args, 'message_ts');
    if (!workspace.findMessage(channel, ts)) throw new SlackApiError('message_not_found');
    return { ok: true, channel, permalink: `${baseUrl()}/archives/${channel}/p${ts.replace('.', '')}` };
  },
};
