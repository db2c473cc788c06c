import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { AgentSessionsClient, Follower, type SchedulePolicy } from '@agent-sessions/core';
import type { App } from '@slack/bolt';
import { createSlackApp, registerListeners } from './app.js';
import type { BotConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { CardUpdater, type CardUpdaterOptions } from './services/card-updater.js';
import { healthRoutes } from './services/health.js';
import { LeaseKeeper, type LeaseKeeperOptions } from './services/lease-keeper.js';
import { BotMetrics } from './services/metrics.js';
import { Permissions } from './services/permissions.js';
import { SessionPublisher } from './services/session-publisher.js';
import { SessionService } from './services/session-service.js';
import { ThreadPoster, type ThreadPosterOptions } from './services/thread-poster.js';
import { openStore, type Store } from './store/index.js';

/** What a running bot needs that the environment doesn't say: required Slack and service settings. */
export type RunnableConfig = BotConfig & {
  slack: NonNullable<BotConfig['slack']>;
  service: NonNullable<BotConfig['service']>;
};

/** Knobs for tests and operators; production uses the defaults. */
export interface BotTuning {
  replicaId?: string;
  leases?: Omit<LeaseKeeperOptions, 'owner'>;
  cards?: CardUpdaterOptions;
  posts?: ThreadPosterOptions;
  schedule?: Partial<SchedulePolicy>;
  /** Where log lines go (default stdout). */
  logDestination?: NodeJS.WritableStream;
  logLevel?: string;
  /** A store already open (tests share one); otherwise opened from the config. */
  store?: Store;
  /** PostgreSQL schema to use (tests isolate themselves with one). */
  schema?: string;
}

export interface RunningBot {
  app: App;
  /** Where Slack sends requests (HTTP mode): `http://host:port/slack/events`. */
  eventsUrl: string | undefined;
  url: string | undefined;
  store: Store;
  follower: Follower;
  metrics: BotMetrics;
  logger: Logger;
  replicaId: string;
  /** Graceful: stops following, releases leases (so another replica takes over at once), closes. */
  stop(): Promise<void>;
}

export async function startBot(config: RunnableConfig, tuning: BotTuning = {}): Promise<RunningBot> {
  const logger = createLogger({
    secrets: [
      config.slack.botToken,
      config.slack.signingSecret,
      config.slack.appToken,
      config.service.apiKey,
    ],
    ...(tuning.logLevel ? { level: tuning.logLevel } : {}),
    ...(tuning.logDestination ? { destination: tuning.logDestination } : {}),
  });
  // PGlite is one process's alone: a restarted bot is the same replica and keeps its leases at once.
  const replicaId =
    tuning.replicaId ??
    config.replicaId ??
    (config.databaseUrl ? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}` : 'embedded');
  const store =
    tuning.store ??
    (await openStore({
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir }),
      ...(tuning.schema ? { schema: tuning.schema } : {}),
    }));
  const client = new AgentSessionsClient({
    baseUrl: config.service.url,
    apiKey: config.service.apiKey,
    logger: logger.child({ component: 'client' }),
  });
  const follower = new Follower({
    client,
    store,
    requestsPerSecond: config.requestsPerSecond,
    logger: logger.child({ component: 'follower' }),
    ...(tuning.schedule ? { schedule: tuning.schedule } : {}),
  });
  const metrics = new BotMetrics(() => follower.stats());
  const app = createSlackApp({
    botToken: config.slack.botToken,
    signingSecret: config.slack.signingSecret,
    ...(config.slack.appToken ? { appToken: config.slack.appToken } : {}),
    ...(config.slack.apiUrl ? { apiUrl: config.slack.apiUrl } : {}),
    routes: healthRoutes({ store, client, metrics }),
    routesPort: config.port,
    logger,
  });
  const slack = app.client;
  const poster = new ThreadPoster(slack, store, logger, metrics, tuning.posts);
  const cards = new CardUpdater(slack, logger, metrics, tuning.cards);
  const publisher = new SessionPublisher({
    store,
    poster,
    cards,
    metrics,
    logger,
    slack,
    showReasoning: config.showReasoning,
  });
  publisher.attach(follower);
  follower.on('error', (event) => {
    metrics.errors.inc({ where: 'follow' });
    logger.warn(
      { sessionId: event.sessionId, err: event.error, fatal: event.fatal },
      'following a session failed',
    );
  });
  const leases = new LeaseKeeper(store, follower, logger, {
    owner: replicaId,
    ttlMs: config.leaseTtlMs,
    ...tuning.leases,
    // Another replica edits its card from now on: what this one last showed may no longer be there.
    onLost: (sessionId) => cards.forget(sessionId),
  });
  const permissions = new Permissions(slack, config, logger);
  const sessions = new SessionService({
    client,
    store,
    slack,
    follower,
    leases,
    poster,
    cards,
    publisher,
    permissions,
    metrics,
    logger,
  });
  registerListeners(app, { sessions, publisher, store, client, config, logger });

  let server: Server | undefined;
  if (config.slack.appToken) await app.start();
  else server = (await app.start({ port: config.port, host: config.host })) as Server;
  follower.start();
  await leases.start();

  const address = server?.address() as AddressInfo | null | undefined;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  // Socket Mode serves only the health and metrics routes, on PORT (0 would leave it unknowable).
  const port = address?.port ?? (config.port > 0 ? config.port : undefined);
  const url = port ? `http://${host}:${port}` : undefined;
  logger.info(
    {
      replicaId,
      mode: config.slack.appToken ? 'socket' : 'http',
      url,
      store: config.databaseUrl ? 'postgres' : 'pglite',
    },
    'agent sessions bot started',
  );

  let stopping: Promise<void> | undefined;
  return {
    app,
    url,
    eventsUrl: server && url ? `${url}/slack/events` : undefined,
    store,
    follower,
    metrics,
    logger,
    replicaId,
    stop: () => {
      stopping ??= (async () => {
        await leases.stop({ release: true });
        await follower.stop();
        await cards.stop();
        await app.stop().catch(() => {});
        if (!tuning.store) await store.close();
        logger.info({ replicaId }, 'agent sessions bot stopped');
      })();
      return stopping;
    },
  };
}
