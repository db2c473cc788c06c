import { createHash } from 'node:crypto';
import type { AgentSessionsClient, RequestTracer, SignupRequest } from '@agent-sessions/core';
import type { HomeView, KnownBlock } from '@slack/types';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../../logger.js';
import type { SecretSink } from '../../secret-scrubber.js';
import type { SessionRecord } from '../../store/records.js';
import type { ServiceKeyRepository } from '../../store/service-keys.js';
import type { SlackClient } from '../slack-out/outbound/index.js';
import { WorkspaceAdmins } from './key-admins.js';
import { KeyGuard } from './key-guard.js';
import { KeyLinking } from './key-linking.js';
import { keyedCalls, SlotReaders } from './keyed-calls.js';
import { ServiceKeys } from './service-keys.js';
import { type KeySettings, keyCipherOf } from './settings.js';

export { encryptionKeyProblems, KeyCipher, KeyConfigError, KeyDecryptError } from './cipher.js';
export { KeyLinking } from './key-linking.js';
export { ServiceKeys } from './service-keys.js';
export { type KeySettings, keyCipherOf } from './settings.js';

/** App Home's key section and forms: the workspace's key managed by its admins and the bot's approvers. */
export function keysInAppHome(deps: {
  keys: KeyParts;
  slack: Pick<SlackClient, 'users'>;
  isApprover: (userId: string) => Promise<boolean>;
  /** The person's Home tab with `top` above their sessions. */
  home: (userId: string, top: KnownBlock[]) => Promise<HomeView | undefined>;
  /**
   * Publishes a Home drawn by `draw` (people's HomeViews, with Slack's hash: a draw that read the key before
   * a change never stays shown). Its shape, not the class: keys sit below people/.
   */
  homeViews: { publish(userId: string, draw: () => Promise<HomeView | undefined>): Promise<unknown> };
  signup: (body: SignupRequest, timeoutMs: number) => Promise<Record<string, unknown>>;
  logger: Logger;
}): KeyLinking {
  const { keys, slack, logger } = deps;
  const admins = new WorkspaceAdmins({
    usersInfo: async (user) => (await slack.users.info({ user })).user,
    isApprover: deps.isApprover,
    ownTeam: () => keys.service.teamOf(undefined),
    logger,
  });
  const linking: KeyLinking = new KeyLinking({
    keys: keys.service,
    isAdmin: (userId) => admins.includes(userId),
    refreshHome: async (userId) => {
      await deps.homeViews.publish(userId, async () => deps.home(userId, await linking.homeBlocks(userId)));
    },
    ...(keys.allowSignup ? { signup: deps.signup } : {}),
    logger: logger.child({ component: 'keys' }),
  });
  return linking;
}

export type KeyParts = ReturnType<typeof keyParts>;

/**
 * Service keys per workspace or person, built once: the keys, the calls that go with each
 * session's key, the follower's readers (one budget per key), the guard that stops a session whose key
 * can't be used, and their metrics.
 */
export function keyParts(deps: {
  config: KeySettings | undefined;
  serviceUrl: string;
  /** AGENT_API_KEY: only its fingerprint is kept here (a notice about it is said once per key). */
  defaultApiKey: string;
  defaultClient: AgentSessionsClient;
  /** AGENT_API_KEY_TEAMS: whether AGENT_API_KEY serves the current workspace (unset: every one). */
  defaultLent?: () => boolean;
  /** AGENT_API_KEY_TEAMS: whether AGENT_API_KEY still serves a running session's workspace. */
  lentToSession?: (sessionId: string) => Promise<boolean>;
  repo: ServiceKeyRepository;
  ownTeam: () => Promise<string | undefined>;
  /** With OAuth installs: the current request's workspace (asked before `ownTeam`). */
  currentTeam?: () => string | undefined;
  unfollow: (sessionId: string) => void;
  notify: (session: SessionRecord, key: string, text: string) => Promise<void>;
  registry: Registry;
  requestsPerSecond: number;
  logger: Logger;
  /** Told of every key decrypted or encrypted: no log line or span carries it. */
  secrets?: SecretSink;
  /** Told of every request of the keys' clients (traces). */
  tracer?: RequestTracer;
}) {
  const config = deps.config ?? { mode: 'per-workspace', allowSignup: false, previousEncryptionKeys: [] };
  const cipher = keyCipherOf(config, deps.secrets);
  const logger = deps.logger.child({ component: 'keys' });
  const fingerprint = createHash('sha256').update('agent-sessions default key').update(deps.defaultApiKey);
  const service = new ServiceKeys({
    repo: deps.repo,
    cipher,
    mode: config.mode,
    serviceUrl: deps.serviceUrl,
    defaultClient: deps.defaultClient,
    ...(deps.tracer ? { tracer: deps.tracer } : {}),
    ...(deps.defaultLent ? { defaultLent: deps.defaultLent } : {}),
    ...(deps.lentToSession ? { lentToSession: deps.lentToSession } : {}),
    defaultVersion: `default:${fingerprint.digest('hex').slice(0, 12)}`,
    ownTeam: deps.ownTeam,
    ...(deps.currentTeam ? { currentTeam: deps.currentTeam } : {}),
    logger,
  });
  const readers = new SlotReaders(service, deps.ownTeam);
  const guard = new KeyGuard({
    keys: service,
    readers,
    repo: deps.repo,
    unfollow: deps.unfollow,
    notify: deps.notify,
    logger,
  });
  registerKeyMetrics(deps.registry, readers, deps.requestsPerSecond);
  return {
    service,
    readers,
    guard,
    calls: keyedCalls(service, deps.defaultClient.sessions),
    allowSignup: config.allowSignup,
  };
}

/** `/metrics`: the follower's requests and request budget by workspace (team id; never a key). */
function registerKeyMetrics(registry: Registry, readers: SlotReaders, requestsPerSecond: number): void {
  new Counter({
    name: 'agent_service_requests_by_team_total',
    help: 'Requests the follower sent to the Agent Session Service, by the Slack team whose key they went with',
    labelNames: ['team'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [team, n] of readers.requests) this.inc({ team }, n);
    },
  });
  new Gauge({
    name: 'agent_service_budget_requests_per_second',
    help: 'The follower’s request budget by Slack team: requests per second per key, times the team’s keys in use',
    labelNames: ['team'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [team, lanes] of readers.lanesByTeam()) this.set({ team }, lanes * requestsPerSecond);
    },
  });
}
