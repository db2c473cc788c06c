import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewClosedAction } from '@slack/bolt';
import { VIEWS } from '../../blocks/ids.js';
import { confirmedExecutionOf } from '../../blocks/workflow-confirm.js';
import type { ListenerContext } from '../context.js';

type Args = SlackViewMiddlewareArgs<ViewClosedAction> & AllMiddlewareArgs;

/**
 * A modal closed with its X or Cancel. Only a workflow step's confirmation asks to be told
 * (`notify_on_close`): closing it declines the step's session. Any other closed form leaves nothing to
 * undo; but a `view_closed` that does arrive must still be acknowledged, or Slack counts the request as
 * failed and Bolt logs an error three seconds later. One listener for all of them: Bolt runs every
 * listener that matches, and a second acknowledgement is an error.
 */
export const viewClosed =
  (ctx: Pick<ListenerContext, 'workflows'>) =>
  async ({ ack, view, body }: Args): Promise<void> => {
    await ack();
    if (view.callback_id !== VIEWS.workflowConfirm) return;
    const executionId = confirmedExecutionOf(view.private_metadata);
    if (executionId) await ctx.workflows?.decline(executionId, body.user.id);
  };
