import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { homeView } from '../../blocks/home.js';
import type { ListenerContext } from '../context.js';

type Args = SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs;

/** The Home tab: the viewer's own sessions, newest first. */
export const appHomeOpened =
  (ctx: ListenerContext) =>
  async ({ event, client, body }: Args): Promise<void> => {
    if (event.tab !== 'home') return;
    // Slack re-delivers events it thinks were missed; publish once per event.
    const eventId = (body as { event_id?: string }).event_id;
    if (eventId && !(await ctx.store.markEventProcessed(eventId))) return;
    const sessions = await ctx.store.listSessions({ startedBy: event.user, limit: 50 });
    await client.views.publish({ user_id: event.user, view: homeView(sessions) as never });
  };
