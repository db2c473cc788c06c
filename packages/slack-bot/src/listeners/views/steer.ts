import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { metadataOf, textOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

/** Failures after the form closed go to the person privately, with what they typed so it isn't lost. */
async function tellAfterClose(
  ctx: ListenerContext,
  client: Args['client'],
  sessionId: string,
  userId: string,
  text: string,
): Promise<void> {
  const session = await ctx.store.getSession(sessionId);
  if (!session) return;
  await client.chat.postEphemeral({ channel: session.channelId, user: userId, text });
}

export const redirectSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body, client }: Args): Promise<void> => {
    const { sessionId } = metadataOf<{ sessionId: string }>(view);
    const message = textOf(view, 'message');
    if (!message) {
      await ack({ response_action: 'errors', errors: { message: 'Tell the agent where to go instead' } });
      return;
    }
    if (!sessionId) {
      await ack({ response_action: 'errors', errors: { message: 'This form lost its session; try again' } });
      return;
    }
    await ack();
    const result = await ctx.sessions.signal(sessionId, body.user.id, 'redirect', { message });
    if (!result.ok) {
      await tellAfterClose(
        ctx,
        client,
        sessionId,
        body.user.id,
        `⚠️ ${result.message}\nWhat you wrote:\n> ${message}`,
      );
    }
  };

export const raiseBudgetSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body, client }: Args): Promise<void> => {
    const { sessionId, spend } = metadataOf<{ sessionId: string; spend: number }>(view);
    const raw = textOf(view, 'budget');
    const budget = raw === undefined ? Number.NaN : Number(raw.replace(/^\$/, ''));
    const spent = typeof spend === 'number' ? spend : 0;
    let error: string | undefined;
    if (raw === undefined) error = 'Enter the new budget in USD';
    else if (!(Number.isFinite(budget) && budget > 0)) error = 'The budget must be a positive number of USD';
    else if (budget <= spent)
      error = `The new budget must be more than the $${spent.toFixed(2)} already spent`;
    if (error || !sessionId) {
      await ack({
        response_action: 'errors',
        errors: { budget: error ?? 'This form lost its session; try again' },
      });
      return;
    }
    await ack();
    const result = await ctx.sessions.signal(sessionId, body.user.id, 'resume', { newBudget: budget });
    if (!result.ok) await tellAfterClose(ctx, client, sessionId, body.user.id, `⚠️ ${result.message}`);
  };
