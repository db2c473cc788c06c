import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import {
  type AgentSessionsClient,
  AuthenticationError,
  type Follower,
  NotFoundError,
} from '@agent-sessions/core';
import type { App, CustomRoute } from '@slack/bolt';
import { registerListeners } from '../app.js';
import { databasePassword } from '../config/index.js';
import { serveRoutes, urlOf } from '../http/routes-server.js';
import { createLogger, type Logger } from '../logger.js';
import { SecretScrubber } from '../secret-scrubber.js';
import type { SessionPublisher } from '../services/following/session-publisher.js';
import { untilFirstAnswer } from '../services/ops/first-answer.js';
import type { BotMetrics } from '../services/ops/metrics.js';
import { Readiness, RequestsInFlight } from '../services/ops/readiness.js';
import { slackErrorCode } from '../services/slack-out/outbound/index.js';
import type { Store } from '../store/index.js';
import { openStore } from '../store/open.js';
import { agentParts, placeChannelSettings, slackSurface } from './agent-surface.js';
import { reminderService } from './approvals.js';
import { codeChannelParts } from './code-channels.js';
import { SessionWorkspaces, servedSessions, uninstalls, workspaceInstalls } from './installs.js';
import { serviceKeys } from './keys.js';
import { mcpEndpoint } from './mcp.js';
import { access, auditTrail, following, leaseKeeper, peopleServices, sessionPublisher } from './services.js';
import { type ShutdownParts, shutDown } from './shutdown.js';
import { listenerContext, singleWorkspaceSlack, slackApp } from './slack-app.js';
import { slackOut } from './slack-out.js';
import { streamPoster } from './streams.js';
import { startTracing, type Tracing } from './telemetry.js';
import type { BotTuning, People, RunnableConfig, Settings } from './types.js';
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
 * Each side below builds its parts from those the sides before it built, named by side.
 */
export async function startBot(config: RunnableConfig, tuning: BotTuning = {}): Promise<RunningBot> {
  const secrets = new SecretScrubber();
  const settings: Settings = { config, tuning, secrets, logger: botLogger(config, tuning, secrets) };
  // First: the parts built next take OpenTelemetry's API, which the SDK (when traces are on) backs.
  const tracing = await startTracing(config.telemetry, secrets);
  const replicaId = replicaIdOf(settings);
  const store = await botStore(settings);
  const service = serviceSide(settings, store);
  const slack = slackSide(settings, { store, service, replicaId });
  const sessions = sessionSide(settings, { store, service, slack, replicaId });
  const people = peopleSide(settings, { store, service, slack, sessions });
  const background = backgroundSide(settings, { store, service, slack, sessions, people });
  const intake = intakeSide(settings, { store, service, slack, sessions, people, background });
  const bot: Bot = { store, replicaId, tracing, service, slack, sessions, people, background, intake };
  return running(settings, bot, await startParts(settings, bot));
}

/**
 * The service's side: OAuth installs (a token per workspace; undefined with SLACK_BOT_TOKEN), which
 * workspace a session's work is of, the follower with the service's client and the metrics, the audit trail.
 */
function serviceSide(settings: Settings, store: Store) {
  const installs = workspaceInstalls(settings, store);
  const scopes = new SessionWorkspaces(store.sessions, installs !== undefined);
  const { client, follower, metrics } = following(settings, { store, scopes });
  const audit = auditTrail(settings, store);
  return { installs, scopes, client, follower, metrics, audit };
}

/** Slack's side: the surface choice, Slack's client and who the bot is, and Slack-out (the bot's own calls). */
function slackSide(
  settings: Settings,
  { store, service, replicaId }: Pick<Bot, 'store' | 'service' | 'replicaId'>,
) {
  const { installs, follower, metrics } = service;
  const surface = slackSurface(settings);
  const { client, self, authorize } = installs
    ? { client: installs.client, self: installs.self, authorize: undefined }
    : singleWorkspaceSlack(settings, botTokenOf(settings));
  const out = slackOut(settings, { slack: client, store, metrics, self, installs, follower, replicaId });
  return { surface, client, self, authorize, out };
}

/** The sessions' side: who may act and see, service keys, the agent surfaces, the publisher, the leases. */
function sessionSide(settings: Settings, deps: Pick<Bot, 'store' | 'service' | 'slack' | 'replicaId'>) {
  const { store, replicaId } = deps;
  const { client, follower, metrics, audit, scopes, installs } = deps.service;
  const { out, self, surface } = deps.slack;
  const { policy, visibility, members } = access(settings, { slack: deps.slack.client, self });
  const keys = serviceKeys(settings, { store, client, follower, out, metrics, self, scopes });
  const agent = agentParts(settings, { surface, store, out, follower, scopes, self });
  const streams = streamPoster(settings, { store, out, metrics, self, surface });
  const codeChannels = codeChannelParts(settings, { store, out });
  // Sessions' changes that a Home tab may show: said by the publisher and the starts, heard by people's Homes.
  const homeChanges = new EventEmitter();
  const publisher = sessionPublisher(settings, {
    store,
    out,
    metrics,
    policy,
    audit,
    follower,
    streams,
    keys,
    scopes,
    codeChannels,
    homeChanges,
  });
  const serves = installs && servedSessions(installs, scopes);
  const leases = leaseKeeper(settings, {
    store,
    follower,
    replicaId,
    keys,
    out,
    streams,
    agent,
    codeChannels,
    metrics,
    serves,
  });
  return {
    policy,
    visibility,
    members,
    keys,
    agent,
    streams,
    codeChannels,
    homeChanges,
    publisher,
    serves,
    leases,
  };
}

/** People's side: what people do (answer, steer, start, talk to the bot, App Home). */
function peopleSide(settings: Settings, deps: Pick<Bot, 'store' | 'service' | 'slack' | 'sessions'>): People {
  const { client, follower, metrics, audit, installs } = deps.service;
  const { policy, visibility, publisher, leases, keys, agent, codeChannels, homeChanges } = deps.sessions;
  return peopleServices(settings, {
    store: deps.store,
    client,
    slack: deps.slack.client,
    out: deps.slack.out,
    follower,
    metrics,
    audit,
    policy,
    visibility,
    publisher,
    leases,
    keys,
    agent,
    codeChannels,
    homeChanges,
    installs,
  });
}

/** The background work: the reminders of questions nobody answers, and Workflow Builder's steps' checks. */
function backgroundSide(
  settings: Settings,
  deps: Pick<Bot, 'store' | 'service' | 'slack' | 'sessions' | 'people'>,
) {
  const { store, people } = deps;
  const { installs, metrics, audit, scopes } = deps.service;
  const { client: slack, out } = deps.slack;
  const { keys, policy, members, serves } = deps.sessions;
  // Who the bot is, said by auth.test once it answers (firstAnswers): until then the reminders' "bot".
  const identity = { botUserId: 'bot' };
  const botUserId = () => identity.botUserId;
  const reminders = reminderService(settings, {
    store,
    keys,
    slack,
    out,
    people,
    policy,
    audit,
    metrics,
    scopes,
    botUserId,
    serves,
  });
  const workflows = workflowSteps(settings, { store, slack, out, people, keys, installs, policy, members });
  return { identity, reminders, workflows };
}

/**
 * The intake: where requests come in. The MCP endpoint over people's services, then the Bolt app serving
 * Slack's requests beside the probes, /metrics, /audit, the install routes and /mcp, with its listeners.
 */
function intakeSide(
  settings: Settings,
  deps: Pick<Bot, 'store' | 'service' | 'slack' | 'sessions' | 'people' | 'background'>,
) {
  const { store, people } = deps;
  const { installs, follower, client, metrics, audit } = deps.service;
  const { surface, authorize, self } = deps.slack;
  const { keys, visibility, agent, leases } = deps.sessions;
  const slack = deps.slack.client;
  const mcp = mcpEndpoint(settings, { store, installs, follower, keys, visibility, slack, self, people });
  const readiness = new Readiness();
  const requests = new RequestsInFlight();
  const { app, routes } = slackApp(settings, {
    store,
    client,
    metrics,
    audit,
    surface,
    installs,
    readiness,
    requests,
    authorize,
    mcp,
  });
  const removals =
    installs && uninstalls(store, { releaseLeases: () => leases.refresh(), logger: settings.logger });
  const { workflows } = deps.background;
  registerListeners(app, listenerContext(settings, { people, agent, uninstalls: removals, workflows }));
  return { readiness, requests, app, routes };
}

type ServiceSide = ReturnType<typeof serviceSide>;
type SlackSide = ReturnType<typeof slackSide>;
type SessionSide = ReturnType<typeof sessionSide>;

/** The bot as built: each side's parts under its side's name. */
interface Bot {
  store: Store;
  replicaId: string;
  tracing: Tracing;
  service: ServiceSide;
  slack: SlackSide;
  sessions: SessionSide;
  people: People;
  background: ReturnType<typeof backgroundSide>;
  intake: ReturnType<typeof intakeSide>;
}

/** What the start leaves running beside the parts: the server, the recovery passes, the first answers asked. */
interface Started {
  server: Server;
  recovery: { stop(): void };
  answers: { stop(): void };
}

/**
 * Started in order: served first (the probes answer whatever Slack and the service do), Slack's and the
 * service's first answers asked in the background, keys and tokens sealed, then following, leases,
 * reminders, recovery. No step here waits on Slack or the service: `/readyz` says what is still awaited.
 */
async function startParts(settings: Settings, bot: Bot): Promise<Started> {
  const { config, logger } = settings;
  const { store, intake } = bot;
  const { installs, follower } = bot.service;
  const { keys, leases, publisher } = bot.sessions;
  const { self } = bot.slack;
  const server = await listen(intake.app, intake.routes, config);
  const answers = firstAnswers(settings, bot);
  try {
    await reencryptKeys(keys, logger);
    await installs?.sealStored(); // Slack's tokens: rows still in plain text are sealed, and rotation
    // With one bot token, channel defaults are placed once auth.test names its workspace (firstAnswers).
    if (installs) await placeChannelSettings(store, { oauth: true, self, logger });
  } catch (error) {
    // A start that fails here (the store) leaves nothing listening or asking behind it.
    answers.stop();
    server.closeAllConnections();
    void intake.app.stop().catch(() => {});
    server.close();
    throw error;
  }
  follower.start();
  await leases.start();
  bot.background.reminders.start();
  bot.background.workflows.start();
  const recovery = recoverUnsentPosts({ publisher, follower, logger, everyMs: config.leaseTtlMs });
  intake.readiness.started();
  return { server, recovery, answers };
}

/**
 * What needs Slack's or the service's answer, asked in the background until it comes (first-answer.ts):
 * Socket Mode's connection; with one bot token, who the bot is (auth.test: the audit's team, the answerer
 * of a question rejected on timeout, the workspace unplaced channel defaults belong to); the service's
 * first answer, said in `/readyz` but never waited for (people get a clear word while it is away).
 */
function firstAnswers({ config, logger }: Settings, bot: Bot): { stop(): void } {
  const { store, intake } = bot;
  const { installs, audit, client } = bot.service;
  const { self } = bot.slack;
  const { identity } = bot.background;
  const { readiness, app } = intake;
  const log = logger.child({ component: 'start' });
  const common = { readiness, logger: log };
  const asked: Array<{ stop(): void }> = [];
  if (config.slack.appToken) {
    const connect = () => app.start().then(() => undefined);
    asked.push(
      untilFirstAnswer({
        ...common,
        part: 'slack',
        waitingFor: 'Socket Mode not connected yet',
        ask: connect,
        refusal: refusedToken('SLACK_APP_TOKEN'),
      }),
    );
  }
  if (!installs) {
    const who = untilFirstAnswer({
      ...common,
      part: 'slack',
      waitingFor: 'auth.test not answered yet',
      ask: self,
      refusal: refusedToken('SLACK_BOT_TOKEN'),
    });
    void who.answer.then(async (me) => {
      if (me.userId) identity.botUserId = me.userId;
      audit.teamId = me.teamId;
      await placeChannelSettings(store, { oauth: false, self, logger }).catch((error: unknown) =>
        logger.warn({ err: error }, 'could not place unplaced channel defaults'),
      );
    });
    asked.push(who);
  }
  asked.push(
    untilFirstAnswer({
      ...common,
      part: 'service',
      waitingFor: 'not answered yet',
      gates: false,
      ask: () => serviceAnswers(client),
      refusal: (error) =>
        error instanceof AuthenticationError ? 'AGENT_API_KEY was refused (401)' : undefined,
    }),
  );
  return {
    stop: () => {
      for (const one of asked) one.stop();
    },
  };
}

/** Slack's answer that asking again won't change: the token itself refused. Named, never quoted. */
const REFUSED = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired']);
const refusedToken = (variable: string) => (error: unknown) => {
  const code = slackErrorCode(error);
  return code !== undefined && REFUSED.has(code) ? `${variable} was refused (${code})` : undefined;
};

/** The service answers with our key: a session that can't exist is not found (as /healthz asks). */
async function serviceAnswers(client: AgentSessionsClient): Promise<void> {
  await client.sessions
    .get('healthcheck-probe', { timeoutMs: 3_000, maxRetries: 0 })
    .catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    });
}

/** The bot as started: its address said in the log, and its graceful stop (shutdown.ts). */
function running(settings: Settings, bot: Bot, started: Started): RunningBot {
  const { config, logger } = settings;
  const { store, replicaId } = bot;
  const { app } = bot.intake;
  const { follower, metrics, installs } = bot.service;
  const url = urlOf(started.server, config.host);
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
    stopping ??= shutDown(
      shutdownParts(settings, bot, started),
      options.graceMs ?? config.shutdownGraceMs,
    ).then(() => logger.info({ replicaId }, 'agent sessions bot stopped'));
    return stopping;
  };
  const eventsUrl = url && !config.slack.appToken ? `${url}/slack/events` : undefined;
  return { app, url, eventsUrl, store, follower, metrics, logger, replicaId, stop };
}

/** What a replica going away stops, finishes and closes, in shutdown.ts's order. */
function shutdownParts({ config, tuning, logger }: Settings, bot: Bot, started: Started): ShutdownParts {
  const { readiness, requests, app } = bot.intake;
  const { workflows } = bot.background;
  const { leases, streams } = bot.sessions;
  // Home refreshes, recovery passes and first answers stop with the reminders: none starts new work after.
  const reminders = {
    stop: async () => {
      started.answers.stop();
      const homesStopped = bot.people.homes.stop();
      started.recovery.stop();
      await bot.background.reminders.stop();
      await homesStopped;
    },
  };
  return {
    readiness,
    requests,
    app,
    server: started.server,
    socketMode: config.slack.appToken !== undefined,
    reminders,
    workflows,
    leases,
    follower: bot.service.follower,
    out: bot.slack.out,
    streams,
    closeStore: async () => {
      if (!tuning.store) await bot.store.close();
      await bot.tracing.shutdown();
    },
    logger,
    replicaId: bot.replicaId,
  };
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
 * HTTP mode listens on HOST:PORT for Slack and the routes. Socket Mode serves only the health, metrics
 * and audit routes there — on a server of ours, as Bolt's would bind every interface whatever HOST says
 * (a taken port fails the start cleanly) — and connects out in the background (firstAnswers).
 */
async function listen(app: App, routes: CustomRoute[], config: RunnableConfig): Promise<Server> {
  if (config.slack.appToken) return serveRoutes(routes, { port: config.port, host: config.host });
  return (await app.start({ port: config.port, host: config.host })) as Server;
}

/** One bot token (no OAuth installs): the config has it, as config/slack.ts requires. */
function botTokenOf({ config }: Pick<Settings, 'config'>): string {
  if (!config.slack.botToken) throw new Error('SLACK_BOT_TOKEN is required without OAuth installs');
  return config.slack.botToken;
}

/** A logger that never prints the bot's secrets: the settings', and those decrypted since (`scrubber`). */
function botLogger(config: RunnableConfig, tuning: BotTuning, scrubber: SecretScrubber): Logger {
  const { slack, service } = config;
  return createLogger({
    scrubber,
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
function replicaIdOf({ config, tuning }: Pick<Settings, 'config' | 'tuning'>): string {
  // PGlite is one process's alone: a restarted bot is the same replica and keeps its leases at once.
  return (
    tuning.replicaId ??
    config.replicaId ??
    (config.databaseUrl ? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}` : 'embedded')
  );
}

async function botStore({ config, tuning }: Pick<Settings, 'config' | 'tuning'>): Promise<Store> {
  return (
    tuning.store ??
    (await openStore({
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir }),
      ...(tuning.schema ? { schema: tuning.schema } : {}),
    }))
  );
}
