import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';

type Args = SlackEventMiddlewareArgs<'user_change'> & AllMiddlewareArgs;

/**
 * user_change: Slack sends it for every change to a member (a profile, a status); the bot reads only
 * `deleted`, which Slack sets when an admin deactivates someone. Their tokens for agent hosts are revoked
 * at once (in the store, so for every replica), without waiting for their next MCP request.
 */
export const userChanged =
  (ctx: ListenerContext) =>
  async ({ event }: Args): Promise<void> => {
    if (event.user.deleted !== true) return;
    await ctx.mcp?.left(event.user.id);
  };
