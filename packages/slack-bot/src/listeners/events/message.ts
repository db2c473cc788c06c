import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { IncomingMessage } from '../../services/people/conversation.js';
import type { ListenerContext } from '../context.js';

type MessageArgs = SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs;
type MentionArgs = SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs;

/** Subtypes that are still a person writing; the rest (edits, deletions, joins, bots) are left alone. */
const PERSON_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

type Fields = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The raw event's fields a conversation needs, or undefined when it is not a person's message. */
export function incomingOf(
  event: Fields,
  body: Fields,
  botUserId: string | undefined,
): IncomingMessage | undefined {
  if (!PERSON_SUBTYPES.has(str(event.subtype))) return undefined;
  const userId = str(event.user);
  const channelId = str(event.channel);
  const ts = str(event.ts);
  // Bots (ours included: Bolt's ignoreSelf is not the only guard) never steer a session.
  if (!userId || !channelId || !ts || event.bot_id !== undefined || userId === botUserId) return undefined;
  return {
    eventId: str(body.event_id) ?? `${channelId}:${ts}`,
    teamId: str(body.team_id) ?? str(event.team) ?? '',
    channelId,
    channelType: str(event.channel_type),
    userId,
    text: str(event.text) ?? '',
    ts,
    threadTs: str(event.thread_ts),
    botUserId,
  };
}

/**
 * `message.channels`, `.groups`, `.im` (thread replies, DMs, mentions) and `app_mention` (the same
 * message as its `message` event, when both come; the service handles it once): one handler for both.
 */
const personWrote =
  (ctx: ListenerContext) =>
  async ({ event, body, context }: MessageArgs | MentionArgs): Promise<void> => {
    const incoming = incomingOf({ ...event }, { ...body }, context.botUserId);
    if (incoming) await ctx.conversation.handle(incoming);
  };

export const messageReceived = personWrote;
export const appMentioned = personWrote;
