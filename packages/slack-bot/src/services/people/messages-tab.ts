import type { Logger } from '../../logger.js';
import { isFeatureMissing, type SurfaceChoice } from '../slack-out/agent-surface/index.js';
import { type OutboundQueue, type SlackClient, slackErrorCode } from '../slack-out/outbound/index.js';

type AssistantApi = {
  assistant: { threads: Pick<SlackClient['assistant']['threads'], 'setSuggestedPrompts'> };
};

export const SUGGESTED_PROMPTS_TITLE = 'Start an agent';

/** One suggested prompt of the Messages tab: what it says, and the message it sends when clicked. */
export interface SuggestedPrompt {
  title: string;
  message: string;
}

/**
 * The Messages tab as the agent's front door (agent view): opening it shows suggested prompts; a message
 * there (a prompt clicked, or anything typed) starts a session in its own thread, as any DM does
 * (ConversationService). `assistant.threads.setSuggestedPrompts` goes without `thread_ts`: Slack's page
 * says an agent app's call with one fails silently. On the classic surface nothing is sent.
 */
export class MessagesTab {
  constructor(
    private readonly deps: {
      slack: AssistantApi;
      outbound: Pick<OutboundQueue, 'run'>;
      surface: SurfaceChoice;
      prompts: SuggestedPrompt[];
      logger: Pick<Logger, 'warn'>;
    },
  ) {}

  async opened(userId: string, channelId: string | undefined): Promise<void> {
    const { slack, outbound, surface, prompts, logger } = this.deps;
    if (surface.current() !== 'agent' || !channelId || prompts.length === 0) return;
    const method = 'assistant.threads.setSuggestedPrompts';
    try {
      await outbound.run({
        channel: channelId,
        // Someone is looking at the tab now.
        priority: 'urgent',
        method,
        run: () =>
          slack.assistant.threads.setSuggestedPrompts({
            channel_id: channelId,
            title: SUGGESTED_PROMPTS_TITLE,
            prompts,
          }),
      });
    } catch (error) {
      const code = slackErrorCode(error);
      if (isFeatureMissing(code)) surface.fallBack(method, code ?? '');
      else logger.warn({ err: error, userId }, 'could not show the suggested prompts');
    }
  }
}
