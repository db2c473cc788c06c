import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';

type Args = SlackEventMiddlewareArgs<'code_channel_action'> & AllMiddlewareArgs;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * A code channel's context bar action clicked (Pause/Resume, Cancel): `code_channel_action`, which
 * @slack/types does not type yet, so its fields are read one by one.
 */
export const codeChannelAction =
  (ctx: ListenerContext) =>
  async ({ event, body }: Args): Promise<void> => {
    const fields: Record<string, unknown> = { ...event };
    const channelId = str(fields.channel) ?? str(fields.channel_id);
    const userId = str(fields.user) ?? str(fields.user_id);
    const key = str(fields.key) ?? str(fields.action_key);
    if (!ctx.codeChannels || !channelId || !userId || !key) return;
    const eventId = str((body as Record<string, unknown>).event_id) ?? `${channelId}:${str(fields.event_ts)}`;
    await ctx.codeChannels.action(eventId, channelId, userId, key);
  };
