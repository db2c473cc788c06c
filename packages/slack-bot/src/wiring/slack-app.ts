/** The Bolt app with its routes, and what its listeners may use: services only, never the store or the service's client. */
import type { AgentSessionsClient } from '@agent-sessions/core';
import { type App, type Authorize, type CustomRoute, LogLevel, webApi } from '@slack/bolt';
import { createSlackApp, ensureSlash } from '../app.js';
import type { ListenerContext } from '../listeners/context.js';
import { boltLogger } from '../logger.js';
import { scopeRequests } from '../services/installs/scope.js';
import type { Uninstalls } from '../services/installs/uninstalls.js';
import { type McpEndpoint, mcpRoutes } from '../services/mcp/index.js';
import type { AuditService } from '../services/ops/audit.js';
import { healthRoutes } from '../services/ops/health.js';
import type { BotMetrics } from '../services/ops/metrics.js';
import type { Readiness, RequestsInFlight } from '../services/ops/readiness.js';
import { slackFetchOption, slackRequestSpan } from '../services/ops/tracing.js';
import type { WorkspaceSurfaces } from '../services/slack-out/agent-surface/index.js';
import { type BotIdentity, botIdentity, type SlackClient } from '../services/slack-out/outbound/index.js';
import type { WorkflowSteps } from '../services/workflows/workflow-steps.js';
import type { Store } from '../store/index.js';
import type { Installs } from './installs.js';
import type { AgentParts, People, Settings } from './types.js';

/** What the Bolt app and its routes are built from. */
export interface AppDeps {
  /** `/healthz` asks the store and the service whether they answer. */
  store: Pick<Store, 'ping'>;
  client: AgentSessionsClient;
  metrics: BotMetrics;
  audit: Pick<AuditService, 'routes'>;
  surface: WorkspaceSurfaces;
  /** OAuth installs (their routes, tokens and admission), or undefined with one bot token. */
  installs: Installs | undefined;
  /** Whether this replica takes work (`/readyz`), and the Slack requests it is working on. */
  readiness: Readiness;
  requests: RequestsInFlight;
  /** With one bot token (no OAuth installs): its token, with who the bot is when Slack has said. */
  authorize: Authorize<boolean> | undefined;
  /** Served beside the others at /mcp and its metadata; undefined with MCP_ENABLED=false. */
  mcp: McpEndpoint | undefined;
}

/** The Bolt app, serving /healthz, /livez, /readyz, /metrics, /audit and /mcp beside Slack's requests. */
export function slackApp({ config, logger }: Settings, deps: AppDeps): { app: App; routes: CustomRoute[] } {
  const { store, client, metrics, surface, installs, readiness, requests, authorize, mcp } = deps;
  const health = { store, client, metrics, surface, readiness, metricsToken: config.metricsToken };
  const routes = [
    ...healthRoutes({ ...health, logger: logger.child({ component: 'health' }) }),
    ...deps.audit.routes(config.approvals.auditToken),
    ...(installs?.routes ?? []),
    ...(mcp ? mcpRoutes(mcp) : []),
  ];
  const authorizer = installs?.tokens.authorize ?? authorize;
  const app = createSlackApp({
    ...(authorizer
      ? { authorize: authorizer }
      : config.slack.botToken
        ? { botToken: config.slack.botToken }
        : {}),
    signingSecret: config.slack.signingSecret,
    ...(config.slack.appToken ? { appToken: config.slack.appToken } : {}),
    ...(config.slack.apiUrl ? { apiUrl: config.slack.apiUrl } : {}),
    routes,
    logger,
    onAnswered: (seconds) => metrics.acks.observe(seconds),
    closing: () => readiness.phase === 'draining',
    ...slackFetchOption(config.telemetry.traces),
  });
  // First of the middleware: a replica going away waits for every request's listener to finish.
  app.use(({ next }) => requests.track(next));
  // Traces: a span per Slack request, parent of the service and Slack calls its listener makes.
  if (config.telemetry.traces) app.use(({ body, next }) => slackRequestSpan(body, next));
  scopeRequests(app, installs?.admission, logger); // each request as its workspace's work
  return { app, routes };
}

/**
 * One workspace's Slack (SLACK_BOT_TOKEN): the client the bot calls, who the bot is, and Bolt's authorize.
 * Bolt given the token itself would ask auth.test when built and keep that one answer for good, a failure
 * too, retried by its client for half an hour; here auth.test is asked once per call of `self` (no retries:
 * the start asks again in the background, see start-bot.ts) and remembered once answered.
 */
export function singleWorkspaceSlack(
  { config, logger }: Pick<Settings, 'config' | 'logger'>,
  botToken: string,
): { client: SlackClient; self: () => Promise<BotIdentity>; authorize: Authorize<boolean> } {
  const options = {
    ...(config.slack.apiUrl ? { slackApiUrl: ensureSlash(config.slack.apiUrl) } : {}),
    ...slackFetchOption(config.telemetry.traces),
  };
  const client = new webApi.WebClient(botToken, {
    ...options,
    logger: boltLogger(logger),
    logLevel: LogLevel.INFO,
  });
  // Its failures are said by whoever asks (once a minute at start), not by the client at each attempt.
  const asking = new webApi.WebClient(botToken, {
    ...options,
    logger: boltLogger(logger.child({}, { level: 'error' })),
    retryConfig: { retries: 0 },
  });
  const self = botIdentity(asking);
  const authorize: Authorize<boolean> = async () => {
    const me = await self();
    return {
      botToken,
      ...(me.userId ? { botUserId: me.userId } : {}),
      ...(me.botId ? { botId: me.botId } : {}),
    };
  };
  return { client, self, authorize };
}

/** What the listeners may use: the services, never the store or the service's client. */
export function listenerContext(
  { logger }: Pick<Settings, 'logger'>,
  deps: {
    people: People;
    agent: Pick<AgentParts, 'messagesTab'>;
    /** OAuth installs: uninstalls and revoked tokens (undefined with one bot token). */
    uninstalls: Uninstalls | undefined;
    workflows: WorkflowSteps;
  },
): ListenerContext {
  const { people, uninstalls, workflows } = deps;
  return {
    answering: people.answering,
    steering: people.steering,
    starting: people.starting,
    conversation: people.conversation,
    feedback: people.feedback,
    directory: people.directory,
    logger,
    stopping: people.stopping,
    channelSettings: people.channelSettings,
    messagesTab: deps.agent.messagesTab,
    keys: people.keyLinking,
    homes: people.homes,
    homeViews: people.homeViews,
    codeChannels: people.channelSteering,
    ...(people.mcp ? { mcp: people.mcp } : {}),
    ...(uninstalls ? { installs: uninstalls } : {}),
    workflows,
  };
}
