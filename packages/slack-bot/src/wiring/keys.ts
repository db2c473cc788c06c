/** Service keys per workspace or person, one builder of the composition root. */
import { listsWorkspace } from '../services/installs/admission.js';
import { type KeyLinking, type KeyParts, keyParts, keysInAppHome } from '../services/keys/index.js';
import { serviceRequestTracer } from '../services/ops/tracing.js';
import type { SessionDirectory } from '../services/people/directory.js';
import { Approvers } from '../services/people/policy.js';
import { threadPlace } from '../services/slack-out/thread/index.js';
import { currentWorkspace } from '../workspace.js';
import type { Parts, Settings } from './types.js';

/** Linked in App Home, encrypted at rest, one follower budget per key; a key gone is said in the thread. */
export function serviceKeys(
  { config, logger }: Settings,
  parts: Pick<Parts, 'store' | 'client' | 'follower' | 'out' | 'metrics' | 'self'>,
): KeyParts {
  const { store, client, follower, out, metrics, self } = parts;
  const lentTo = config.keys?.apiKeyTeams;
  return keyParts({
    config: config.keys,
    serviceUrl: config.service.url,
    defaultApiKey: config.service.apiKey,
    defaultClient: client,
    // Under OAuth AGENT_API_KEY is the operator's, lent only to the workspaces AGENT_API_KEY_TEAMS lists.
    ...(lentTo ? { defaultLent: () => listsWorkspace(lentTo, currentWorkspace()) } : {}),
    repo: store.serviceKeys,
    homeTeam: async () => (await self()).teamId,
    // Under OAuth each request is its workspace's work: a workspace's slot is that team's, not the bot's home.
    currentTeam: () => currentWorkspace()?.teamId,
    unfollow: (sessionId) => follower.unfollow(sessionId),
    notify: async (session, key, text) => {
      await out.poster.post(threadPlace(session), key, { text });
    },
    registry: metrics.tenantRegistry,
    requestsPerSecond: config.requestsPerSecond,
    logger,
    ...(config.telemetry.traces ? { tracer: serviceRequestTracer } : {}),
  });
}

/** App Home's key section and forms: the workspace's key managed by its admins and the bot's approvers. */
export function keyLinkingFor(
  { config, logger }: Pick<Settings, 'config' | 'logger'>,
  parts: Pick<Parts, 'keys' | 'slack' | 'client'> & { directory: SessionDirectory },
): KeyLinking {
  const { keys, slack, directory, client } = parts;
  const approvers = new Approvers(slack, config.approvers, logger);
  return keysInAppHome({
    keys,
    slack,
    isApprover: (userId) => approvers.includes(userId),
    home: (userId, top) => directory.home(userId, undefined, top),
    signup: (body, timeoutMs) => client.auth.signup(body, { timeoutMs, maxRetries: 0 }),
    logger,
  });
}
