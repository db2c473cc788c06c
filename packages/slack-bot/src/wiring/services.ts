/**
 * The services over the store and Slack-out, one builder each: the follower and what it feeds (the session
 * publisher, the lease keeper), the audit trail, who may act and see, and what people do. What a part needs
 * is what its builder takes.
 */

import type { EventEmitter } from 'node:events';
import { AgentSessionsClient, Follower } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import type { CodeChannels } from '../services/code-channels/code-channels.js';
import { LeaseKeeper, type LeaseKeeperOptions } from '../services/following/lease-keeper.js';
import { SessionPublisher } from '../services/following/session-publisher.js';
import type { SessionWorkspaces } from '../services/installs/scope.js';
import type { KeyParts } from '../services/keys/index.js';
import { AuditService } from '../services/ops/audit.js';
import { BotMetrics } from '../services/ops/metrics.js';
import { pollSpan, serviceRequestTracer } from '../services/ops/tracing.js';
import { AnsweringService } from '../services/people/answering.js';
import { BudgetCeiling } from '../services/people/budget-ceiling.js';
import { ConversationService } from '../services/people/conversation.js';
import { SessionDirectory } from '../services/people/directory.js';
import { FeedbackService } from '../services/people/feedback.js';
import { HomeRefresher } from '../services/people/home-refresh.js';
import { HomeViews } from '../services/people/home-views.js';
import { OwnOrganisation } from '../services/people/own-organisation.js';
import {
  type ActPolicy,
  Approvers,
  ChannelMembers,
  channelPolicy,
  choosePolicy,
} from '../services/people/policy.js';
import { StartingService } from '../services/people/starting.js';
import { SteeringService } from '../services/people/steering.js';
import { ThreadContextReader } from '../services/people/thread-context.js';
import { SessionVisibility } from '../services/people/visibility.js';
import type { StreamPoster } from '../services/slack-out/agent-surface/index.js';
import type { BotIdentity, SlackClient } from '../services/slack-out/outbound/index.js';
import { Notifier } from '../services/slack-out/thread/index.js';
import type { Store } from '../store/index.js';
import { currentWorkspace } from '../workspace.js';
import { agentAnswered, agentPeople, agentSignalled, agentStarted } from './agent-surface.js';
import { channelSteering } from './code-channels.js';
import type { Installs } from './installs.js';
import { keyLinkingFor } from './keys.js';
import { mcpConnections } from './mcp.js';
import type { AgentParts, People, Settings, SlackOut } from './types.js';

/** The Agent Session Service's client, the follower that watches sessions through it, and the metrics. */
export function following(
  { config, tuning, logger }: Settings,
  { store, scopes }: { store: Pick<Store, 'followState'>; scopes: Pick<SessionWorkspaces, 'run'> },
) {
  // Traces: a span per request to the service, its `traceparent` sent; a span per poll around it.
  const traces = config.telemetry.traces;
  const client = new AgentSessionsClient({
    baseUrl: config.service.url,
    apiKey: config.service.apiKey,
    logger: logger.child({ component: 'client' }),
    ...(traces ? { tracer: serviceRequestTracer } : {}),
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
    ...(traces ? { aroundPoll: pollSpan } : {}),
    // Whoever listens (the publisher, the agent surfaces, metrics) handles each event as its session's
    // workspace's work.
    aroundHandler: (event, handle) => scopes.run(event.sessionId, handle),
  });
  // The queue's depths are registered by Slack-out once it has built the queue (slack-out.ts).
  const metrics = new BotMetrics(() => follower.stats(), config.requestsPerSecond);
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

/**
 * Who may act (`AGENT_APPROVAL_POLICY`, `AGENT_MAX_BUDGET`), asked by everything that answers or steers, and
 * who may see a session, asked by everything that shows one.
 */
export function access(
  { config, tuning, logger }: Settings,
  { slack, self }: { slack: SlackClient; self: () => Promise<BotIdentity> },
): { policy: ActPolicy; visibility: SessionVisibility; members: ChannelMembers } {
  const membersTtlMs = tuning.policy?.membersTtlMs;
  const approvers = new Approvers(slack, config.approvers, logger, membersTtlMs);
  // One reader of channel members (Slack Connect guests left out) for acting and for reading.
  const ownOrganisation = new OwnOrganisation(slack, logger, membersTtlMs, self);
  const members = new ChannelMembers(slack, approvers, logger, membersTtlMs, ownOrganisation);
  const { maxBudget, policy: name } = config.approvals;
  const chosen = choosePolicy(name, approvers, members);
  const policy =
    maxBudget === undefined
      ? chosen
      : new BudgetCeiling(chosen, approvers, maxBudget, name === 'approvers-only');
  return { policy, visibility: new SessionVisibility({ members, approvers }), members };
}

/** What the session publisher is built from. */
export interface PublisherDeps {
  store: Store;
  out: SlackOut;
  metrics: BotMetrics;
  policy: Pick<ActPolicy, 'whoMayAnswer'>;
  audit: Pick<AuditService, 'latestDecision'>;
  follower: Follower;
  streams: StreamPoster;
  keys: Pick<KeyParts, 'guard'>;
  scopes: Pick<SessionWorkspaces, 'run'>;
  codeChannels: CodeChannels;
  /** Told whenever a session's change may change what a Home tab shows. */
  homeChanges: EventEmitter;
}

/** The follower's events into Slack: the card, the thread, prompts and the report. */
export function sessionPublisher({ config, logger }: Settings, deps: PublisherDeps): SessionPublisher {
  const { store, out, policy, audit, keys, scopes, homeChanges } = deps;
  const publisher = new SessionPublisher({
    store,
    owner: out.owner,
    poster: out.poster,
    outbound: out.outbound,
    streams: deps.streams,
    cards: out.cards,
    metrics: deps.metrics,
    logger,
    slack: out.paced,
    showReasoning: config.showReasoning,
    answerers: (session, request) => policy.whoMayAnswer?.(session, request).line,
    latestDecision: (sessionId) => audit.latestDecision(sessionId),
    keyProblem: (session, error) => keys.guard.onError(session, error),
    inSession: (sessionId, fn) => scopes.run(sessionId, fn),
    codeChannels: deps.codeChannels,
    homeChanged: () => homeChanges.emit('changed'),
  });
  publisher.attach(deps.follower);
  return publisher;
}

/** What the lease keeper is built from. */
export interface LeaseDeps {
  store: Store;
  follower: Follower;
  replicaId: string;
  keys: Pick<KeyParts, 'guard'>;
  /** What is forgotten or withdrawn of a session whose lease another replica took. */
  out: Pick<SlackOut, 'cards' | 'poster'>;
  streams: Pick<StreamPoster, 'withdraw'>;
  agent: Pick<AgentParts, 'sessions'>;
  codeChannels: Pick<CodeChannels, 'ensure'>;
  metrics: Pick<BotMetrics, 'leasePassed'>;
  /** SLACK_ALLOWED_TEAMS: a dropped workspace's sessions stay put (undefined with one bot token). */
  serves: LeaseKeeperOptions['serves'] | undefined;
}

/** Which sessions this replica follows; another replica's card is forgotten when its lease is lost. */
export function leaseKeeper({ config, tuning, logger }: Settings, deps: LeaseDeps): LeaseKeeper {
  const { out, streams, agent, keys, serves } = deps;
  return new LeaseKeeper(deps.store, deps.follower, logger, {
    owner: deps.replicaId,
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
      streams.withdraw(sessionId);
      agent.sessions.forget(sessionId);
    },
    // Followed from now on (a start, a take-over): Slack's status is set once from the service's.
    onFollowed: (sessionId) => {
      agent.sessions.resync(sessionId);
      // A channel of its own asked for and not made yet (a crash in between): made now, once.
      deps.codeChannels.ensure(sessionId).catch((error: unknown) => {
        logger.warn({ err: error, sessionId }, 'could not make the session its own channel');
      });
    },
    onPassed: (held) => deps.metrics.leasePassed(held),
  });
}

/** What people's services are built from. */
export interface PeopleDeps {
  store: Store;
  /** The service's own client: only to sign up for a key (each call about a session goes with its key). */
  client: AgentSessionsClient;
  slack: SlackClient;
  out: SlackOut;
  follower: Follower;
  metrics: BotMetrics;
  audit: AuditService;
  policy: ActPolicy;
  visibility: SessionVisibility;
  publisher: Pick<SessionPublisher, 'snapshot' | 'card'>;
  leases: Pick<LeaseKeeper, 'refresh'>;
  keys: KeyParts;
  agent: AgentParts;
  codeChannels: CodeChannels;
  /** Heard by the Home tabs; told by a start. */
  homeChanges: EventEmitter;
  /** OAuth installs (undefined with one bot token): whether App Home's MCP tokens are a workspace's own. */
  installs: Installs | undefined;
}

/** What people do: answer, steer, start, talk to the bot, give feedback, look sessions up. */
export function peopleServices(settings: Settings, deps: PeopleDeps): People {
  const { store, out, follower, keys, metrics, audit } = deps;
  const notifier = new Notifier({
    slack: out.paced,
    follower,
    leases: store.leases,
    logger: settings.logger,
    outbound: out.outbound,
  });
  // Every call about a session goes with that session's key, whoever acts.
  const common = { client: keys.calls, notifier, metrics, audit };
  const { answering, steering } = answeringAndSteering(settings, deps, common);
  const agentSide = agentPeople(settings, {
    agent: deps.agent,
    slack: deps.slack,
    store,
    steering,
    notifier,
  });
  const starting = startingService(settings, deps, { ...common, withDefaults: agentSide.withDefaults });
  const conversation = conversationService(settings, deps, { notifier, starting, answering, steering });
  const { sessions, prompts, events } = store;
  const feedback = new FeedbackService({
    sessions,
    feedback: store.feedback,
    metrics,
    logger: settings.logger,
  });
  const card = (sessionId: string) => deps.publisher.card(sessionId);
  const { policy, visibility } = deps;
  const directory = new SessionDirectory({
    client: keys.calls,
    sessions,
    prompts,
    events,
    card,
    policy,
    visibility,
    audit,
  });
  const home = appHome(settings, deps, directory);
  const channelSteer = channelSteering(store, { steering, directory, notifier });
  return {
    notifier,
    answering,
    steering,
    starting,
    conversation,
    feedback,
    directory,
    channelSettings: agentSide.channelSettings,
    stopping: agentSide.stopping,
    withDefaults: agentSide.withDefaults,
    keyLinking: home.keyLinking,
    homes: home.homes,
    homeViews: home.homeViews,
    ...(home.mcp ? { mcp: home.mcp } : {}),
    channelSteering: channelSteer,
  };
}

/** What every acting service is given: the sessions' calls (each with its key), the notifier, metrics, audit. */
interface Common {
  client: KeyParts['calls'];
  notifier: Notifier;
  metrics: BotMetrics;
  audit: AuditService;
}

/** Answering a question and steering a session: both asked who may act and see, both shown on Slack's surface. */
function answeringAndSteering(
  { logger }: Pick<Settings, 'logger'>,
  { store, out, policy, visibility, publisher, agent }: PeopleDeps,
  common: Common,
) {
  const { sessions, prompts } = store;
  const answering = new AnsweringService({
    ...common,
    prompts,
    slack: out.chat,
    policy,
    visibility,
    logger,
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
  return { answering, steering };
}

/** `/agent start` and every other start: its own channel first, then its card, Slack's agent session, the leases. */
function startingService(
  { config, logger }: Pick<Settings, 'config' | 'logger'>,
  { store, out, visibility, publisher, agent, codeChannels, homeChanges, leases, keys }: PeopleDeps,
  common: Common & Pick<People, 'withDefaults'>,
): StartingService {
  return new StartingService({
    ...common,
    sessions: store.sessions,
    slack: out.chat,
    channelAllowed: channelPolicy(config.allowedChannels),
    inChannel: (userId, channelId) => visibility.inChannel(userId, channelId),
    logger,
    started: async (sessionId, input) => {
      // Its own channel first, so the follower's first posts already go there.
      if (input.codeChannel) await codeChannels.open(sessionId, input.keepCodeChannel ? 'keep' : 'archive');
      // The card's first state (its buttons) is progress: when the edit budget is scarce, final states
      // of other sessions go first, and the session's next change folds into this edit.
      out.cards.schedule(sessionId, () => publisher.card(sessionId), { now: true });
      agentStarted(agent)(sessionId);
      homeChanges.emit('changed');
      await leases.refresh();
    },
    ...(config.approvals.maxBudget === undefined ? {} : { maxBudget: config.approvals.maxBudget }),
    keys: keys.service,
  });
}

/** Talking to the bot in a session's thread or a DM, with the thread's context read within Slack's read budget. */
function conversationService(
  { config, logger }: Pick<Settings, 'config' | 'logger'>,
  { store, slack, metrics, policy, out }: PeopleDeps,
  {
    notifier,
    starting,
    answering,
    steering,
  }: Pick<People, 'notifier' | 'starting' | 'answering' | 'steering'>,
): ConversationService {
  const { events, sessions, prompts } = store;
  // Slack's reads may be one a minute per workspace: received messages first, one budget for all replicas.
  const threadContext = new ThreadContextReader({
    messages: store.threadMessages,
    budgets: store.slackBudgets,
    slack,
    logger,
    limits: config.threadContext,
  });
  return new ConversationService({
    notifier,
    starting,
    answering,
    steering,
    events,
    sessions,
    prompts,
    policy,
    slack,
    metrics,
    logger,
    threadReplies: config.threadReplies,
    threadContext,
    personReplied: (sessionId) => out.poster.endTail(sessionId),
  });
}

/** App Home: the service key's section, the agent hosts' (MCP), then the sessions, drawn again as they change. */
function appHome(
  { config, logger, secrets }: Settings,
  { store, keys, slack, client, installs, homeChanges }: PeopleDeps,
  directory: SessionDirectory,
): Pick<People, 'keyLinking' | 'homes' | 'homeViews' | 'mcp'> {
  const views = homeViews({ logger }, slack);
  const keyLinking = keyLinkingFor({ config, logger }, { keys, slack, directory, client, homeViews: views });
  const mcp = mcpConnections(
    { config, secrets, logger },
    { store, installs, homeChanges, isAdmin: (userId) => keyLinking.managesWorkspace(userId) },
  );
  const homes = homeRefresher({ logger }, { views, directory, tops: [keyLinking, ...(mcp ? [mcp] : [])] });
  homeChanges.on('changed', () => homes.changed());
  return { keyLinking, homes, homeViews: views, ...(mcp ? { mcp } : {}) };
}

/**
 * Every Home tab goes out through one HomeViews (App Home opened, a key linked or removed, the refresher),
 * so the hashes Slack answered are shared by all who publish them in this process.
 */
function homeViews({ logger }: Pick<Settings, 'logger'>, slack: SlackClient): HomeViews {
  return new HomeViews({
    // With the workspace's team_id, as Bolt's own client sends it: a person of an Enterprise Grid
    // organisation has a Home in each of its workspaces, and an org-wide token reaches them all.
    publish: (args) => {
      const teamId = currentWorkspace()?.teamId;
      return slack.views.publish({ ...args, ...(teamId ? { team_id: teamId } : {}) });
    },
    logger: logger.child({ component: 'home' }),
  });
}

/** People's Home tabs, drawn again as sessions change: each section on top (service key, agent hosts), then the sessions. */
function homeRefresher(
  { logger }: Pick<Settings, 'logger'>,
  parts: {
    views: HomeViews;
    directory: SessionDirectory;
    tops: Array<{ homeBlocks(userId: string): Promise<KnownBlock[]> }>;
  },
): HomeRefresher {
  const { views, directory, tops } = parts;
  return new HomeRefresher({
    build: async (userId) => {
      const top = (await Promise.all(tops.map((t) => t.homeBlocks(userId)))).flat();
      return (await directory.home(userId, undefined, top)) ?? { type: 'home', blocks: [] };
    },
    views,
    logger: logger.child({ component: 'home' }),
  });
}
