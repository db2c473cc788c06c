import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { settleForm } from './form-result.js';
import { formValues, metadataOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

/** The start form: checked (problems shown under their inputs), then the session is started. */
export const startSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body }: Args): Promise<void> => {
    await settleForm(
      ack,
      ctx.starting.submitForm(metadataOf(view).channelId, body.user.id, formValues(view)),
    );
  };
