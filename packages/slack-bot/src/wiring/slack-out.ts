/** Slack-out as one part: the paced queue, the client it calls, the thread poster and the card updater. */
import { LogLevel, webApi } from '@slack/bolt';
import { ensureSlash } from '../app.js';
import { boltLogger } from '../logger.js';
import type { SessionPublisher } from '../services/following/session-publisher.js';
import { slackFetchOption } from '../services/ops/tracing.js';
import { OutboundQueue, queuedChat } from '../services/slack-out/outbound/index.js';
import { CardUpdater, ThreadPoster } from '../services/slack-out/thread/index.js';
import { workspaceSlackOut } from './installs.js';
import type { LateBound } from './late-bound.js';
import type { Parts, Settings, SlackOut } from './types.js';

/**
 * How the bot's own calls reach Slack: the paced queue, the thread poster and the card updater. The
 * poster tells the session publisher when a batch sent in the background can't post, and the publisher
 * posts through the poster: `publisher` is bound once it is built.
 */
export function slackOut(
  { config, tuning, logger }: Settings,
  parts: Pick<Parts, 'slack' | 'store' | 'metrics' | 'self' | 'installs' | 'follower' | 'replicaId'> & {
    publisher: LateBound<Pick<SessionPublisher, 'cannotPost'>>;
  },
): SlackOut {
  const { slack, store, metrics, self, installs, follower, publisher, replicaId } = parts;
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
      // A finished session has no lease: its leftovers are sent by the replica holding its claim, as long
      // as a lease would be held.
      claim: (sessionId) => store.recoveryClaims.claim(sessionId, replicaId, config.leaseTtlMs),
      onCannotPost: (place, error) => publisher.get().cannotPost(place, error),
    },
    outbound,
  );
  const cards = perWorkspace?.cards ?? new CardUpdater(paced, logger, metrics, tuning.cards, outbound);
  return { outbound, paced, chat, poster, cards };
}
