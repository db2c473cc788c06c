/**
 * Code channels (a session in a channel of its own): the service that makes and draws them, and the
 * steering of a session from its channel (commands, context bar actions). Built in startBot beside the
 * other parts; the publisher, the start, the lease keeper and the listeners are handed them.
 */
import { ChannelSteering } from '../services/code-channels/channel-steering.js';
import { CodeChannels } from '../services/code-channels/code-channels.js';
import type { Store } from '../store/index.js';
import type { People, Settings, SlackOut } from './types.js';

/** Makes, draws and ends sessions' own channels, through the outbound queue like every call of ours. */
export function codeChannelParts(
  { config, logger }: Settings,
  { store, out }: { store: Store; out: Pick<SlackOut, 'paced' | 'outbound' | 'poster'> },
) {
  return new CodeChannels({
    store: { sessions: store.sessions, codeChannels: store.codeChannels },
    slack: out.paced,
    outbound: out.outbound,
    poster: out.poster,
    logger: logger.child({ component: 'code-channels' }),
    // A workspace that refused them is asked again as the agent surface is (AGENT_SURFACE_RETRY_MINUTES,
    // 0: never).
    retryAfterMs: config.agent.surfaceRetryMs === 0 ? Number.POSITIVE_INFINITY : config.agent.surfaceRetryMs,
  });
}

/** A session steered from its own channel, through the services its thread and card use. */
export function channelSteering(
  store: Pick<Store, 'sessions' | 'events'>,
  people: Pick<People, 'steering' | 'directory' | 'notifier'>,
): ChannelSteering {
  return new ChannelSteering({
    sessions: store.sessions,
    steering: people.steering,
    directory: people.directory,
    notifier: people.notifier,
    claim: (key) => store.events.markProcessed(key),
  });
}
