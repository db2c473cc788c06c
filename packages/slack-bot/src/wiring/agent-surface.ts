/**
 * Slack's agent surfaces: the surface choice, sessions as Slack's
 * agent sessions, the Stop button, the Messages tab, and a channel's defaults.
 */
import type { Follower } from '@agent-sessions/core';
import { UNREACHABLE_STATUS } from '../blocks/session-card.js';
import { DEFAULT_SUGGESTED_PROMPTS } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { SessionWorkspaces } from '../services/installs/scope.js';
import { applyChannelDefaults, ChannelSettingsService } from '../services/people/channel-settings.js';
import { MessagesTab } from '../services/people/messages-tab.js';
import { Approvers } from '../services/people/policy.js';
import type { StartInput } from '../services/people/starting.js';
import type { SteeringService } from '../services/people/steering.js';
import { StopService } from '../services/people/stopping.js';
import {
  AgentSessions,
  notMemberNotice,
  WorkspaceSurfaces,
} from '../services/slack-out/agent-surface/index.js';
import type { BotIdentity, OutboundQueue, SlackClient } from '../services/slack-out/outbound/index.js';
import type { Notifier } from '../services/slack-out/thread/index.js';
import type { Store } from '../store/index.js';
import { workspaceKey } from '../workspace.js';
import type { AgentParts, Settings } from './types.js';

/** AGENT_SLACK_SURFACE: built first, as /healthz shows it. */
export function slackSurface({ config, logger }: Settings): WorkspaceSurfaces {
  return new WorkspaceSurfaces(
    config.agent.surface,
    logger.child({ component: 'surface' }),
    undefined,
    config.agent.surfaceRetryMs,
  );
}

/** Sessions as Slack's agent sessions (status on every change), the Messages tab, channel defaults. */
export function agentParts(
  { config, logger }: Settings,
  parts: {
    surface: WorkspaceSurfaces;
    store: Store;
    out: { paced: SlackClient; outbound: OutboundQueue };
    follower: Pick<Follower, 'on'>;
    /** Runs work as a session's workspace's (its surface, its token). */
    scopes: Pick<SessionWorkspaces, 'run'>;
    /** Who the bot is: named in the notice to invite it. */
    self: () => Promise<BotIdentity>;
  },
): AgentParts {
  const { surface, store, out, follower, scopes, self } = parts;
  const log = logger.child({ component: 'agent-surface' });
  const sessions = new AgentSessions({
    slack: out.paced,
    outbound: out.outbound,
    surface,
    sessions: store.sessions,
    logger: log,
    lastPolled: async (sessionId) => (await store.followState.load(sessionId))?.status,
    runAs: (sessionId, fn) => scopes.run(sessionId, fn),
    notMember: async (session) => {
      const text = notMemberNotice(session.channelId, (await self().catch(() => undefined))?.userId);
      const channel = session.channelId;
      const user = session.startedBy;
      // An ephemeral in a channel the bot is not in may be refused too: then the app's DM says it.
      await out.paced.chat
        .postEphemeral({ channel, user, text })
        .catch(() => out.paced.chat.postMessage({ channel: user, text }));
    },
  });
  // auto tried agent sessions again in a workspace: its sessions followed meanwhile get their status.
  surface.onAgain((workspace) => sessions.resyncAll(workspace));
  // The replica following a session tells Slack of each change of its status.
  follower.on('status', (event) => sessions.status(event.sessionId, event.status));
  follower.on('error', (event) => {
    if (event.fatal) sessions.status(event.sessionId, UNREACHABLE_STATUS);
  });
  const messagesTab = new MessagesTab({
    slack: out.paced,
    outbound: out.outbound,
    surface,
    prompts: config.agent.suggestedPrompts ?? DEFAULT_SUGGESTED_PROMPTS,
    logger: log,
  });
  surface.announce();
  return { surface, sessions, messagesTab };
}

/** A new session: Slack's agent session starts (processing), then follows the service's status. */
export const agentStarted = (agent: AgentParts) => (sessionId: string) =>
  agent.sessions.status(sessionId, 'queued');

/** The service's status a signal it took leads to, shown at once rather than at the next poll. */
const AFTER_SIGNAL: Record<string, string> = {
  pause: 'paused',
  resume: 'running',
  cancel: 'cancelled',
  redirect: 'running',
};

/** A signal the service took: Slack shows its effect at once; a redirect renames the session. */
export const agentSignalled =
  (agent: AgentParts) =>
  (sessionId: string, kind: string, extra: { message?: string }): void => {
    const status = AFTER_SIGNAL[kind];
    if (status) agent.sessions.status(sessionId, status);
    if (kind === 'redirect' && extra.message) agent.sessions.rename(sessionId, extra.message);
  };

/** An answer the service took: the agent works again. */
export const agentAnswered = (agent: AgentParts) => (sessionId: string) =>
  agent.sessions.status(sessionId, 'running');

/** What people do on the agent surfaces: a channel's defaults, Slack's Stop button (built with steering). */
export function agentPeople(
  { config, logger }: Pick<Settings, 'config' | 'logger'>,
  parts: {
    agent: AgentParts;
    slack: SlackClient;
    store: Store;
    steering: Pick<SteeringService, 'signal'>;
    notifier: Notifier;
  },
) {
  const { agent, slack, store, steering, notifier } = parts;
  const log = logger.child({ component: 'agent-surface' });
  const channelSettings = new ChannelSettingsService({
    settings: store.channelSettings,
    approvers: new Approvers(slack, config.approvers, log),
    notifier,
    logger: log,
    ...(config.approvals.maxBudget === undefined ? {} : { maxBudget: config.approvals.maxBudget }),
  });
  const stopping = new StopService({
    events: store.events,
    sessions: store.sessions,
    steering,
    agentSessions: agent.sessions,
    notifier,
    logger: log,
  });
  /** The start input with its channel's defaults, and the card's word on which were applied. */
  const withDefaults = async (input: StartInput): Promise<StartInput> => {
    const { input: filled, applied } = applyChannelDefaults(
      input,
      await channelSettings.defaults(input.channelId),
    );
    if (!applied) return filled;
    return { ...filled, origin: filled.origin ? `${filled.origin} · ${applied}` : applied };
  };
  return { channelSettings, stopping, withDefaults };
}

/**
 * Channel defaults the migration could not place (saved by an older version, naming no workspace, with
 * no installation to give them to): a bot with one token takes them as its own workspace's; a bot serving
 * several workspaces (OAuth) drops them, since none can claim them, with a log line. Left for the next
 * start when Slack can't say who the bot is.
 */
export async function placeChannelSettings(
  store: Pick<Store, 'channelSettings'>,
  parts: { oauth: boolean; self: () => Promise<BotIdentity>; logger: Logger },
): Promise<void> {
  const { logger } = parts;
  let workspace: string | undefined;
  if (!parts.oauth) {
    try {
      workspace = workspaceKey(await parts.self());
    } catch (error) {
      logger.warn({ err: error }, 'auth.test failed; unplaced channel defaults are placed at the next start');
      return;
    }
    if (workspace === undefined) return;
  }
  const { adopted, dropped } = await store.channelSettings.adoptUnplaced(workspace);
  if (adopted > 0)
    logger.info({ adopted, workspace }, "unplaced channel defaults given to the bot's workspace");
  if (dropped > 0)
    logger.warn(
      { dropped },
      'unplaced channel defaults dropped: no single workspace can claim them (set them again with /agent settings)',
    );
}
