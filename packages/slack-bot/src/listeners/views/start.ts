import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { metadataOf, textOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

/** The start form: every field checked, each problem shown under its input, nothing typed lost. */
export const startSubmitted =
  (ctx: ListenerContext) =>
  async ({ ack, view, body, client }: Args): Promise<void> => {
    const { channelId } = metadataOf<{ channelId: string }>(view);
    const errors: Record<string, string> = {};
    const goal = textOf(view, 'goal');
    if (!goal) errors.goal = 'Tell the agent what to do';
    const budgetText = textOf(view, 'budget');
    const budget = budgetText === undefined ? undefined : Number(budgetText.replace(/^\$/, ''));
    if (budget !== undefined && !(Number.isFinite(budget) && budget > 0)) {
      errors.budget = 'The budget must be a positive number of USD, like 5 or 2.50';
    }
    const iterationsText = textOf(view, 'max_iterations');
    const maxIterations = iterationsText === undefined ? undefined : Number(iterationsText);
    if (maxIterations !== undefined && !(Number.isInteger(maxIterations) && maxIterations > 0)) {
      errors.max_iterations = 'Max iterations must be a whole number above 0';
    }
    const contextText = textOf(view, 'context');
    let context: Record<string, unknown> | undefined;
    if (contextText !== undefined) {
      try {
        const parsed: unknown = JSON.parse(contextText);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
          errors.context = 'The context must be a JSON object, like {"repo": "acme/api"}';
        } else context = parsed as Record<string, unknown>;
      } catch (error) {
        errors.context = `Not valid JSON: ${(error as Error).message}`.slice(0, 150);
      }
    }
    if (!channelId) errors.goal = 'This form lost its channel; run /agent start again';
    if (Object.keys(errors).length > 0 || !goal || !channelId) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    const result = await ctx.sessions.start({
      channelId,
      userId: body.user.id,
      goal,
      ...(budget === undefined ? {} : { budget }),
      ...(maxIterations === undefined ? {} : { maxIterations }),
      ...(context ? { context } : {}),
    });
    if (!result.ok) {
      const text = `⚠️ ${result.message}`;
      await client.chat
        .postEphemeral({ channel: channelId, user: body.user.id, text })
        // Where the bot may not post (often why it failed), the person hears it in the app's DM.
        .catch(() => client.chat.postMessage({ channel: body.user.id, text }));
    }
  };
