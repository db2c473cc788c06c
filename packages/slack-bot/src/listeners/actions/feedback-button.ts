import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { tell } from './respond.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** 👍/👎 under a report (`feedback_buttons`): the pressed button's value, in the report's thread. */
export const feedbackButton =
  (ctx: ListenerContext) =>
  async ({ ack, body, respond }: Args): Promise<void> => {
    await ack();
    const action: Record<string, unknown> = { ...body.actions[0] };
    const container: Record<string, unknown> = { ...body.container };
    const message: Record<string, unknown> = { ...body.message };
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const result = await ctx.feedback.record({
      channelId: str(container.channel_id) ?? body.channel?.id,
      threadTs: str(container.thread_ts) ?? str(message.thread_ts),
      userId: body.user.id,
      value: str(action.value),
    });
    await tell(respond, result.ok ? result.message : `⚠️ ${result.message}`);
  };
