import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { clickedIn, clickedValue, tell } from './respond.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** Reject and Answer open a form; who may answer and whether it is still open are checked first. */
export const answerFormButton =
  (ctx: ListenerContext) =>
  async ({ ack, body, respond, client }: Args): Promise<void> => {
    await ack();
    const ref = clickedValue(body);
    if (!ref) return;
    const result = await ctx.answering.openForm(ref, body.user.id, clickedIn(body));
    if (!result.ok) await tell(respond, result.message);
    else await client.views.open({ trigger_id: body.trigger_id, view: result.view });
  };
