/** The Bolt app with its routes, and what its listeners may use: services only, never the store or the service's client. */
import type { App, CustomRoute } from '@slack/bolt';
import { createSlackApp } from '../app.js';
import type { ListenerContext } from '../listeners/context.js';
import { scopeRequests } from '../services/installs/scope.js';
import { healthRoutes } from '../services/ops/health.js';
import type { Readiness, RequestsInFlight } from '../services/ops/readiness.js';
import { slackFetchOption, slackRequestSpan } from '../services/ops/tracing.js';
import type { WorkspaceSurfaces } from '../services/slack-out/agent-surface/index.js';
import type { Parts, Settings } from './types.js';

type AppParts = Pick<Parts, 'store' | 'client' | 'metrics' | 'audit' | 'installs'> & {
  surface?: WorkspaceSurfaces;
  /** Whether this replica takes work (`/readyz`), and the Slack requests it is working on. */
  readiness: Readiness;
  requests: RequestsInFlight;
};

/** The Bolt app, serving /healthz, /livez, /readyz, /metrics and /audit beside Slack's requests. */
export function slackApp(
  { config, logger }: Settings,
  { store, client, metrics, audit, surface, installs, readiness, requests }: AppParts,
): { app: App; routes: CustomRoute[] } {
  const health = { store, client, metrics, surface, readiness, metricsToken: config.metricsToken };
  const routes = [
    ...healthRoutes({ ...health, logger: logger.child({ component: 'health' }) }),
    ...audit.routes(config.approvals.auditToken),
    ...(installs?.routes ?? []),
  ];
  const app = createSlackApp({
    ...(config.slack.botToken ? { botToken: config.slack.botToken } : {}),
    ...(installs ? { authorize: installs.tokens.authorize } : {}),
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

/** What the listeners may use: the services, never the store or the service's client. */
export function listenerContext(
  { logger }: Settings,
  { people, agent }: Pick<Parts, 'people' | 'agent'>,
): ListenerContext {
  const { answering, steering, starting, conversation, feedback, directory } = people;
  const { stopping, channelSettings } = people;
  const services = { answering, steering, starting, conversation, feedback, directory, logger };
  return {
    ...services,
    ...{ stopping, channelSettings, messagesTab: agent.messagesTab, keys: people.keyLinking },
    homes: people.homes,
    codeChannels: people.channelSteering,
  };
}
