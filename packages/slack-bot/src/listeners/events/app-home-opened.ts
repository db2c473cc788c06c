import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { viewHashOf } from '../../services/people/home-views.js';
import type { ListenerContext } from '../context.js';

type Args = SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs;

/**
 * The Home tab: the service key, the agent hosts, the viewer's own sessions, newest first (once per event:
 * Slack re-delivers). The Messages tab (agent view): suggested prompts.
 */
export const appHomeOpened =
  (ctx: ListenerContext) =>
  async ({ event, body }: Args): Promise<void> => {
    if (event.tab === 'messages') return ctx.messagesTab.opened(event.user, event.channel);
    if (event.tab !== 'home') return;
    // Published with the hash Slack sent with the Home, taken before anything is read: a key removed or a
    // token revoked meanwhile publishes its own Home, which Slack then keeps over this one (hash_conflict,
    // and this one is drawn again). The event is marked processed on the first draw only.
    let eventId: string | undefined = body.event_id;
    const draw = async () => {
      const once = eventId;
      eventId = undefined;
      const [keys, hosts] = await Promise.all([
        ctx.keys?.homeBlocks(event.user),
        ctx.mcp?.homeBlocks(event.user),
      ]);
      return ctx.directory.home(event.user, once, [...(keys ?? []), ...(hosts ?? [])]);
    };
    const hash = viewHashOf(event.view);
    const view = await ctx.homeViews.publish(event.user, draw, hash ? { hash } : {});
    // From now on each change of a session it shows is published to it (coalesced).
    if (view) ctx.homes?.opened(event.user);
  };
