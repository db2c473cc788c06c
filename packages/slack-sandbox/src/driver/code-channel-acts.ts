/**
 * What a person does in a code channel, as the driver plays it: clicks an `action` item of its context
 * bar (Slack sends the agent a `code_channel_action` event) or runs one of the agent's channel commands
 * (Slack sends the invocation as a slash command to the app). Each is refused as Slack's client would
 * not offer it: no such item or command, an archived channel, someone outside the channel.
 */

import type { CodeChannelRecord } from '../agent/code-channels.js';
import type { Workspace } from '../workspace.js';
import type { Delivery } from './bot-line.js';
import type { Obj } from './element-state.js';

type Deliver = (event: Obj) => Promise<{ eventId: string; deliveries: Delivery[] }>;

/** The code channel a person acts in, open and with them in it. */
export function codeChannelFor(workspace: Workspace, channel: string, user: string): CodeChannelRecord {
  const record = workspace.codeChannels.get(channel);
  if (!record) throw new Error(`sandbox driver: ${channel} is not a code channel`);
  if (record.archived) throw new Error(`sandbox driver: ${channel} is archived`);
  if (!workspace.users.has(user)) throw new Error(`sandbox driver: no user ${user}`);
  if (!workspace.members(channel)?.includes(user))
    throw new Error(`sandbox driver: ${user} is not in ${channel}`);
  return record;
}

/** A context bar item of type `action`, clicked: the `code_channel_action` event. */
export async function clickContextAction(
  workspace: Workspace,
  deliver: Deliver,
  input: { channel: string; key: string; user: string },
): Promise<{ eventId: string; deliveries: Delivery[]; event: Obj }> {
  const record = codeChannelFor(workspace, input.channel, input.user);
  const item = record.contextBar.find((i) => i.key === input.key);
  if (!item) throw new Error(`sandbox driver: no context bar item ${input.key} in ${input.channel}`);
  if (item.item_type !== 'action')
    throw new Error(`sandbox driver: ${input.key} is an info item: clicking it sends nothing`);
  workspace.codeChannels.acted({
    kind: 'action',
    channel: record.channelId,
    user: input.user,
    name: item.key,
  });
  const event: Obj = {
    type: 'code_channel_action',
    channel: record.channelId,
    user: input.user,
    key: item.key,
    ...(record.sessionId ? { session_id: record.sessionId } : {}),
    event_ts: workspace.nextTs(),
  };
  return { ...(await deliver(event)), event };
}
