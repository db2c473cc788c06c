import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { settleForm, tellLate } from './form-result.js';
import { formValues } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

/**
 * The service key forms: the key (or the new account's) checked with the service before it is kept;
 * a problem is shown under its field and the form stays open. What the key is for comes from who
 * submitted, not from the form's metadata.
 */
export const keySubmitted =
  (ctx: ListenerContext, which: 'link' | 'signup') =>
  async ({ ack, view, body, client }: Args): Promise<void> => {
    const keys = ctx.keys;
    if (!keys) {
      await ack();
      return;
    }
    const values = formValues(view);
    await settleForm(
      ack,
      which === 'link' ? keys.submitLink(body.user.id, values) : keys.submitSignup(body.user.id, values),
      // A key or a password is a secret: a refusal that comes late repeats only the signup's email.
      tellLate(client, body.user.id, which === 'signup' ? { email: values.email } : {}),
    );
  };
