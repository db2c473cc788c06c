/**
 * Agent sessions (`agents.sessions.setStatus` / `rename`) and agent-view threads
 * (`assistant.threads.setSuggestedPrompts` / `setTitle` / `setStatus`), validated and answered with the
 * errors their reference pages list. Arguments as @slack/web-api 8.2.0 types them.
 */

import { SESSION_STATUSES, type SessionStatus, type SuggestedPrompt } from '../agent/records.js';
import type { SandboxChannel } from '../workspace.js';
import { type ApiContext, type Args, json, type Method, required, SlackApiError, str } from './types.js';

const MAX_TITLE = 200;
const MISSING_STOP_SUBSCRIPTION = 'missing_agent_session_stopped_event_subscription';

/** A refusal of one argument, naming it and the rule, as Slack's `invalid_arguments` does. */
export const invalidArgument = (message: string): SlackApiError =>
  new SlackApiError('invalid_arguments', { response_metadata: { messages: [`[ERROR] ${message}`] } });

/** What an app that is not an agent gets (the workspace has no agent platform for it). */
function requireAgentApp(ctx: ApiContext, refusal: 'feature_disabled' | 'not_agent_app' | 'missing_scope') {
  if (ctx.workspace.agent.features !== 'off') return;
  if (refusal === 'missing_scope')
    throw new SlackApiError('missing_scope', { needed: 'assistant:write', provided: 'chat:write' });
  throw new SlackApiError(refusal);
}

/**
 * The channel a session lives in: `channel_not_found` when the bot can't see it, `not_authorized` when
 * it is not a member ("The caller is not a member of the specified channel").
 */
function sessionChannel(ctx: ApiContext, args: Args): SandboxChannel {
  const channel = ctx.workspace.channelForBot(required(args, 'channel_id'));
  if (!channel) throw new SlackApiError('channel_not_found');
  if (!channel.is_im && !channel.is_member) throw new SlackApiError('not_authorized');
  return channel;
}

/** A thread's root in the channel: sessions are thread-based in channels and DMs alike. */
function threadRoot(ctx: ApiContext, channel: string, args: Args, missing: string): string {
  const ts = str(args, 'thread_ts');
  if (!ts) throw new SlackApiError(missing);
  const message = ctx.workspace.findMessage(channel, ts);
  // A reply is no thread root; Slack keys sessions by the root.
  if (!message || (message.thread_ts !== undefined && message.thread_ts !== message.ts))
    throw new SlackApiError('thread_not_found');
  return ts;
}

/**
 * Which session a call means: a code channel's own (no `thread_ts`: "must be omitted for session
 * channels", kept under '') or a thread's.
 */
function sessionThread(ctx: ApiContext, channel: string, args: Args): string {
  if (!ctx.workspace.codeChannels.get(channel)) return threadRoot(ctx, channel, args, 'thread_ts_required');
  if (str(args, 'thread_ts')) throw invalidArgument('thread_ts must be omitted for a session channel');
  return '';
}

function title(args: Args, name: string, requiredHere: boolean): string | undefined {
  const value = requiredHere ? required(args, name) : str(args, name);
  if (value !== undefined && value.length > MAX_TITLE)
    throw invalidArgument(`${name} must be at most ${MAX_TITLE} characters, got ${value.length}`);
  return value;
}

const look = (args: Args, name: string): string | null | undefined => {
  const v = args[name];
  return v === null || typeof v === 'string' ? v : undefined;
};

/** Rejects what is not a list of {title, message}, naming the prompt and field. */
function prompts(args: Args): SuggestedPrompt[] {
  if (args.prompts === undefined) throw invalidArgument('missing required field: prompts');
  const list = json(args, 'prompts');
  if (!Array.isArray(list) || list.length === 0)
    throw invalidArgument('prompts must be a non-empty array of {title, message}');
  return list.map((p, i) => {
    const { title: t, message } = (p ?? {}) as Record<string, unknown>;
    if (typeof t !== 'string' || t === '')
      throw invalidArgument(`prompts[${i}].title must be a non-empty string`);
    if (typeof message !== 'string' || message === '')
      throw invalidArgument(`prompts[${i}].message must be a non-empty string`);
    return { title: t, message };
  });
}

export const agents: Record<string, Method> = {
  'agents.sessions.setStatus': (args, ctx) => {
    requireAgentApp(ctx, 'feature_disabled');
    const { workspace } = ctx;
    const status = required(args, 'status');
    if (!(SESSION_STATUSES as readonly string[]).includes(status)) throw new SlackApiError('invalid_status');
    const channel = sessionChannel(ctx, args);
    const threadTs = sessionThread(ctx, channel.id, args);
    const existing = workspace.agent.session(channel.id, threadTs);
    // title and initiator_user_id count only when the session is created; later they are ignored.
    const newTitle = existing ? undefined : title(args, 'title', false);
    const initiator = existing ? undefined : str(args, 'initiator_user_id');
    if (initiator !== undefined) {
      const members = workspace.members(channel.id) ?? [];
      if (!workspace.users.has(initiator) || !members.includes(initiator))
        throw new SlackApiError('user_not_found');
    }
    const { session } = workspace.agent.setStatus(
      {
        channel: channel.id,
        threadTs,
        status: status as SessionStatus,
        ...(newTitle !== undefined ? { title: newTitle } : {}),
        ...(initiator !== undefined ? { initiator } : {}),
      },
      'agents.sessions.setStatus',
    );
    workspace.agent.setLook(session, {
      icon_emoji: look(args, 'icon_emoji'),
      icon_url: look(args, 'icon_url'),
      username: look(args, 'username'),
    });
    const answer = { ok: true, status: session.status, ...(session.title ? { title: session.title } : {}) };
    if (workspace.agent.stopEventSubscribed) return answer;
    return {
      ...answer,
      warning: MISSING_STOP_SUBSCRIPTION,
      response_metadata: { warnings: [MISSING_STOP_SUBSCRIPTION] },
    };
  },
  'agents.sessions.rename': (args, ctx) => {
    requireAgentApp(ctx, 'feature_disabled');
    const newTitle = title(args, 'title', true) as string;
    const channel = sessionChannel(ctx, args);
    const threadTs = sessionThread(ctx, channel.id, args);
    const session = ctx.workspace.agent.session(channel.id, threadTs);
    if (!session) throw new SlackApiError('session_not_found');
    ctx.workspace.agent.rename(session, newTitle);
    return { ok: true, title: newTitle };
  },
  'assistant.threads.setSuggestedPrompts': (args, ctx) => {
    requireAgentApp(ctx, 'not_agent_app');
    const channel = ctx.workspace.channelForBot(required(args, 'channel_id'));
    if (!channel) throw new SlackApiError('channel_not_found');
    const list = prompts(args);
    const threadTs = str(args, 'thread_ts');
    if (threadTs && !ctx.workspace.findMessage(channel.id, threadTs))
      throw new SlackApiError('invalid_thread_ts');
    const heading = str(args, 'title');
    ctx.workspace.agent.setPrompts({
      channel: channel.id,
      ...(threadTs ? { threadTs } : {}),
      ...(heading ? { title: heading } : {}),
      prompts: list,
    });
    return { ok: true };
  },
  'assistant.threads.setTitle': (args, ctx) => {
    requireAgentApp(ctx, 'missing_scope');
    const channel = ctx.workspace.channelForBot(required(args, 'channel_id'));
    if (!channel) throw new SlackApiError('channel_not_found');
    const threadTs = required(args, 'thread_ts');
    const text = required(args, 'title');
    if (!ctx.workspace.findMessage(channel.id, threadTs)) throw new SlackApiError('invalid_thread_ts');
    ctx.workspace.agent.updateAssistantThread(channel.id, threadTs, { title: text });
    return { ok: true };
  },
  'assistant.threads.setStatus': (args, ctx) => {
    requireAgentApp(ctx, 'missing_scope');
    const channel = ctx.workspace.channelForBot(required(args, 'channel_id'));
    if (!channel) throw new SlackApiError('channel_not_found');
    const threadTs = required(args, 'thread_ts');
    // An empty status clears it, so `status` must be present but may be ''.
    if (typeof args.status !== 'string') throw invalidArgument('missing required field: status');
    if (!ctx.workspace.findMessage(channel.id, threadTs)) throw new SlackApiError('invalid_thread_ts');
    const loading = args.loading_messages === undefined ? undefined : json(args, 'loading_messages');
    if (
      loading !== undefined &&
      (!Array.isArray(loading) || loading.length > 10 || loading.some((m) => typeof m !== 'string'))
    )
      throw invalidArgument('loading_messages must be an array of at most 10 strings');
    ctx.workspace.agent.updateAssistantThread(channel.id, threadTs, {
      status: args.status,
      ...(loading ? { loadingMessages: loading as string[] } : {}),
    });
    return { ok: true };
  },
};
