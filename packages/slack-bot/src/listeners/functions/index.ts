/**
 * Workflow Builder's custom steps (`function_executed`). Bolt acknowledges the event first
 * (`autoAcknowledge`); the step itself finishes later, when its session ends: the service completes it.
 */
import type { AllMiddlewareArgs, App, SlackEventMiddlewareArgs } from '@slack/bolt';
import { RUN_STEP, WAIT_STEP } from '../../services/workflows/step-inputs.js';
import type { ListenerContext } from '../context.js';

type Args = SlackEventMiddlewareArgs<'function_executed'> & AllMiddlewareArgs;

export function registerFunctions(app: App, ctx: ListenerContext): void {
  const { workflows } = ctx;
  if (!workflows) return;
  app.function(RUN_STEP, async ({ event }: Args) => {
    await workflows.run(
      event.function_execution_id,
      { ...event.inputs },
      { executionId: event.workflow_execution_id, step: event.function.title },
    );
  });
  app.function(WAIT_STEP, async ({ event }: Args) => {
    await workflows.wait(event.function_execution_id, { ...event.inputs });
  });
}
