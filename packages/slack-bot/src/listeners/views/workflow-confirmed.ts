import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { confirmedExecutionOf, confirmGoneView } from '../../blocks/workflow-confirm.js';
import type { ListenerContext } from '../context.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

/**
 * "Start" in a workflow step's confirmation: the step's session starts for the person who answered, if
 * the step still waits for their answer; else the modal says it no longer does. Slack is answered first
 * (within its 3 s), the session started after.
 */
export const workflowConfirmed =
  (ctx: ListenerContext) =>
  async ({ ack, view, body }: Args): Promise<void> => {
    const executionId = confirmedExecutionOf(view.private_metadata);
    if (!ctx.workflows || !executionId) {
      await ack({ response_action: 'update', view: confirmGoneView() });
      return;
    }
    await ctx.workflows.confirm(executionId, body.user.id, (waited) =>
      waited ? ack() : ack({ response_action: 'update', view: confirmGoneView() }),
    );
  };
