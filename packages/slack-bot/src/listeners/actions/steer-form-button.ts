import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { clickedIn, clickedValue, tell } from './respond.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** Redirect and Raise budget: a form for those who may steer, a private refusal for the rest. */
export const steerFormButton =
  (ctx: ListenerContext, which: 'redirect' | 'raise_budget') =>
  async ({ ack, body, respond, client }: Args): Promise<void> => {
    await ack();
    const result = await ctx.steering.openForm(clickedValue(body), body.user.id, which, clickedIn(body));
    if (!result.ok) await tell(respond, result.message);
    else await client.views.open({ trigger_id: body.trigger_id, view: result.view });
  };
