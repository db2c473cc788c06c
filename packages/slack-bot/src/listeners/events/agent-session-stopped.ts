import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';

type Args = SlackEventMiddlewareArgs<'agent_session_stopped'> & AllMiddlewareArgs;

/** Slack's Stop button on a session's thread: a cancel, checked as the card's Cancel is. */
export const agentSessionStopped =
  (ctx: ListenerContext) =>
  async ({ event, body }: Args): Promise<void> => {
    await ctx.stopping.stop({
      eventId: body.event_id ?? `stop:${event.channel}:${event.thread_ts}:${event.event_ts}`,
      channelId: event.channel,
      threadTs: event.thread_ts,
      userId: event.user,
    });
  };
