// Over 300 lines: the one place where every service is built and wired in start order; split up, the
// order of the start (and of the stop) would be spread over files.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { AgentSessionsClient, Follower, type SchedulePolicy } from '@agent-sessions/core';
import { type App, LogLevel, webApi } from '@slack/bolt';
import { createSlackApp, ensureSlash, registerListeners } from './app.js';
import { type BotConfig, databasePassword } from './config.js';
import { serveRoutes, urlOf } from './http/routes-server.js';
import { boltLogger, createLogger, type Logger } from './logger.js';
import { AnsweringService } from './services/answering.js';
import { AuditService } from './services/audit.js';
import { CardUpdater, type CardUpdaterOptions } from './services/card-updater.js';
import { ConversationService } from './services/conversation.js';
import { SessionDirectory } from './services/directory.js';
import { FeedbackService } from './services/feedback.js';
import { healthRoutes } from './services/health.js';
import { LeaseKeeper, type LeaseKeeperOptions } from './services/lease-keeper.js';
import { BotMetrics } from './services/metrics.js';
import { Notifier } from './services/notifier.js';
import { type OutboundOptions, OutboundQueue, queuedChat } from './services/outbound.js';
import { Approvers, channelPolicy, choosePolicy } from './services/policy.js';
import { ReminderService } from './services/reminders.js';
import { SessionPublisher } from './services/session-publisher.js';
import { StartingService } from './services/starting.js';
import { SteeringService } from './services/steering.js';
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
  outbound?: Omit<OutboundOptions, 'pacing'>;
  schedule?: Partial<SchedulePolicy>;
  /** Where log lines go (default stdout). */
  logDestination?: NodeJS.WritableStream;
  logLevel?: string;
  /** A store already open (tests share one); otherwise opened from the config. */
  store?: Store;
  /** PostgreSQL schema to use (tests isolate themselves with one). */
  schema?: string;
  /** Reminders: the clock and how often to look (tests). */
  reminders?: { now?: () => Date; tickMs?: number };
  /** How long user-group and channel member lists read from Slack are kept (default a minute). */
  policy?: { membersTtlMs?: number };
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
      config.approvals.auditToken,
      databasePassword(config.databaseUrl),
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
    store: store.followState,
    requestsPerSecond: config.requestsPerSecond,
    logger: logger.child({ component: 'follower' }),
    ...(tuning.schedule ? { schedule: tuning.schedule } : {}),
  });
  const metrics = new BotMetrics(() => follower.stats());
  const audit = new AuditService({
    audit: store.audit,
    logger: logger.child({ component: 'audit' }),
    retentionDays: config.approvals.auditRetentionDays,
    ...(tuning.reminders?.now ? { now: tuning.reminders.now } : {}),
  });
  const routes = [
    ...healthRoutes({ store, client, metrics, logger: logger.child({ component: 'health' }) }),
    ...audit.routes(config.approvals.auditToken),
  ];
  const app = createSlackApp({
    botToken: config.slack.botToken,
    signingSecret: config.slack.signingSecret,
    ...(config.slack.appToken ? { appToken: config.slack.appToken } : {}),
    ...(config.slack.apiUrl ? { apiUrl: config.slack.apiUrl } : {}),
    routes,
    logger,
  });
  const slack = app.client;
  const outbound = new OutboundQueue(logger, metrics, { ...tuning.outbound, pacing: config.slackPacing });
  // What goes through the outbound queue uses a client that answers a 429 at once (the queue waits its
  // Retry-After, once for the channel); with pacing off, Bolt's client retries 429s itself, as before.
  const paced =
    config.slackPacing === 'on'
      ? new webApi.WebClient(config.slack.botToken, {
          logger: boltLogger(logger),
          logLevel: LogLevel.INFO,
          rejectRateLimitedCalls: true,
          ...(config.slack.apiUrl ? { slackApiUrl: ensureSlash(config.slack.apiUrl) } : {}),
        })
      : slack;
  // A new session's card and a prompt marked answered wait in the same queue, first in their channel.
  const chat = config.slackPacing === 'on' ? queuedChat(paced, outbound) : slack;
  const poster = new ThreadPoster(paced, store.posts, logger, metrics, tuning.posts, outbound);
  const cards = new CardUpdater(paced, logger, metrics, tuning.cards, outbound);
  const membersTtlMs = tuning.policy?.membersTtlMs;
  const policy = choosePolicy(
    config.approvals.policy,
    slack,
    new Approvers(slack, config.approvers, logger, membersTtlMs),
    logger,
    membersTtlMs,
  );
  const publisher = new SessionPublisher({
    store,
    poster,
    cards,
    metrics,
    logger,
    slack: paced,
    showReasoning: config.showReasoning,
    answerers: (session, request) => policy.whoMayAnswer?.(session, request).line,
    latestDecision: (sessionId) => audit.latestDecision(sessionId),
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
  const notifier = new Notifier({ slack: paced, follower, leases: store.leases, logger, outbound });
  const answering = new AnsweringService({
    client,
    prompts: store.prompts,
    slack: chat,
    policy,
    notifier,
    metrics,
    logger,
    audit,
  });
  let botUserId = 'bot';
  const reminders = new ReminderService({
    reminders: store.reminders,
    prompts: store.prompts,
    slack,
    poster,
    notifier,
    policy,
    answering,
    client,
    audit,
    settings: config.approvals,
    logger: logger.child({ component: 'reminders' }),
    botUserId: () => botUserId,
    ...tuning.reminders,
  });
  const steering = new SteeringService({
    client,
    sessions: store.sessions,
    policy,
    notifier,
    metrics,
    snapshot: (sessionId) => publisher.snapshot(sessionId),
    audit,
  });
  const starting = new StartingService({
    client,
    sessions: store.sessions,
    slack: chat,
    channelAllowed: channelPolicy(config.allowedChannels),
    notifier,
    metrics,
    logger,
    started: async (sessionId) => {
      await cards.updateNow(sessionId, () => publisher.card(sessionId));
      await leases.refresh();
    },
    audit,
  });
  registerListeners(app, {
    answering,
    steering,
    starting,
    conversation: new ConversationService({
      events: store.events,
      sessions: store.sessions,
      prompts: store.prompts,
      starting,
      answering,
      steering,
      policy,
      notifier,
      slack,
      metrics,
      logger,
      threadReplies: config.threadReplies,
    }),
    feedback: new FeedbackService({ sessions: store.sessions, feedback: store.feedback, metrics, logger }),
    directory: new SessionDirectory({
      client,
      sessions: store.sessions,
      prompts: store.prompts,
      events: store.events,
      card: (sessionId) => publisher.card(sessionId),
      policy,
    }),
    audit,
    logger,
  });

  let server: Server;
  if (config.slack.appToken) {
    // Bolt's Socket Mode receiver would serve the routes on every interface, whatever HOST says.
    server = await serveRoutes(routes, { port: config.port, host: config.host });
    await app.start();
  } else server = (await app.start({ port: config.port, host: config.host })) as Server;
  follower.start();
  await leases.start();
  // Who the bot is (it "answers" a question rejected on timeout) and its workspace (the audit's team).
  await slack.auth
    .test()
    .then((me) => {
      if (me.user_id) botUserId = me.user_id;
      audit.teamId = me.team_id;
    })
    .catch((error: unknown) => logger.warn({ err: error }, 'auth.test failed; audit records carry no team'));
  reminders.start();
  // Not awaited: a long recovery (Slack may allow one thread read a minute) must not hold the start.
  void publisher
    .recoverUnsent((sessionId) => follower.isFollowing(sessionId))
    .catch((error: unknown) => logger.warn({ err: error }, 'recovery failed'));

  // Socket Mode serves only the health, metrics and audit routes there.
  const url = urlOf(server, config.host);
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
    eventsUrl: url && !config.slack.appToken ? `${url}/slack/events` : undefined,
    store,
    follower,
    metrics,
    logger,
    replicaId,
    stop: () => {
      stopping ??= (async () => {
        await reminders.stop();
        await leases.stop({ release: true });
        await follower.stop();
        await cards.stop();
        await app.stop().catch(() => {});
        if (config.slack.appToken) {
          const closed = new Promise((done) => server.close(done));
          server.closeAllConnections();
          await closed;
        }
        if (!tuning.store) await store.close();
        logger.info({ replicaId }, 'agent sessions bot stopped');
      })();
      return stopping;
    },
  };
}
