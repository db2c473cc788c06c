/** Slack-out as one part: the paced queue, the client it calls, the thread poster and the card updater. */

import type { Follower } from '@agent-sessions/core';
import { LogLevel, webApi } from '@slack/bolt';
import { ensureSlash } from '../app.js';
import { boltLogger } from '../logger.js';
import type { BotMetrics } from '../services/ops/metrics.js';
import { slackFetchOption } from '../services/ops/tracing.js';
import type { BotIdentity, SlackClient } from '../services/slack-out/outbound/index.js';
import { OutboundQueue, queuedChat } from '../services/slack-out/outbound/index.js';
import { CardUpdater, PostOwner, ThreadPoster } from '../services/slack-out/thread/index.js';
import type { Store } from '../store/index.js';
import type { Installs } from './installs.js';
import { workspaceSlackOut } from './installs.js';
import type { Settings, SlackOut } from './types.js';

/** What Slack-out is built from. */
export interface SlackOutDeps {
  /** Bolt's client: what goes through the queue uses it when pacing is off. */
  slack: SlackClient;
  store: Pick<Store, 'slackBudgets' | 'recoveryClaims' | 'posts'>;
  metrics: BotMetrics;
  self: () => Promise<BotIdentity>;
  /** OAuth installs (undefined with one bot token): each workspace its own queues and card edits. */
  installs: Installs | undefined;
  /** Whose chatter a post is to send: the sessions this replica follows, and the finished ones it claims. */
  follower: Pick<Follower, 'isFollowing'>;
  replicaId: string;
}

/**
 * How the bot's own calls reach Slack: the paced queue, who sends a session's posts, the thread poster and
 * the card updater. A post that finds its channel closed is told through the owner, to whoever listens
 * (the publisher, once it is built).
 */
export function slackOut({ config, tuning, logger }: Settings, deps: SlackOutDeps): SlackOut {
  const { slack, store, metrics, self, installs, follower, replicaId } = deps;
  // Replicas (PostgreSQL) spend one budget: Slack limits the app per workspace, not per process.
  const outboundOptions = {
    ...(config.databaseUrl ? { shared: store.slackBudgets } : {}),
    ...tuning.outbound,
    pacing: config.slackPacing,
  };
  // OAuth installs: each workspace its own queues, budgets, card edits and token (installs.ts).
  const perWorkspace =
    installs && workspaceSlackOut(installs, { logger, metrics, outboundOptions, config, tuning });
  const outbound = perWorkspace?.outbound ?? new OutboundQueue(logger, metrics, outboundOptions);
  metrics.readQueue(() => outbound.depths());
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
          ...slackFetchOption(config.telemetry.traces),
        })
      : slack);
  // A new session's card and a prompt marked answered wait in the same queue, first in their channel.
  const chat = config.slackPacing === 'on' ? queuedChat(paced, outbound) : slack;
  const owner = new PostOwner({
    // A poll still in flight when its lease went records the chatter it brings but leaves it to the owner.
    follows: (sessionId) => follower.isFollowing(sessionId),
    // A finished session has no lease: its leftovers are sent by the replica holding its claim, as long
    // as a lease would be held.
    claim: (sessionId) => store.recoveryClaims.claim(sessionId, replicaId, config.leaseTtlMs),
  });
  const poster = new ThreadPoster({
    slack: paced,
    posts: store.posts,
    logger,
    metrics,
    outbound,
    owner,
    options: { ...tuning.posts, self },
  });
  const cards = perWorkspace?.cards ?? new CardUpdater(paced, logger, metrics, tuning.cards, outbound);
  return { outbound, paced, chat, owner, poster, cards };
}
