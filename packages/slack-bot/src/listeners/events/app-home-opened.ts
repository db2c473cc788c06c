import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';

type Args = SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs;

/**
 * The Home tab: the service key, the viewer's own sessions, newest first (once per event: Slack
 * re-delivers). The Messages tab (agent view): suggested prompts.
 */
export const appHomeOpened =
  (ctx: ListenerContext) =>
  async ({ event, client, body }: Args): Promise<void> => {
    if (event.tab === 'messages') return ctx.messagesTab.opened(event.user, event.channel);
    if (event.tab !== 'home') return;
    // The service key section first: which key the viewer's sessions run under.
    const top = (await ctx.keys?.homeBlocks(event.user)) ?? [];
    const view = await ctx.directory.home(event.user, body.event_id, top);
    if (!view) return;
    await client.views.publish({ user_id: event.user, view });
    // From now on each change of a session it shows is published to it (coalesced).
    ctx.homes?.opened(event.user, view);
  };
