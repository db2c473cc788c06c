/**
 * The services over the store and Slack-out, one builder each: the follower and what it feeds (the session
 * publisher, the lease keeper), the audit trail, who may act and see, and what people do. What a part needs
 * is what its builder takes.
 */
import { AgentSessionsClient, Follower } from '@agent-sessions/core';
import { LeaseKeeper, type LeaseKeeperOptions } from '../services/following/lease-keeper.js';
import { SessionPublisher } from '../services/following/session-publisher.js';
import type { SessionWorkspaces } from '../services/installs/scope.js';
import { AuditService } from '../services/ops/audit.js';
import { BotMetrics } from '../services/ops/metrics.js';
import { pollSpan, serviceRequestTracer } from '../services/ops/tracing.js';
import { AnsweringService } from '../services/people/answering.js';
import { BudgetCeiling } from '../services/people/budget-ceiling.js';
import { ConversationService } from '../services/people/conversation.js';
import { SessionDirectory } from '../services/people/directory.js';
import { FeedbackService } from '../services/people/feedback.js';
import { HomeRefresher } from '../services/people/home-refresh.js';
import { HomeTeam } from '../services/people/home-team.js';
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
import type { OutboundQueue } from '../services/slack-out/outbound/index.js';
import { Notifier } from '../services/slack-out/thread/index.js';
import type { Store } from '../store/index.js';
import { agentAnswered, agentPeople, agentSignalled, agentStarted } from './agent-surface.js';
import { channelSteering } from './code-channels.js';
import { keyLinkingFor } from './keys.js';
import type { LateBound } from './late-bound.js';
import type { AgentParts, Parts, People, Settings } from './types.js';

/**
 * The Agent Session Service's client, and the follower that watches sessions through it. The metrics'
 * queue-depth gauges read the outbound queue, which is built later (it counts its calls in the metrics).
 */
export function following(
  { config, tuning, logger }: Settings,
  store: Store,
  parts: { outbound: LateBound<Pick<OutboundQueue, 'depths'>>; scopes: SessionWorkspaces },
) {
  const { outbound, scopes } = parts;
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
  // A scrape before the queue exists (none: the routes are served later) reads no depths.
  const metrics = new BotMetrics(
    () => follower.stats(),
    () => outbound.peek()?.depths() ?? new Map(),
    config.requestsPerSecond,
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
    codeChannels,
    homeChanges,
  }: Pick<
    Parts,
    | 'store'
    | 'out'
    | 'metrics'
    | 'policy'
    | 'audit'
    | 'follower'
    | 'keys'
    | 'scopes'
    | 'codeChannels'
    | 'homeChanges'
  > & {
    streams?: StreamPoster;
  },
): SessionPublisher {
  const publisher = new SessionPublisher({
    store,
    poster: out.poster,
    ...(out.poster.claim ? { claim: out.poster.claim } : {}),
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
    homes: codeChannels,
    homeChanged: () => homeChanges.emit('changed'),
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
    codeChannels,
  }: Pick<Parts, 'store' | 'follower' | 'out' | 'replicaId' | 'keys' | 'metrics' | 'codeChannels'> & {
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
    onFollowed: (sessionId) => {
      agent?.sessions.resync(sessionId);
      // A channel of its own asked for and not made yet (a crash in between): made now, once.
      codeChannels.ensure(sessionId).catch((error: unknown) => {
        logger.warn({ err: error, sessionId }, 'could not make the session its own channel');
      });
    },
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
    started: async (sessionId, input) => {
      // Its own channel first, so the follower's first posts already go there.
      if (input.codeChannel)
        await parts.codeChannels.open(sessionId, input.keepCodeChannel ? 'keep' : 'archive');
      // The card's first state (its buttons) is progress: when the edit budget is scarce, final states
      // of other sessions go first, and the session's next change folds into this edit.
      out.cards.schedule(sessionId, () => publisher.card(sessionId), { now: true });
      agentStarted(agent)(sessionId);
      parts.homeChanges.emit('changed');
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
  const homes = new HomeRefresher({
    build: async (userId) =>
      (await directory.home(userId, undefined, await keyLinking.homeBlocks(userId))) ?? {
        type: 'home',
        blocks: [],
      },
    publish: (userId, view) => slack.views.publish({ user_id: userId, view }),
    logger: logger.child({ component: 'home' }),
  });
  parts.homeChanges.on('changed', () => homes.changed());
  const services = { notifier, answering, steering, starting, conversation, feedback, directory };
  const channelSteer = channelSteering(store, { steering, directory, notifier });
  return { ...services, ...agentSide, keyLinking, homes, channelSteering: channelSteer };
}
