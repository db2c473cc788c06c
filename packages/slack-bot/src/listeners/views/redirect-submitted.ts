import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { settleForm } from './form-result.js';
import { metadataOf, textOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

export const redirectSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body }: Args): Promise<void> => {
    await settleForm(
      ack,
      ctx.steering.submitRedirect(metadataOf(view).ref, body.user.id, textOf(view, 'message')),
    );
  };
