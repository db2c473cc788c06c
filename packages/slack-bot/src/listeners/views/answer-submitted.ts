import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { settleForm } from './form-result.js';
import { formValues, metadataOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

/** The answer form (free text, several questions): claimed on submit, sent once the form has closed. */
export const answerSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body }: Args): Promise<void> => {
    const interaction = {
      ref: metadataOf(view).ref,
      userId: body.user.id,
      answer: { kind: 'form' as const, values: formValues(view) },
    };
    await settleForm(ack, await ctx.answering.submitForm(interaction));
  };
