/** Workflow Builder's custom steps, built beside wiring.ts's parts. */
import { WorkflowSteps } from './services/workflows/workflow-steps.js';
import type { Parts, Settings } from './wiring-types.js';

/** The steps start sessions as `/agent start` does, and complete in Slack with the workspace's client. */
export function workflowSteps(
  { config, logger }: Settings,
  parts: Pick<Parts, 'store' | 'slack' | 'people' | 'keys' | 'installs'>,
): WorkflowSteps {
  const { store, slack, people, keys, installs } = parts;
  return new WorkflowSteps({
    executions: store.workflowExecutions,
    sessions: store.sessions,
    starting: people.starting,
    // The session's own key, whoever started the workflow.
    readSession: (sessionId) => keys.calls.sessions.get(sessionId),
    slack,
    isolated: installs !== undefined,
    settings: config.workflows ?? { checkMs: 5_000 },
    logger: logger.child({ component: 'workflows' }),
  });
}
