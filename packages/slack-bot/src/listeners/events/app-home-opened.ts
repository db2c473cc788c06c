import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';

type Args = SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs;

/**
 * The Home tab: the viewer's own sessions, newest first (once per event: Slack re-delivers). The Messages
 * tab (agent view, #23): suggested prompts.
 */
export const appHomeOpened =
  (ctx: ListenerContext) =>
  async ({ event, client, body }: Args): Promise<void> => {
    if (event.tab === 'messages') return ctx.messagesTab.opened(event.user, event.channel);
    if (event.tab !== 'home') return;
    const view = await ctx.directory.home(event.user, body.event_id);
    if (view) await client.views.publish({ user_id: event.user, view });
  };
