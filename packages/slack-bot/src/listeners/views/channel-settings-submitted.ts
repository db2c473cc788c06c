import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { settleForm } from './form-result.js';
import { formValues, metadataOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

/** `/agent settings`' form: each field checked (errors under it, the form kept open), then saved. */
export const channelSettingsSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body }: Args): Promise<void> => {
    await settleForm(
      ack,
      ctx.channelSettings.submitForm(metadataOf(view).channelId, body.user.id, formValues(view)),
    );
  };
