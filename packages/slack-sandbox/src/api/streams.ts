/**
 * `chat.startStream` / `chat.appendStream` / `chat.stopStream`: one bot message in a thread that grows
 * call by call. It is a real message of the thread (conversations.replies and history return it): its
 * `text` is the markdown so far, its `blocks` the parts as agent/stream-blocks.ts lays them out, its
 * `streaming_state` says whether it still takes appends, and chat.stopStream's `metadata` is on it once
 * stopped. Errors and limits as the methods' reference pages list them.
 */

import { applyChunk, type Chunk, markdownChars, parseChunks } from '../agent/chunks.js';
import { SESSION_STATUSES, type SessionStatus, type StreamRecord } from '../agent/records.js';
import { streamText } from '../agent/stream-blocks.js';
import { MAX_MARKDOWN_CHARS } from '../blockkit/validate.js';
import type { SandboxMessage } from '../workspace.js';
import { invalidArgument } from './agents.js';
import { checkMessageBlocks } from './chat.js';
import { type ApiContext, type Args, json, type Method, required, SlackApiError, str } from './types.js';

/** `markdown_text` per call, and (as Slack's markdown blocks) across the whole message. */
export const MAX_STREAM_MARKDOWN = MAX_MARKDOWN_CHARS;
const MAX_FINAL_BLOCKS = 50;

/** What one call brings: nothing, its `markdown_text`, or its `chunks`. */
function content(args: Args): { mode?: 'markdown_text' | 'chunks'; chunks: Chunk[] } {
  const markdown = typeof args.markdown_text === 'string' ? args.markdown_text : undefined;
  const hasChunks = args.chunks !== undefined && args.chunks !== null;
  if (markdown !== undefined && markdown !== '' && hasChunks)
    throw new SlackApiError('cannot_provide_both_markdown_text_and_chunks');
  if (markdown !== undefined && markdown !== '') {
    if (markdown.length > MAX_STREAM_MARKDOWN) throw new SlackApiError('msg_too_long');
    return { mode: 'markdown_text', chunks: [{ type: 'markdown_text', text: markdown }] };
  }
  if (!hasChunks) return { chunks: [] };
  let raw = args.chunks;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      throw new SlackApiError('invalid_chunks', { errors: ['chunks must be a JSON array'] });
    }
  }
  const { chunks, problems } = parseChunks(raw);
  if (problems.length > 0)
    throw new SlackApiError('invalid_chunks', {
      errors: problems,
      response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) },
    });
  if (markdownChars(chunks) > MAX_STREAM_MARKDOWN) throw new SlackApiError('msg_too_long');
  return chunks.length > 0 ? { mode: 'chunks', chunks } : { chunks: [] };
}

/** Lays a call's content onto the stream, holding it to the stream's mode and the message's markdown cap. */
function feed(stream: StreamRecord, call: { mode?: 'markdown_text' | 'chunks'; chunks: Chunk[] }): void {
  if (call.mode && stream.mode && call.mode !== stream.mode)
    throw new SlackApiError('streaming_mode_mismatch');
  if (streamText(stream).length + markdownChars(call.chunks) > MAX_STREAM_MARKDOWN)
    throw new SlackApiError('msg_too_long');
  // 50 blocks through `blocks` chunks in all, besides the 50 of chat.stopStream's own `blocks`.
  const chunkBlocks = (parts: Array<{ kind?: string; type?: string; blocks?: unknown[] }>) =>
    parts.reduce((n, p) => n + (p.kind === 'blocks' || p.type === 'blocks' ? (p.blocks?.length ?? 0) : 0), 0);
  if (chunkBlocks(stream.parts) + chunkBlocks(call.chunks) > MAX_FINAL_BLOCKS)
    throw new SlackApiError('msg_blocks_too_many');
  if (call.mode) stream.mode ??= call.mode;
  for (const chunk of call.chunks) applyChunk(stream, chunk);
  stream.calls += 1;
}

/** The stream a call names, refused as Slack refuses a message that is not an open stream of this app. */
function openStream(ctx: ApiContext, args: Args): { stream: StreamRecord; message: SandboxMessage } {
  const channel = ctx.workspace.channelForBot(required(args, 'channel'));
  if (!channel) throw new SlackApiError('channel_not_found');
  const message = ctx.workspace.findMessage(channel.id, required(args, 'ts'));
  if (!message) throw new SlackApiError('message_not_found');
  if (message.bot_id !== ctx.workspace.seed.botId) throw new SlackApiError('message_not_owned_by_app');
  const stream = ctx.workspace.agent.stream(channel.id, message.ts);
  if (!stream || stream.state === 'completed') throw new SlackApiError('message_not_in_streaming_state');
  return { stream, message };
}

function finalBlocks(args: Args, ctx: ApiContext): unknown[] {
  if (args.blocks === undefined) return [];
  const blocks = json(args, 'blocks');
  if (Array.isArray(blocks) && blocks.length > MAX_FINAL_BLOCKS)
    throw new SlackApiError('msg_blocks_too_many');
  return checkMessageBlocks(blocks, ctx);
}

/** `metadata`: a JSON object with a string `event_type` and an object `event_payload`. */
function metadata(args: Args): unknown {
  if (args.metadata === undefined) return undefined;
  let value = args.metadata;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new SlackApiError('invalid_metadata_format');
    }
  }
  const m = value as { event_type?: unknown; event_payload?: unknown } | null;
  if (typeof m !== 'object' || m === null || Array.isArray(m))
    throw new SlackApiError('invalid_metadata_format');
  const payloadOk =
    typeof m.event_payload === 'object' && m.event_payload !== null && !Array.isArray(m.event_payload);
  if (typeof m.event_type !== 'string' || m.event_type === '' || !payloadOk)
    throw new SlackApiError('invalid_metadata_schema');
  return m;
}

export const streams: Record<string, Method> = {
  'chat.startStream': (args, ctx) => {
    const { workspace } = ctx;
    const channel = workspace.channelForBot(required(args, 'channel'));
    if (!channel) throw new SlackApiError('channel_not_found');
    const threadTs = required(args, 'thread_ts');
    if (!workspace.findMessage(channel.id, threadTs)) throw new SlackApiError('thread_not_found');
    const recipientUserId = str(args, 'recipient_user_id');
    const recipientTeamId = str(args, 'recipient_team_id');
    if (!channel.is_im) {
      if (!recipientUserId) throw new SlackApiError('missing_recipient_user_id');
      if (!recipientTeamId) throw new SlackApiError('missing_recipient_team_id');
    }
    if (recipientUserId && !workspace.users.has(recipientUserId)) throw new SlackApiError('user_not_found');
    const displayMode = str(args, 'task_display_mode') ?? 'timeline';
    if (displayMode !== 'timeline' && displayMode !== 'plan')
      throw invalidArgument(`task_display_mode must be one of timeline, plan, got "${displayMode}"`);
    const call = content(args);
    const stream: StreamRecord = {
      channel: channel.id,
      ts: '',
      threadTs,
      state: 'in_progress',
      displayMode,
      ...(recipientUserId ? { recipientUserId } : {}),
      ...(recipientTeamId ? { recipientTeamId } : {}),
      parts: [],
      tasks: [],
      finalBlocks: [],
      calls: 0,
    };
    feed(stream, call);
    const { seed } = workspace;
    const message = workspace.post({
      channel: channel.id,
      text: '',
      bot_id: seed.botId,
      app_id: seed.appId,
      user: seed.botUserId,
      thread_ts: threadTs,
      streaming_state: 'in_progress',
    });
    stream.ts = message.ts;
    workspace.agent.addStream(stream);
    workspace.agent.render(stream, message);
    return { ok: true, channel: channel.id, ts: message.ts };
  },
  'chat.appendStream': (args, ctx) => {
    const { stream, message } = openStream(ctx, args);
    if (stream.state === 'stopped_by_user') throw new SlackApiError('stopped_by_user');
    const call = content(args);
    if (!call.mode) throw new SlackApiError('markdown_text_or_chunks_required');
    feed(stream, call);
    ctx.workspace.agent.render(stream, message);
    return { ok: true, channel: stream.channel, ts: stream.ts };
  },
  'chat.stopStream': (args, ctx) => {
    // A stream a person stopped with Slack's Stop button still closes here, as Slack's Stop guide says.
    const { stream, message } = openStream(ctx, args);
    const call = content(args);
    const blocks = finalBlocks(args, ctx);
    const meta = metadata(args);
    const sessionStatus = str(args, 'session_status');
    if (sessionStatus !== undefined && !(SESSION_STATUSES as readonly string[]).includes(sessionStatus))
      throw invalidArgument(
        `session_status must be one of ${SESSION_STATUSES.join(', ')}, got "${sessionStatus}"`,
      );
    feed(stream, call);
    stream.finalBlocks = blocks;
    stream.state = 'completed';
    ctx.workspace.agent.render(stream, message, meta);
    // The thread's session takes the status (default active), where the app has sessions at all.
    const session = ctx.workspace.agent.session(stream.channel, stream.threadTs);
    if (session && ctx.workspace.agent.features === 'on')
      ctx.workspace.agent.setStatus(
        {
          channel: stream.channel,
          threadTs: stream.threadTs,
          status: (sessionStatus ?? 'active') as SessionStatus,
        },
        'chat.stopStream',
      );
    return { ok: true, channel: stream.channel, ts: stream.ts, message };
  },
};
