/**
 * OAuth installs for many workspaces: the tokens per workspace, the
 * Web API client that picks them, the install routes, and the per-workspace Slack-out parts. Absent in
 * single-workspace mode (`SLACK_BOT_TOKEN`), where the one token serves every call.
 */
import { type CustomRoute, LogLevel } from '@slack/bolt';
import { type KeysConfig, NO_KEY_FOR_TOKENS, type TelemetryConfig } from '../config/index.js';
import { boltLogger, type Logger } from '../logger.js';
import type { SecretSink } from '../secret-scrubber.js';
import { Admission } from '../services/installs/admission.js';
import { NoWorkspaceError, WorkspaceClient } from '../services/installs/client.js';
import { installProvider, type OAuthSettings, oauthRoutes } from '../services/installs/oauth-flow.js';
import { WorkspaceCards, WorkspaceOutbound } from '../services/installs/per-workspace.js';
import { SessionWorkspaces } from '../services/installs/scope.js';
import { SealedInstallations } from '../services/installs/sealed.js';
import { slackTokenExchange } from '../services/installs/token-exchange.js';
import { WorkspaceTokens } from '../services/installs/tokens.js';
import { Uninstalls } from '../services/installs/uninstalls.js';
import { KeyConfigError, keyCipherOf } from '../services/keys/index.js';
import type { BotMetrics } from '../services/ops/metrics.js';
import { slackFetchOption } from '../services/ops/tracing.js';
import type { BotIdentity, OutboundOptions } from '../services/slack-out/outbound/index.js';
import type { CardUpdaterOptions } from '../services/slack-out/thread/index.js';
import type { Store } from '../store/index.js';
import { currentWorkspace } from '../workspace.js';

/** Knobs for tests: the clock and when a token counts as due for its refresh. */
export interface InstallsTuning {
  refreshBeforeSeconds?: number;
  now?: () => number;
}

export interface Installs {
  tokens: WorkspaceTokens;
  /** Reads and calls that needn't wait in the outbound queue, each with its workspace's token. */
  client: WorkspaceClient;
  /** /slack/install and /slack/oauth_redirect. */
  routes: CustomRoute[];
  /** SLACK_ALLOWED_TEAMS: who may install, and whose requests and sessions are served. */
  admission: Admission;
  /** Who the bot is in the current workspace (from its installation). */
  self: () => Promise<BotIdentity>;
  secrets: string[];
  /** At start: tokens stored in plain text, or under a previous encryption key, encrypted under the current. */
  sealStored(): Promise<void>;
}

interface InstallsSettings {
  config: {
    slack: { apiUrl?: string; oauth?: OAuthSettings };
    keys?: KeysConfig;
    telemetry: TelemetryConfig;
  };
  tuning: { installs?: InstallsTuning };
  logger: Logger;
  /** Told of each token decrypted or encrypted: no log line or span carries it. */
  secrets: SecretSink;
}

/** The OAuth side of the bot, or undefined with one bot token. */
export function workspaceInstalls(
  { config, tuning, logger, secrets }: InstallsSettings,
  store: Pick<Store, 'installations'>,
): Installs | undefined {
  const oauth = config.slack.oauth;
  if (!oauth) return undefined;
  const log = logger.child({ component: 'installs' });
  // Slack's tokens are stored encrypted (the service keys' cipher): OAuth needs the encryption key.
  const cipher = keyCipherOf(config.keys, secrets);
  if (!cipher) throw new KeyConfigError(NO_KEY_FOR_TOKENS);
  const installations = new SealedInstallations(store.installations, cipher, log);
  const apiOptions = {
    ...(oauth.apiUrl ? { slackApiUrl: oauth.apiUrl } : {}),
    ...slackFetchOption(config.telemetry.traces),
  };
  const exchange = slackTokenExchange({
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    apiUrl: oauth.apiUrl,
    logger: boltLogger(log),
  });
  const tokens = new WorkspaceTokens({
    installations,
    exchange,
    logger: log,
    ...tuning.installs,
  });
  const client = new WorkspaceClient((workspace) => tokens.botToken(workspace), {
    ...apiOptions,
    logger: boltLogger(logger),
    logLevel: LogLevel.INFO,
  });
  const installer = installProvider({ settings: oauth, installations, tokens, logger });
  const admission = new Admission(oauth.allowedTeams, log);
  const self = (): Promise<BotIdentity> => {
    const workspace = currentWorkspace();
    return workspace ? tokens.identity(workspace) : Promise.reject(new NoWorkspaceError('auth.test'));
  };
  return {
    tokens,
    client,
    routes: oauthRoutes({ installer, admission, logger: log }),
    admission,
    self,
    secrets: [oauth.clientSecret, oauth.stateSecret],
    sealStored: async () => {
      const { encrypted, reencrypted, unreadable } = await installations.sealStored();
      if (encrypted > 0)
        log.info({ encrypted }, 'Slack installations stored in plain text: tokens now encrypted');
      if (reencrypted > 0)
        log.info({ reencrypted }, 'Slack tokens encrypted again under the current encryption key');
      if (unreadable.length > 0)
        log.warn(
          { workspaces: unreadable },
          'Slack tokens no configured encryption key can read: install the app in these workspaces again',
        );
    },
  };
}

/** The Slack-out parts per workspace: queues, budgets and card edits of each workspace its own. */
export function workspaceSlackOut(
  installs: Installs,
  parts: {
    logger: Logger;
    metrics: BotMetrics;
    outboundOptions: OutboundOptions;
    config: { slackPacing: 'on' | 'off'; slack: { apiUrl?: string }; telemetry: TelemetryConfig };
    tuning: { cards?: CardUpdaterOptions };
  },
) {
  const { logger, metrics } = parts;
  const { apiUrl } = parts.config.slack;
  const outbound = new WorkspaceOutbound(logger, metrics, parts.outboundOptions);
  // As in single-workspace mode: with pacing on, a 429 comes back at once and the queue waits it out.
  const paced =
    parts.config.slackPacing === 'on'
      ? new WorkspaceClient((workspace) => installs.tokens.botToken(workspace), {
          logger: boltLogger(logger),
          logLevel: LogLevel.INFO,
          rejectRateLimitedCalls: true,
          ...(apiUrl ? { slackApiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {}),
          ...slackFetchOption(parts.config.telemetry.traces),
        })
      : installs.client;
  const cards = new WorkspaceCards(paced, logger, metrics, parts.tuning.cards, outbound);
  return { outbound, paced, cards };
}

export function uninstalls(
  store: Pick<Store, 'installations' | 'sessions' | 'mcpTokens'>,
  parts: { releaseLeases: () => Promise<void>; logger: Logger },
): Uninstalls {
  return new Uninstalls({
    installations: store.installations,
    sessions: store.sessions,
    mcpTokens: store.mcpTokens,
    releaseLeases: parts.releaseLeases,
    logger: parts.logger.child({ component: 'installs' }),
  });
}

/** For the lease keeper: a session is followed only while its workspace is admitted (SLACK_ALLOWED_TEAMS). */
export function servedSessions(
  installs: Pick<Installs, 'admission'>,
  scopes: Pick<SessionWorkspaces, 'of'>,
): (sessionId: string) => Promise<boolean> {
  return async (sessionId) => installs.admission.check(await scopes.of(sessionId), 'its sessions');
}

export { SessionWorkspaces };
