import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { settleForm, tellLate } from './form-result.js';
import { metadataOf, textOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

/** Reject with an optional reason: claimed on submit, sent once the form has closed. */
export const rejectSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body, client }: Args): Promise<void> => {
    const reason = textOf(view, 'reason');
    const interaction = {
      ref: metadataOf(view).ref,
      userId: body.user.id,
      answer: { kind: 'reject' as const, ...(reason ? { reason } : {}) },
    };
    await settleForm(ack, ctx.answering.submitForm(interaction), tellLate(client, body.user.id, { reason }));
  };
