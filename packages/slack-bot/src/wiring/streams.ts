/** The agent's work streamed into Slack, one builder of the composition root. */
import { streamStart } from '../blocks/stream-plan.js';
import type { BotMetrics } from '../services/ops/metrics.js';
import { StreamPoster, type SurfaceChoice } from '../services/slack-out/agent-surface/index.js';
import type { BotIdentity } from '../services/slack-out/outbound/index.js';
import type { Store } from '../store/index.js';
import type { Settings, SlackOut } from './types.js';

/** Each session's streaming messages: used while the surface is `agent`; the classic thread otherwise. */
export function streamPoster(
  { config, logger }: Settings,
  deps: {
    store: Pick<Store, 'posts' | 'streams' | 'sessions'>;
    out: Pick<SlackOut, 'paced' | 'poster' | 'outbound' | 'owner'>;
    metrics: BotMetrics;
    self: () => Promise<BotIdentity>;
    surface: SurfaceChoice;
  },
): StreamPoster {
  const { store, out, metrics, self, surface } = deps;
  return new StreamPoster({
    slack: out.paced,
    posts: store.posts,
    streams: store.streams,
    poster: out.poster,
    outbound: out.outbound,
    owner: out.owner,
    surface,
    self,
    logger: logger.child({ component: 'streams' }),
    metrics,
    showReasoning: config.showReasoning,
    ...(config.agent.taskDisplay === 'plan'
      ? {
          plan: async (sessionId: string, continuation: boolean) =>
            streamStart('plan', (await store.sessions.get(sessionId))?.goal, continuation),
        }
      : {}),
  });
}
