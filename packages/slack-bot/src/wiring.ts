/**
 * The bot's parts, one builder each, in the order `startBot` calls them: what a part needs is what its
 * builder takes. Listeners get services only (`listenerContext`); the store and the service's client stay here.
 */
import { AgentSessionsClient, Follower } from '@agent-sessions/core';
import { type App, type CustomRoute, LogLevel, webApi } from '@slack/bolt';
import { createSlackApp, ensureSlash } from './app.js';
import type { LateBound } from './late-bound.js';
import type { ListenerContext } from './listeners/context.js';
import { boltLogger } from './logger.js';
import { LeaseKeeper, type LeaseKeeperOptions } from './services/following/lease-keeper.js';
import { SessionPublisher } from './services/following/session-publisher.js';
import { scopeRequests } from './services/installs/scope.js';
import { AuditService } from './services/ops/audit.js';
import { healthRoutes } from './services/ops/health.js';
import { BotMetrics } from './services/ops/metrics.js';
import { AnsweringService } from './services/people/answering.js';
import { BudgetCeiling } from './services/people/budget-ceiling.js';
import { ConversationService } from './services/people/conversation.js';
import { SessionDirectory } from './services/people/directory.js';
import { FeedbackService } from './services/people/feedback.js';
import { HomeTeam } from './services/people/home-team.js';
import {
  type ActPolicy,
  Approvers,
  ChannelMembers,
  channelPolicy,
  choosePolicy,
} from './services/people/policy.js';
import { StartingService } from './services/people/starting.js';
import { SteeringService } from './services/people/steering.js';
import { ThreadContextReader } from './services/people/thread-context.js';
import { SessionVisibility } from './services/people/visibility.js';
import { CardUpdater } from './services/slack-out/card-updater.js';
import { Notifier } from './services/slack-out/notifier.js';
import { OutboundQueue, queuedChat } from './services/slack-out/outbound.js';
import type { StreamPoster } from './services/slack-out/stream-poster.js';
import { ThreadPoster } from './services/slack-out/thread-poster.js';
import type { WorkspaceSurfaces } from './services/slack-out/workspace-surfaces.js';
import type { Store } from './store/index.js';
import { agentAnswered, agentPeople, agentSignalled, agentStarted } from './wiring-agent.js';
import { workspaceSlackOut } from './wiring-installs.js';
import { keyLinkingFor } from './wiring-keys.js';
import type { AgentParts, Parts, People, Settings, SlackOut } from './wiring-types.js';

/**
 * The Agent Session Service's client, and the follower that watches sessions through it. The metrics'
 * queue-depth gauges read the outbound queue, which is built later (it counts its calls in the metrics).
 */
export function following(
  { config, tuning, logger }: Settings,
  store: Store,
  outbound: LateBound<Pick<OutboundQueue, 'depths'>>,
) {
  const client = new AgentSessionsClient({
    baseUrl: config.service.url,
    apiKey: config.service.apiKey,
    logger: logger.child({ component: 'client' }),
  });
  const follower = new Follower({
    client,
    store: store.followState,
    requestsPerSecond: config.requestsPerSecond,
    // A poll is in flight until its events are handled, and a handler may wait for Slack's limits (a
    // finished session's report waits for its channel, its card for the workspace's edit budget). Only
    // the request budget bounds the service's load; a session waiting for Slack must not hold up others.
    maxConcurrentPolls: 1_000,
    logger: logger.child({ component: 'follower' }),
    ...(tuning.schedule ? { schedule: tuning.schedule } : {}),
  });
  // A scrape before the queue exists (none: the routes are served later) reads no depths.
  const metrics = new BotMetrics(
    () => follower.stats(),
    () => outbound.peek()?.depths() ?? new Map(),
  );
  follower.on('error', (event) => {
    metrics.errors.inc({ where: 'follow' });
    logger.warn(
      { sessionId: event.sessionId, err: event.error, fatal: event.fatal },
      'following a session failed',
    );
  });
  return { client, follower, metrics };
}

export function auditTrail({ config, tuning, logger }: Settings, store: Store): AuditService {
  return new AuditService({
    audit: store.audit,
    logger: logger.child({ component: 'audit' }),
    retentionDays: config.approvals.auditRetentionDays,
    workspaces: config.slack.oauth ? 'many' : 'one', // GET /audit requires `team` under OAuth
    ...(tuning.reminders?.now ? { now: tuning.reminders.now } : {}),
  });
}

type AppParts = Pick<Parts, 'store' | 'client' | 'metrics' | 'audit' | 'installs'> & {
  surface?: WorkspaceSurfaces;
};

/** The Bolt app, serving /healthz, /metrics and /audit beside Slack's requests. */
export function slackApp(
  { config, logger }: Settings,
  { store, client, metrics, audit, surface, installs }: AppParts,
): { app: App; routes: CustomRoute[] } {
  const health = { store, client, metrics, surface, metricsToken: config.metricsToken };
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
  });
  scopeRequests(app, installs?.admission, logger); // each request as its workspace's work
  return { app, routes };
}

/**
 * How the bot's own calls reach Slack: the paced queue, the thread poster and the card updater. The
 * poster tells the session publisher when a batch sent in the background can't post, and the publisher
 * posts through the poster: `publisher` is bound once it is built.
 */
export function slackOut(
  { config, tuning, logger }: Settings,
  parts: Pick<Parts, 'slack' | 'store' | 'metrics' | 'self' | 'installs' | 'follower'> & {
    publisher: LateBound<Pick<SessionPublisher, 'cannotPost'>>;
  },
): SlackOut {
  const { slack, store, metrics, self, installs, follower, publisher } = parts;
  // Replicas (PostgreSQL) spend one budget: Slack limits the app per workspace, not per process.
  const outboundOptions = {
    ...(config.databaseUrl ? { shared: store.slackBudgets } : {}),
    ...tuning.outbound,
    pacing: config.slackPacing,
  };
  // OAuth installs: each workspace its own queues, budgets, card edits and token (wiring-installs.ts).
  const perWorkspace =
    installs && workspaceSlackOut(installs, { logger, metrics, outboundOptions, config, tuning });
  const outbound = perWorkspace?.outbound ?? new OutboundQueue(logger, metrics, outboundOptions);
  // What goes through the outbound queue uses a client that answers a 429 at once (the queue waits its
  // Retry-After, once for the channel); with pacing off, Bolt's client retries 429s itself.
  const paced =
    perWorkspace?.paced ??
    (config.slackPacing === 'on'
      ? new webApi.WebClient(config.slack.botToken ?? '', {
          logger: boltLogger(logger),
          logLevel: LogLevel.INFO,
          rejectRateLimitedCalls: true,
          ...(config.slack.apiUrl ? { slackApiUrl: ensureSlash(config.slack.apiUrl) } : {}),
        })
      : slack);
  // A new session's card and a prompt marked answered wait in the same queue, first in their channel.
  const chat = config.slackPacing === 'on' ? queuedChat(paced, outbound) : slack;
  const poster = new ThreadPoster(
    paced,
    store.posts,
    logger,
    metrics,
    {
      ...tuning.posts,
      self,
      // A poll still in flight when its lease went records the chatter it brings but leaves it to the owner.
      owns: (sessionId) => follower.isFollowing(sessionId),
      onCannotPost: (place, error) => publisher.get().cannotPost(place, error),
    },
    outbound,
  );
  const cards = perWorkspace?.cards ?? new CardUpdater(paced, logger, metrics, tuning.cards, outbound);
  return { outbound, paced, chat, poster, cards };
}

/**
 * Who may act (`AGENT_APPROVAL_POLICY`, `AGENT_MAX_BUDGET`), asked by everything that answers or steers, and
 * who may see a session, asked by everything that shows one.
 */
export function access(
  { config, tuning, logger }: Settings,
  { slack, self }: Pick<Parts, 'slack' | 'self'>,
): { policy: ActPolicy; visibility: SessionVisibility } {
  const membersTtlMs = tuning.policy?.membersTtlMs;
  const approvers = new Approvers(slack, config.approvers, logger, membersTtlMs);
  // One reader of channel members (Slack Connect guests left out) for acting and for reading.
  const homeTeam = new HomeTeam(slack, logger, membersTtlMs, self);
  const members = new ChannelMembers(slack, approvers, logger, membersTtlMs, homeTeam);
  const { maxBudget, policy: name } = config.approvals;
  const chosen = choosePolicy(name, approvers, members);
  const policy =
    maxBudget === undefined
      ? chosen
      : new BudgetCeiling(chosen, approvers, maxBudget, name === 'approvers-only');
  return { policy, visibility: new SessionVisibility({ members, approvers }) };
}

/** The follower's events into Slack: the card, the thread, prompts and the report. */
export function sessionPublisher(
  { config, logger }: Settings,
  {
    store,
    out,
    metrics,
    policy,
    audit,
    follower,
    streams,
    keys,
    scopes,
  }: Pick<Parts, 'store' | 'out' | 'metrics' | 'policy' | 'audit' | 'follower' | 'keys' | 'scopes'> & {
    streams?: StreamPoster;
  },
): SessionPublisher {
  const publisher = new SessionPublisher({
    store,
    poster: out.poster,
    ...(streams ? { streams } : {}),
    cards: out.cards,
    metrics,
    logger,
    slack: out.paced,
    showReasoning: config.showReasoning,
    answerers: (session, request) => policy.whoMayAnswer?.(session, request).line,
    latestDecision: (sessionId) => audit.latestDecision(sessionId),
    keyProblem: (session, error) => keys.guard.onError(session, error),
    inSession: (sessionId, fn) => scopes.run(sessionId, fn),
  });
  publisher.attach(follower);
  return publisher;
}

/** Which sessions this replica follows; another replica's card is forgotten when its lease is lost. */
export function leaseKeeper(
  { config, tuning, logger }: Settings,
  {
    store,
    follower,
    out,
    replicaId,
    streams,
    keys,
    agent,
    serves,
    metrics,
  }: Pick<Parts, 'store' | 'follower' | 'out' | 'replicaId' | 'keys' | 'metrics'> & {
    streams?: StreamPoster;
    agent?: Pick<AgentParts, 'sessions'>;
    serves?: LeaseKeeperOptions['serves']; // SLACK_ALLOWED_TEAMS: a dropped workspace's sessions stay put
  },
): LeaseKeeper {
  return new LeaseKeeper(store, follower, logger, {
    owner: replicaId,
    ttlMs: config.leaseTtlMs,
    // Each session with its key's reader (its own budget), or left alone while its key can't be used.
    readerFor: (sessionId) => keys.guard.readerFor(sessionId),
    ...(serves ? { serves } : {}),
    ...tuning.leases,
    // Another replica edits its card from now on: what this one last showed may no longer be there.
    onLost: (sessionId) => {
      out.cards.forget(sessionId);
      // Its chatter waiting here (recorded with its content) is the new owner's to post: not both.
      out.poster.withdraw(sessionId);
      streams?.withdraw(sessionId);
      agent?.sessions.forget(sessionId);
    },
    // Followed from now on (a start, a take-over): Slack's status is set once from the service's.
    onFollowed: (sessionId) => agent?.sessions.resync(sessionId),
    onPassed: (held) => metrics.leasePassed(held),
  });
}

/** What people do: answer, steer, start, talk to the bot, give feedback, look sessions up. */
export function peopleServices(
  { config, logger }: Settings,
  parts: Omit<Parts, 'people' | 'replicaId' | 'botUserId' | 'installs'>,
): People {
  const { store, slack, out, follower, metrics, policy, visibility, audit, publisher, leases, keys } = parts;
  // Every call about a session goes with that session's key, whoever acts.
  const client = keys.calls;
  const { sessions, prompts, events } = store;
  const { agent } = parts;
  const notifier = new Notifier({
    slack: out.paced,
    follower,
    leases: store.leases,
    logger,
    outbound: out.outbound,
  });
  const common = { client, notifier, metrics, audit };
  const answering = new AnsweringService({
    ...{ ...common, prompts, slack: out.chat, policy, visibility, logger },
    answered: agentAnswered(agent),
  });
  const steering = new SteeringService({
    ...common,
    sessions,
    prompts,
    policy,
    visibility,
    snapshot: (sessionId) => publisher.snapshot(sessionId),
    signalled: agentSignalled(agent),
  });
  const agentSide = agentPeople({ config, logger }, { agent, slack, store, steering, notifier });
  const starting = new StartingService({
    ...common,
    sessions,
    slack: out.chat,
    channelAllowed: channelPolicy(config.allowedChannels),
    logger,
    started: async (sessionId) => {
      // The card's first state (its buttons) is progress: when the edit budget is scarce, final states
      // of other sessions go first, and the session's next change folds into this edit.
      out.cards.schedule(sessionId, () => publisher.card(sessionId), { now: true });
      agentStarted(agent)(sessionId);
      await leases.refresh();
    },
    ...(config.approvals.maxBudget === undefined ? {} : { maxBudget: config.approvals.maxBudget }),
    withDefaults: agentSide.withDefaults,
    keys: keys.service,
  });
  const { threadReplies } = config;
  // Slack's reads may be one a minute per workspace: received messages first, one budget for all replicas.
  const threadContext = new ThreadContextReader({
    messages: store.threadMessages,
    budgets: store.slackBudgets,
    slack,
    logger,
    limits: config.threadContext,
  });
  const conversation = new ConversationService({
    ...{ events, sessions, prompts, starting, answering, steering, policy, notifier },
    ...{ slack, metrics, logger, threadReplies, threadContext },
  });
  const feedback = new FeedbackService({ sessions, feedback: store.feedback, metrics, logger });
  const card = (sessionId: string) => publisher.card(sessionId);
  const directory = new SessionDirectory({
    client,
    sessions,
    prompts,
    events,
    card,
    policy,
    visibility,
    audit,
  });
  const keyLinking = keyLinkingFor({ config, logger }, { keys, slack, directory, client: parts.client });
  const services = { notifier, answering, steering, starting, conversation, feedback, directory };
  return { ...services, ...agentSide, keyLinking };
}

/** What the listeners may use: the services, never the store or the service's client. */
export function listenerContext(
  { logger }: Settings,
  { people, agent }: Pick<Parts, 'people' | 'agent'>,
): ListenerContext {
  const { answering, steering, starting, conversation, feedback, directory } = people;
  const { stopping, channelSettings } = people;
  const services = { answering, steering, starting, conversation, feedback, directory, logger };
  return { ...services, stopping, channelSettings, messagesTab: agent.messagesTab, keys: people.keyLinking };
}
