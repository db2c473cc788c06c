/** Service keys per workspace or person, one builder of the composition root. */
import type { AgentSessionsClient, Follower } from '@agent-sessions/core';
import { listsWorkspace } from '../services/installs/admission.js';
import type { SessionWorkspaces } from '../services/installs/scope.js';
import { type KeyLinking, type KeyParts, keyParts, keysInAppHome } from '../services/keys/index.js';
import type { BotMetrics } from '../services/ops/metrics.js';
import { serviceRequestTracer } from '../services/ops/tracing.js';
import type { SessionDirectory } from '../services/people/directory.js';
import type { HomeViews } from '../services/people/home-views.js';
import { Approvers } from '../services/people/policy.js';
import type { BotIdentity, SlackClient } from '../services/slack-out/outbound/index.js';
import { threadPlace } from '../services/slack-out/thread/index.js';
import type { Store } from '../store/index.js';
import { currentWorkspace } from '../workspace.js';
import type { Settings, SlackOut } from './types.js';

/** What the service keys are built from. */
export interface KeyDeps {
  store: Pick<Store, 'serviceKeys'>;
  /** The service's client with AGENT_API_KEY: the sessions of no key of their own. */
  client: AgentSessionsClient;
  follower: Pick<Follower, 'unfollow'>;
  /** A key gone is said in its sessions' threads. */
  out: Pick<SlackOut, 'poster'>;
  metrics: Pick<BotMetrics, 'tenantRegistry'>;
  self: () => Promise<BotIdentity>;
  scopes: Pick<SessionWorkspaces, 'of'>;
}

/** Linked in App Home, encrypted at rest, one follower budget per key; a key gone is said in the thread. */
export function serviceKeys({ config, logger, secrets }: Settings, deps: KeyDeps): KeyParts {
  const { store, client, follower, out, metrics, self, scopes } = deps;
  const lentTo = config.keys?.apiKeyTeams;
  return keyParts({
    config: config.keys,
    serviceUrl: config.service.url,
    defaultApiKey: config.service.apiKey,
    defaultClient: client,
    // Under OAuth AGENT_API_KEY is the operator's, lent only to the workspaces AGENT_API_KEY_TEAMS lists.
    ...(lentTo
      ? {
          defaultLent: () => listsWorkspace(lentTo, currentWorkspace()),
          // A workspace taken off the list stops its running sessions' spending too, not only new starts.
          lentToSession: async (sessionId: string) => listsWorkspace(lentTo, await scopes.of(sessionId)),
        }
      : {}),
    repo: store.serviceKeys,
    ownTeam: async () => (await self()).teamId,
    // Under OAuth each request is its workspace's work: a workspace's slot is that team's, not the bot's own.
    currentTeam: () => currentWorkspace()?.teamId,
    unfollow: (sessionId) => follower.unfollow(sessionId),
    notify: async (session, key, text) => {
      await out.poster.post(threadPlace(session), key, { text });
    },
    registry: metrics.tenantRegistry,
    requestsPerSecond: config.requestsPerSecond,
    logger,
    secrets,
    ...(config.telemetry.traces ? { tracer: serviceRequestTracer } : {}),
  });
}

/** App Home's key section and forms: the workspace's key managed by its admins and the bot's approvers. */
export function keyLinkingFor(
  { config, logger }: Pick<Settings, 'config' | 'logger'>,
  parts: {
    keys: KeyParts;
    slack: SlackClient;
    client: AgentSessionsClient;
    directory: SessionDirectory;
    homeViews: HomeViews;
  },
): KeyLinking {
  const { keys, slack, directory, client, homeViews } = parts;
  const approvers = new Approvers(slack, config.approvers, logger);
  return keysInAppHome({
    keys,
    slack,
    isApprover: (userId) => approvers.includes(userId),
    home: (userId, top) => directory.home(userId, undefined, top),
    homeViews,
    signup: (body, timeoutMs) => client.auth.signup(body, { timeoutMs, maxRetries: 0 }),
    logger,
  });
}
