/** Where the bot takes requests and how it talks in a session's thread. */
import { z } from 'zod';
import { entryList, type Problem, placesNameTheirWorkspace } from './fields.js';

export const conversationSchema = z.object({
  AGENT_ALLOWED_CHANNELS: entryList(
    'AGENT_ALLOWED_CHANNELS',
    /^([CGD][A-Z0-9]{2,}|dm)$/,
    "takes channel ids (C…, G…) and dm (the bot's direct messages)",
  ),
  AGENT_SHOW_REASONING: z
    .enum(['true', 'false'], { error: 'AGENT_SHOW_REASONING must be true or false' })
    .default('false'),
  AGENT_THREAD_REPLIES: z
    .enum(['steer', 'mention-only'], { error: 'AGENT_THREAD_REPLIES must be steer or mention-only' })
    .default('steer'),
});

type ConversationEnv = z.output<typeof conversationSchema>;

export interface ConversationConfig {
  allowedChannels: string[];
  showReasoning: boolean;
  /** `steer`: every reply in a session's thread steers it; `mention-only`: only replies that mention the bot. */
  threadReplies: 'steer' | 'mention-only';
}

/** `oauth`: OAuth installs are on, where each allowed place names its workspace. */
export function conversationProblems(env: ConversationEnv, oauth: boolean): Problem[] {
  return oauth ? placesNameTheirWorkspace('AGENT_ALLOWED_CHANNELS', env.AGENT_ALLOWED_CHANNELS) : [];
}

export function conversationSettings(env: ConversationEnv): ConversationConfig {
  return {
    allowedChannels: env.AGENT_ALLOWED_CHANNELS,
    showReasoning: env.AGENT_SHOW_REASONING === 'true',
    threadReplies: env.AGENT_THREAD_REPLIES,
  };
}
