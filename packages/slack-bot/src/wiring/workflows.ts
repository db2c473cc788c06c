/** Workflow Builder's custom steps, built beside the other parts (services.ts). */
import { sessionReader } from '../services/workflows/session-reader.js';
import { WorkflowSteps } from '../services/workflows/workflow-steps.js';
import type { Parts, Settings } from './types.js';

/**
 * The steps start sessions as `/agent start` does, and complete in Slack with the workspace's client, in
 * their own lane of the outbound queue (Tier 3, as the agent sessions' status calls are).
 */
export function workflowSteps(
  { config, logger }: Settings,
  parts: Pick<Parts, 'store' | 'slack' | 'out' | 'people' | 'keys' | 'installs'>,
): WorkflowSteps {
  const { store, slack, out, people, keys, installs } = parts;
  return new WorkflowSteps({
    executions: store.workflowExecutions,
    sessions: store.sessions,
    starting: people.starting,
    readSession: sessionReader(
      { calls: keys.calls, forStart: (userId) => keys.service.forStart(userId) },
      installs !== undefined,
    ),
    slack: { functions: out.paced.functions, chat: slack.chat },
    send: (call) =>
      out.outbound.run({ channel: 'workflow-steps', priority: 'outcome', method: 'tier3', run: call }),
    isolated: installs !== undefined,
    settings: config.workflows ?? { checkMs: 5_000 },
    logger: logger.child({ component: 'workflows' }),
  });
}
