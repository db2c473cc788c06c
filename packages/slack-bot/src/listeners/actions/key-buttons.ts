import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/**
 * App Home's service key buttons: Link a key / Create an account open their form, Remove removes. The
 * key's slot is the clicker's own or their workspace's (the service decides from who clicked, never from
 * the button's value). A refusal goes to the app's DM: a Home tab click has nowhere else to answer.
 */
export const keyButton =
  (ctx: ListenerContext, which: 'link' | 'signup' | 'remove') =>
  async ({ ack, body, client }: Args): Promise<void> => {
    await ack();
    const keys = ctx.keys;
    if (!keys) return;
    const userId = body.user.id;
    if (which === 'remove') {
      const removed = await keys.remove(userId);
      if (!removed.ok) await client.chat.postMessage({ channel: userId, text: `⚠️ ${removed.message}` });
      return;
    }
    const form = await keys.openForm(which, userId);
    if (!form.ok) await client.chat.postMessage({ channel: userId, text: `⚠️ ${form.message}` });
    else await client.views.open({ trigger_id: body.trigger_id, view: form.view });
  };
