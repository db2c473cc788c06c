import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/**
 * App Home's agent host buttons: Connect makes a token and shows it once in a modal; Revoke revokes one
 * of the clicker's own (the service checks whose it is); Revoke all, an admin's, every token of the
 * person the button names (the service checks the clicker is an admin). A refusal goes to the app's DM.
 */
export const mcpButton =
  (ctx: ListenerContext, which: 'connect' | 'revoke' | 'revokePerson') =>
  async ({ ack, body, action, client }: Args): Promise<void> => {
    await ack();
    const mcp = ctx.mcp;
    if (!mcp) return;
    const userId = body.user.id;
    if (which !== 'connect') {
      const value = 'value' in action && typeof action.value === 'string' ? action.value : undefined;
      const revoked =
        which === 'revoke' ? await mcp.revoke(userId, value) : await mcp.revokePerson(userId, value);
      if (!revoked.ok) await client.chat.postMessage({ channel: userId, text: `⚠️ ${revoked.message}` });
      return;
    }
    const made = await mcp.connect(userId);
    if (!made.ok) await client.chat.postMessage({ channel: userId, text: `⚠️ ${made.message}` });
    else await client.views.open({ trigger_id: body.trigger_id, view: made.view });
  };
