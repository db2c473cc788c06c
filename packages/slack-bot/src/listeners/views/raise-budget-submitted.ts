import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { settleForm } from './form-result.js';
import { metadataOf, textOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

export const raiseBudgetSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body }: Args): Promise<void> => {
    const { ref, spend } = metadataOf(view);
    await settleForm(ack, ctx.steering.submitBudget(ref, body.user.id, textOf(view, 'budget'), spend));
  };
