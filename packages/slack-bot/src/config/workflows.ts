/** Workflow Builder's steps: how often each replica looks whether a step's session has ended. */
import { z } from 'zod';
import type { WorkflowStepSettings } from '../services/workflows/workflow-steps.js';
import { duration } from './fields.js';

export const workflowsSchema = z.object({
  WORKFLOW_STEP_CHECK_EVERY: duration('WORKFLOW_STEP_CHECK_EVERY'),
});

export function workflowsSettings(env: z.output<typeof workflowsSchema>): {
  workflows: WorkflowStepSettings;
} {
  // A step's session is over once its report is out; the next look after that completes it in Slack.
  return { workflows: { checkMs: Math.max(100, env.WORKFLOW_STEP_CHECK_EVERY ?? 5_000) } };
}
