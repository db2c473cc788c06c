import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import type { Follower } from '@agent-sessions/core';
import type { App, CustomRoute } from '@slack/bolt';
import { registerListeners } from '../app.js';
import { databasePassword } from '../config/index.js';
import { serveRoutes, urlOf } from '../http/routes-server.js';
import { createLogger, type Logger } from '../logger.js';
import type { SessionPublisher } from '../services/following/session-publisher.js';
import type { BotMetrics } from '../services/ops/metrics.js';
import { Readiness, RequestsInFlight } from '../services/ops/readiness.js';
import { type BotIdentity, botIdentity, type OutboundQueue } from '../services/slack-out/outbound/index.js';
import { openStore, type Store } from '../store/index.js';
import { agentParts, placeChannelSettings, slackSurface } from './agent-surface.js';
import { reminderService } from './approvals.js';
import { codeChannelParts } from './code-channels.js';
import { SessionWorkspaces, servedSessions, uninstalls, workspaceInstalls } from './installs.js';
import { serviceKeys } from './keys.js';
import { LateBound } from './late-bound.js';
import { access, auditTrail, following, leaseKeeper, peopleServices, sessionPublisher } from './services.js';
import { shutDown } from './shutdown.js';
import { listenerContext, slackApp } from './slack-app.js';
import { slackOut } from './slack-out.js';
import { streamPoster } from './streams.js';
import { startTracing, type Tracing } from './telemetry.js';
import type { BotTuning, RunnableConfig, Settings } from './types.js';
import { workflowSteps } from './workflows.js';

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
  /**
   * Graceful, within `graceMs` (SHUTDOWN_GRACE_SECONDS by default): not ready, no new requests, the work
   * in flight finished, leases released (so another replica takes over at once), closed. See shutdown.ts.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/**
 * The bot: its parts built in order, each given what it needs at construction, then started, then served.
 * Each step below builds one side and hands what it built to the next.
 */
export async function startBot(config: RunnableConfig, tuning: BotTuning = {}): Promise<RunningBot> {
  const settings: Settings = { config, tuning, logger: botLogger(config, tuning) };
  // First: the parts built next take OpenTelemetry's API, which the SDK (when traces are on) backs.
  const tracing = await startTracing(config.telemetry);
  const replicaId = replicaIdOf(settings);
  const store = await botStore(settings);
  const service = serviceSide(settings, store);
  const slack = slackSide(settings, { ...service, replicaId });
  const sessions = sessionSide(settings, { ...service, ...slack, replicaId });
  const people = peopleSide(settings, sessions);
  const { server, recovery } = await startParts(settings, { ...sessions, ...people });
  return running(settings, { ...sessions, ...people, server, recovery, tracing });
}

/**
 * The service's side: OAuth installs (a token per workspace; undefined with SLACK_BOT_TOKEN), which
 * workspace a session's work is of, the follower with the service's client and the metrics, the audit trail.
 */
function serviceSide(settings: Settings, store: Store) {
  const installs = workspaceInstalls(settings, store);
  const scopes = new SessionWorkspaces(store.sessions, installs !== undefined);
  // The parts' first cycle (late-bound.ts): the metrics read the outbound queue's depths, and the queue
  // counts its calls in them. Bound once Slack's side has built the queue.
  const outbound = new LateBound<OutboundQueue>('the outbound queue');
  const { client, follower, metrics } = following(settings, store, { outbound, scopes });
  const audit = auditTrail(settings, store);
  return { store, installs, scopes, outbound, client, follower, metrics, audit };
}

/** Slack's side: the surface choice, the Bolt app and its routes, who the bot is, and Slack-out. */
function slackSide(settings: Settings, service: ReturnType<typeof serviceSide> & { replicaId: string }) {
  const { store, client, metrics, audit, installs, follower, replicaId } = service;
  const surface = slackSurface(settings);
  const readiness = new Readiness();
  const requests = new RequestsInFlight();
  const { app, routes } = slackApp(settings, {
    ...{ store, client, metrics, audit, surface, installs, readiness, requests },
  });
  const slack = installs?.client ?? app.client;
  const self = installs?.self ?? botIdentity(slack);
  // The second cycle: the poster tells the publisher when a batch can't post, and the publisher posts
  // through the poster. Bound once the session side has built the publisher.
  const publisher = new LateBound<SessionPublisher>('the session publisher');
  const out = slackOut(settings, { slack, store, metrics, self, installs, follower, publisher, replicaId });
  service.outbound.bind(out.outbound);
  return { surface, app, routes, slack, self, out, publisherLater: publisher, readiness, requests };
}

type BuiltSoFar = ReturnType<typeof serviceSide> & ReturnType<typeof slackSide> & { replicaId: string };

/** The sessions' side: who may act and see, service keys, the agent surfaces, the publisher, the leases. */
function sessionSide(settings: Settings, built: BuiltSoFar) {
  const { store, client, follower, metrics, audit, scopes, installs, out, self, slack, surface } = built;
  const { policy, visibility } = access(settings, { slack, self });
  const keys = serviceKeys(settings, { store, client, follower, out, metrics, self });
  const agent = agentParts(settings, { surface, store, out, follower, scopes, self });
  const streams = streamPoster(settings, { store, out, metrics, self, surface });
  const codeChannels = codeChannelParts(settings, { store, out });
  // Sessions' changes that a Home tab may show: said by the publisher and the starts, heard by people's Homes.
  const homeChanges = new EventEmitter();
  const publisher = sessionPublisher(settings, {
    ...{ store, out, metrics, policy, audit, follower, streams, keys, scopes, codeChannels, homeChanges },
  });
  built.publisherLater.bind(publisher);
  const serves = installs && servedSessions(installs, scopes);
  const leases = leaseKeeper(settings, {
    ...{ store, follower, out, replicaId: built.replicaId, streams, keys, agent, metrics, codeChannels },
    ...(serves ? { serves } : {}),
  });
  return {
    ...built,
    ...{ policy, visibility, keys, agent, streams, publisher, leases, serves, codeChannels, homeChanges },
  };
}

/** People's side: what people do, the reminders of questions nobody answers, and the listeners. */
function peopleSide(settings: Settings, built: ReturnType<typeof sessionSide>) {
  const { serves, ...parts } = built;
  const people = peopleServices(settings, parts);
  const identity = { botUserId: 'bot' };
  const reminders = reminderService(settings, {
    ...{ ...parts, people, botUserId: () => identity.botUserId },
    ...(serves ? { serves } : {}),
  });
  const { installs, store, leases } = parts;
  const removals =
    installs && uninstalls(store, { releaseLeases: () => leases.refresh(), logger: settings.logger });
  const workflows = workflowSteps(settings, { ...parts, people });
  registerListeners(parts.app, {
    ...listenerContext(settings, { people, agent: parts.agent }),
    ...(removals ? { installs: removals } : {}),
    workflows,
  });
  return { people, identity, reminders, workflows };
}

type Built = ReturnType<typeof sessionSide> & ReturnType<typeof peopleSide>;

/** Started in order: keys and tokens sealed, then served, then following, leases, reminders, recovery. */
async function startParts(
  { config, logger }: Settings,
  built: Built,
): Promise<{ server: Server; recovery: { stop(): void } }> {
  const { keys, installs, store, self, app, routes, follower, leases, audit, identity } = built;
  await reencryptKeys(keys, logger);
  await installs?.sealStored(); // Slack's tokens: rows still in plain text are sealed, and rotation
  await placeChannelSettings(store, { oauth: installs !== undefined, self, logger });
  const server = await serve(app, routes, config);
  follower.start();
  await leases.start();
  // With OAuth installs, who the bot is depends on the workspace (its installation says).
  if (!installs) await learnWhoWeAre({ self, audit, identity, logger });
  built.reminders.start();
  built.workflows.start();
  const recovery = recoverUnsentPosts({
    publisher: built.publisher,
    follower,
    logger,
    everyMs: config.leaseTtlMs,
  });
  built.readiness.started();
  return { server, recovery };
}

/** The bot as started: its address said in the log, and its graceful stop (shutdown.ts). */
function running(
  { config, tuning, logger }: Settings,
  built: Built & { server: Server; recovery: { stop(): void }; tracing: Tracing },
): RunningBot {
  const { app, store, follower, metrics, replicaId, server, installs, tracing } = built;
  const url = urlOf(server, config.host);
  logger.info(
    {
      replicaId,
      mode: config.slack.appToken ? 'socket' : installs ? 'http, oauth installs' : 'http',
      url,
      store: config.databaseUrl ? 'postgres' : 'pglite',
    },
    'agent sessions bot started',
  );
  let stopping: Promise<void> | undefined;
  const stop = (options: { graceMs?: number } = {}) => {
    const { readiness, requests, workflows, leases, out, streams } = built;
    // Home refreshes and recovery passes stop with the reminders: none starts new work after.
    const reminders = {
      stop: async () => {
        built.people.homes.stop();
        built.recovery.stop();
        await built.reminders.stop();
      },
    };
    stopping ??= shutDown(
      {
        ...{ readiness, requests, app, server, reminders, workflows, leases, follower, out, streams },
        ...{ logger, replicaId },
        socketMode: config.slack.appToken !== undefined,
        closeStore: async () => {
          if (!tuning.store) await store.close();
          await tracing.shutdown();
        },
      },
      options.graceMs ?? config.shutdownGraceMs,
    ).then(() => logger.info({ replicaId }, 'agent sessions bot stopped'));
    return stopping;
  };
  const eventsUrl = url && !config.slack.appToken ? `${url}/slack/events` : undefined;
  return { app, url, eventsUrl, store, follower, metrics, logger, replicaId, stop };
}

/** Rotation: keys encrypted under AGENT_KEY_ENCRYPTION_KEY_PREVIOUS are encrypted again under the new key. */
async function reencryptKeys(
  keys: { service: { reencryptAll(): Promise<{ reencrypted: number; unreadable: number }> } },
  logger: Logger,
) {
  const { reencrypted, unreadable } = await keys.service.reencryptAll();
  if (reencrypted > 0)
    logger.info({ reencrypted }, 'service keys encrypted again under the current encryption key');
  if (unreadable > 0)
    logger.warn(
      { unreadable },
      'service keys no configured encryption key can read: their owners must link them again',
    );
}

/** Who the bot is (it "answers" a question rejected on timeout) and its workspace (the audit's team). */
async function learnWhoWeAre(parts: {
  self: () => Promise<BotIdentity>;
  audit: { teamId: string | undefined };
  identity: { botUserId: string };
  logger: Logger;
}): Promise<void> {
  const { self, audit, identity, logger } = parts;
  await self()
    .then((me) => {
      if (me.userId) identity.botUserId = me.userId;
      audit.teamId = me.teamId;
    })
    .catch((error: unknown) => logger.warn({ err: error }, 'auth.test failed; audit records carry no team'));
}

/**
 * Posts a crash left unsent, for the sessions this replica follows and the finished ones it claims: at
 * start (not awaited, as it may be long), then a pass every `everyMs` (a lease time: a claim whose holder
 * died has lapsed by the next), one at a time.
 */
function recoverUnsentPosts(parts: {
  publisher: Pick<SessionPublisher, 'recoverUnsent'>;
  follower: Pick<Follower, 'isFollowing'>;
  logger: Logger;
  everyMs: number;
}): { stop(): void } {
  const { publisher, follower, logger, everyMs } = parts;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // After the first pass, only finished sessions: the followed ones recover on their own events.
  const pass = (finishedOnly: boolean) => {
    // A long recovery (Slack may allow one thread read a minute) must not hold the start.
    void publisher
      .recoverUnsent((sessionId) => follower.isFollowing(sessionId), { finishedOnly })
      .catch((error: unknown) => logger.warn({ err: error }, 'recovery failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(() => pass(true), everyMs).unref();
      });
  };
  pass(false);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * HTTP mode listens on HOST:PORT for Slack and the routes. Socket Mode connects out and serves only the
 * health, metrics and audit routes there — on a server of ours, as Bolt's would bind every interface
 * whatever HOST says (opened first, so a taken port fails the start cleanly).
 */
async function serve(app: App, routes: CustomRoute[], config: RunnableConfig): Promise<Server> {
  if (config.slack.appToken) {
    const server = await serveRoutes(routes, { port: config.port, host: config.host });
    await app.start();
    return server;
  }
  return (await app.start({ port: config.port, host: config.host })) as Server;
}

/** A logger that never prints the bot's secrets. */
function botLogger(config: RunnableConfig, tuning: BotTuning): Logger {
  const { slack, service } = config;
  return createLogger({
    secrets: [
      slack.oauth?.clientSecret,
      slack.oauth?.stateSecret,
      slack.botToken,
      slack.signingSecret,
      slack.appToken,
      service.apiKey,
      config.keys?.encryptionKey,
      ...(config.keys?.previousEncryptionKeys ?? []),
      config.approvals.auditToken,
      config.metricsToken,
      databasePassword(config.databaseUrl),
    ],
    ...(tuning.logLevel ? { level: tuning.logLevel } : {}),
    ...(tuning.logDestination ? { destination: tuning.logDestination } : {}),
  });
}

/** This replica's name in the leases table. */
function replicaIdOf({ config, tuning }: Omit<Settings, 'logger'>): string {
  // PGlite is one process's alone: a restarted bot is the same replica and keeps its leases at once.
  return (
    tuning.replicaId ??
    config.replicaId ??
    (config.databaseUrl ? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}` : 'embedded')
  );
}

async function botStore({ config, tuning }: Omit<Settings, 'logger'>): Promise<Store> {
  return (
    tuning.store ??
    (await openStore({
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir }),
      ...(tuning.schema ? { schema: tuning.schema } : {}),
    }))
  );
}
