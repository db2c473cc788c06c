/**
 * Workflow Builder's steps: how often each replica looks whether a step's session has ended, how long a
 * step waits, how long a completed one's row is kept, and whether a run nobody ran may start a session.
 */
import { z } from 'zod';
import {
  DEFAULT_DEADLINE_MS,
  DEFAULT_RETENTION_MS,
  type WorkflowStepSettings,
} from '../services/workflows/workflow-steps.js';
import { blankAsUnset, duration } from './fields.js';

export const workflowsSchema = z.object({
  WORKFLOW_STEP_CHECK_EVERY: duration('WORKFLOW_STEP_CHECK_EVERY'),
  WORKFLOW_STEP_DEADLINE: duration('WORKFLOW_STEP_DEADLINE').refine((ms) => ms === undefined || ms >= 1_000, {
    error: 'WORKFLOW_STEP_DEADLINE must be at least 1s',
  }),
  WORKFLOW_STEP_RETENTION: duration('WORKFLOW_STEP_RETENTION').refine(
    (ms) => ms === undefined || ms >= 3_600_000,
    // Slack may deliver an execution again for a while: its row must outlive that, or it would start twice.
    { error: 'WORKFLOW_STEP_RETENTION must be at least 1h' },
  ),
  WORKFLOW_UNATTENDED_RUNS: blankAsUnset(
    z.enum(['true', 'false'], { error: 'WORKFLOW_UNATTENDED_RUNS must be true or false' }).default('false'),
  ),
});

export function workflowsSettings(env: z.output<typeof workflowsSchema>): {
  workflows: WorkflowStepSettings;
} {
  return {
    workflows: {
      // A step's session is over once its report is out; the next look after that completes it in Slack.
      checkMs: Math.max(100, env.WORKFLOW_STEP_CHECK_EVERY ?? 5_000),
      deadlineMs: env.WORKFLOW_STEP_DEADLINE ?? DEFAULT_DEADLINE_MS,
      retentionMs: env.WORKFLOW_STEP_RETENTION ?? DEFAULT_RETENTION_MS,
      unattended: env.WORKFLOW_UNATTENDED_RUNS === 'true',
    },
  };
}
