/** Workflow Builder's custom steps, built beside the other parts (services.ts). */

import type { KeyParts } from '../services/keys/index.js';
import { isPublicChannelId } from '../services/people/channel-privacy.js';
import type { ActPolicy, ChannelMembers } from '../services/people/policy.js';
import type { SlackClient } from '../services/slack-out/outbound/index.js';
import { WorkflowSteps } from '../services/workflows/workflow-steps.js';
import type { Store } from '../store/index.js';
import type { Installs } from './installs.js';
import type { People, Settings, SlackOut } from './types.js';

/** What the workflow steps are built from. */
export interface WorkflowDeps {
  store: Pick<Store, 'workflowExecutions' | 'sessions'>;
  slack: SlackClient;
  out: Pick<SlackOut, 'paced' | 'chat' | 'outbound'>;
  people: Pick<People, 'starting'>;
  keys: Pick<KeyParts, 'calls' | 'service'>;
  /** OAuth installs (undefined with one bot token): a step runs only in an admitted workspace. */
  installs: Installs | undefined;
  policy: ActPolicy;
  members: Pick<ChannelMembers, 'includes'>;
}

/**
 * The steps start sessions as `/agent start` does, for the person who ran the workflow (their rights read
 * by the same members, policy and visibility as everything else), and complete in Slack with the
 * workspace's client, in their own lane of the outbound queue (Tier 3, as the agent sessions' status calls are).
 */
export function workflowSteps({ config, logger }: Settings, deps: WorkflowDeps): WorkflowSteps {
  const { store, slack, out, people, keys, installs, policy, members } = deps;
  const settings = config.workflows ?? { checkMs: 5_000 };
  return new WorkflowSteps({
    executions: store.workflowExecutions,
    sessions: store.sessions,
    starting: people.starting,
    access: {
      members,
      policy,
      // The current workspace's own bot user (auth.test with its token): the starter of a run nobody ran.
      botUserId: async () => {
        const me = await slack.auth.test();
        return typeof me.user_id === 'string' ? me.user_id : undefined;
      },
      unattended: settings.unattended ?? false,
      // Asked only of runs nobody ran: a channel Slack won't describe counts as private.
      publicChannel: (channel) =>
        isPublicChannelId(
          channel,
          (id) => slack.conversations.info({ channel: id }),
          (error) =>
            logger.warn({ err: error, channel }, "could not tell a workflow's channel's privacy: private"),
        ),
    },
    readSession: (sessionId) => keys.calls.sessions.get(sessionId),
    // Opened at once with the step's own interactivity pointer (short-lived, like a trigger_id): not queued.
    confirmation: {
      open: (pointer, view) => slack.views.open({ interactivity_pointer: pointer, view }),
      personalKeys: keys.service.mode === 'per-person',
    },
    slack: { functions: out.paced.functions, chat: slack.chat },
    chat: out.chat,
    send: (method, call) =>
      out.outbound.run({ channel: 'workflow-steps', priority: 'outcome', method, run: call }),
    ...(installs
      ? { admitted: (workspace) => installs.admission.check(workspace, 'its workflow steps') }
      : {}),
    isolated: installs !== undefined,
    settings,
    logger: logger.child({ component: 'workflows' }),
  });
}
