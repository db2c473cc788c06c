/**
 * What a person does on Slack's agent surfaces, as the driver plays it: clicks the Stop button of a
 * processing session (Slack stops the thread's streams and sends `agent_session_stopped`), opens the
 * app's Messages tab (`app_home_opened` with `tab: "messages"`), and clicks a suggested prompt there
 * (the prompt becomes the person's own new message in the DM, a thread of its own in agent view).
 */

import type { StopClick } from '../agent/records.js';
import type { Workspace } from '../workspace.js';
import type { Delivery } from './bot-line.js';
import type { Obj } from './element-state.js';

type Deliver = (event: Obj) => Promise<{ eventId: string; deliveries: Delivery[] }>;

export interface StopResult {
  eventId: string;
  deliveries: Delivery[];
  /** The event as delivered. */
  event: Obj;
  click: StopClick;
}

/** The Stop button: only shown while the session is `processing`, and only when the app subscribes. */
export async function stopAgentSession(
  workspace: Workspace,
  deliver: Deliver,
  input: { channel: string; threadTs: string; user: string },
): Promise<StopResult> {
  const channel = workspace.channel(input.channel)?.id ?? input.channel;
  if (!workspace.users.has(input.user)) throw new Error(`sandbox driver: no user ${input.user}`);
  // Only someone who can see the thread sees its Stop button: anyone in a public channel, members elsewhere.
  const where = workspace.channels.get(channel);
  if (where && (where.is_im || where.is_private) && !workspace.members(channel)?.includes(input.user))
    throw new Error(`sandbox driver: ${input.user} cannot see ${channel}, so has no Stop button there`);
  const session = workspace.agent.session(channel, input.threadTs);
  if (!session) throw new Error(`sandbox driver: no agent session in ${channel} thread ${input.threadTs}`);
  if (session.status !== 'processing')
    throw new Error(
      `sandbox driver: Slack shows Stop only while processing; this session is ${session.status}`,
    );
  if (!workspace.agent.stopEventSubscribed)
    throw new Error(
      'sandbox driver: the app does not subscribe to agent_session_stopped: Slack shows no Stop button',
    );
  const click = workspace.agent.stopClicked({ channel, threadTs: input.threadTs, user: input.user });
  const event: Obj = {
    type: 'agent_session_stopped',
    channel,
    thread_ts: input.threadTs,
    user: input.user,
    streaming_message_ts: click.streamingMessageTs,
    event_ts: workspace.nextTs(),
  };
  return { ...(await deliver(event)), event, click };
}

/** The app's Messages tab opened (agent view): `app_home_opened` with `tab: "messages"` and the DM. */
export function openMessagesTab(
  workspace: Workspace,
  deliver: Deliver,
  input: { user: string },
): Promise<{ eventId: string; deliveries: Delivery[] }> {
  const dm = workspace.channel(input.user);
  if (!dm) throw new Error(`sandbox driver: no user ${input.user}`);
  return deliver({
    type: 'app_home_opened',
    user: input.user,
    channel: dm.id,
    tab: 'messages',
    event_ts: workspace.nextTs(),
  });
}

/** The text a suggested prompt posts: picked by its place in the list or by its title. */
export function suggestedPromptText(
  workspace: Workspace,
  input: { user: string; index?: number; title?: string },
): string {
  const dm = workspace.channel(input.user);
  if (!dm) throw new Error(`sandbox driver: no user ${input.user}`);
  const list = workspace.agent.prompts(dm.id)?.prompts ?? [];
  const prompt =
    input.title !== undefined ? list.find((p) => p.title === input.title) : list[input.index ?? 0];
  if (!prompt)
    throw new Error(
      `sandbox driver: no suggested prompt ${input.title ?? `#${input.index ?? 0}`} in ${dm.id} (the app set ${list.length})`,
    );
  return prompt.message;
}
