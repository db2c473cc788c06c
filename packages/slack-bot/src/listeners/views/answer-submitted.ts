import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { settleForm, tellLate } from './form-result.js';
import { formValues, metadataOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

/** The answer form (free text, several questions): claimed on submit, sent once the form has closed. */
export const answerSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body, client }: Args): Promise<void> => {
    const values = formValues(view);
    const interaction = {
      ref: metadataOf(view).ref,
      userId: body.user.id,
      answer: { kind: 'form' as const, values },
    };
    await settleForm(ack, ctx.answering.submitForm(interaction), tellLate(client, body.user.id, values));
  };
