/** The message events Slack sends a bot, shaped from the workspace's messages, and a message's rich text. */

import type { SandboxMessage, Workspace } from '../workspace.js';
import type { Obj } from './element-state.js';

/** A message's text as the rich_text elements a Slack client sends with it (mentions and links kept). */
export function richTextOf(text: string): Obj[] {
  const out: Obj[] = [];
  const pattern = /<@([UW][A-Z0-9]+)>|<#([CG][A-Z0-9]+)(?:\|[^>]*)?>|<(https?:[^>|]+)(?:\|([^>]*))?>/g;
  let last = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > last) out.push({ type: 'text', text: text.slice(last, m.index) });
    if (m[1]) out.push({ type: 'user', user_id: m[1] });
    else if (m[2]) out.push({ type: 'channel', channel_id: m[2] });
    else out.push({ type: 'link', url: m[3], ...(m[4] ? { text: m[4] } : {}) });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ type: 'text', text: text.slice(last) });
  return out;
}

/** Which `message.*` subscription a channel's messages come under. */
function channelType(workspace: Workspace, channelId: string): 'channel' | 'group' | 'im' {
  const channel = workspace.channels.get(channelId);
  if (channel?.is_im) return 'im';
  return channel?.is_private ? 'group' : 'channel';
}

/** A message event's body, as Slack shapes it for a person's or a bot's message. */
export function messageEventOf(workspace: Workspace, message: SandboxMessage): Obj {
  const parent = message.thread_ts ? workspace.findMessage(message.channel, message.thread_ts) : undefined;
  const { reactions, ...rest } = message;
  return {
    ...rest,
    team: workspace.seed.teamId,
    event_ts: message.ts,
    channel_type: channelType(workspace, message.channel),
    ...(parent && parent.ts !== message.ts ? { parent_user_id: parent.user ?? parent.bot_id } : {}),
  };
}

/** `message_changed` as Slack sends an edit: the message as it is now, and for a person's edit as it was. */
export function messageChangedEvent(
  workspace: Workspace,
  message: SandboxMessage,
  ts: string,
  eventTs: string | undefined,
  previous?: SandboxMessage,
): Obj {
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: message.channel,
    channel_type: channelType(workspace, message.channel),
    ts,
    event_ts: eventTs,
    message: { ...message, reactions: undefined },
    ...(previous ? { previous_message: { ...previous, reactions: undefined } } : {}),
  };
}
