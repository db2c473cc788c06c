/** Where the bot takes requests and how it talks in a session's thread. */
import { z } from 'zod';
import { duration, entryList, type Problem, placesNameTheirWorkspace, wholeNumber } from './fields.js';

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
  AGENT_THREAD_CACHE_MESSAGES: wholeNumber('AGENT_THREAD_CACHE_MESSAGES')
    .min(0, 'AGENT_THREAD_CACHE_MESSAGES must be 0 (off) or more')
    .default(5000),
  AGENT_THREAD_CACHE_RETENTION: duration('AGENT_THREAD_CACHE_RETENTION'),
  AGENT_THREAD_READS_PER_MINUTE: z.coerce
    .number({ error: 'AGENT_THREAD_READS_PER_MINUTE must be a number' })
    .positive('AGENT_THREAD_READS_PER_MINUTE must be above 0')
    .default(1),
  AGENT_THREAD_READ_LIMIT: wholeNumber('AGENT_THREAD_READ_LIMIT')
    .min(1, 'AGENT_THREAD_READ_LIMIT must be between 1 and 1000')
    .max(1000, 'AGENT_THREAD_READ_LIMIT must be between 1 and 1000')
    .default(15),
});

type ConversationEnv = z.output<typeof conversationSchema>;

export interface ConversationConfig {
  allowedChannels: string[];
  showReasoning: boolean;
  /** `steer`: every reply in a session's thread steers it; `mention-only`: only replies that mention the bot. */
  threadReplies: 'steer' | 'mention-only';
  /** How a mention in a thread gets the thread as context: what was received kept, Slack read within a budget. */
  threadContext: ThreadContextConfig;
}

export interface ThreadContextConfig {
  /** Messages received as events kept per workspace (0: none kept, every context read from Slack). */
  cacheMessages: number;
  /** How long a received message is kept. */
  cacheRetentionMs: number;
  /** conversations.replies calls a minute per workspace, all replicas together. */
  readsPerMinute: number;
  /** Messages asked for in one read (Slack gives at most 15 to commercial apps outside the Marketplace). */
  readLimit: number;
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
    threadContext: {
      cacheMessages: env.AGENT_THREAD_CACHE_MESSAGES,
      cacheRetentionMs: env.AGENT_THREAD_CACHE_RETENTION ?? 24 * 60 * 60 * 1000,
      readsPerMinute: env.AGENT_THREAD_READS_PER_MINUTE,
      readLimit: env.AGENT_THREAD_READ_LIMIT,
    },
  };
}
