/** The agent's work streamed into Slack, one builder of the composition root. */
import { streamStart } from '../blocks/stream-plan.js';
import { StreamPoster, type SurfaceChoice } from '../services/slack-out/agent-surface/index.js';
import type { Parts, Settings } from './types.js';

/** Each session's streaming messages: used while the surface is `agent`; the classic thread otherwise. */
export function streamPoster(
  { config, logger }: Settings,
  parts: Pick<Parts, 'store' | 'out' | 'metrics' | 'self'> & { surface: SurfaceChoice },
): StreamPoster {
  const { store, out, metrics, self, surface } = parts;
  return new StreamPoster({
    slack: out.paced,
    posts: store.posts,
    streams: store.streams,
    poster: out.poster,
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
