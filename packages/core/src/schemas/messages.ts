import { z } from 'zod';
import { timestampSchema } from './common.js';

export const messagesQuerySchema = z.object({
  limit: z
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be between 1 and 200')
    .max(200, 'limit must be between 1 and 200')
    .optional(),
  after: z.string({ error: 'after must be a roundId string' }).min(1, 'after must not be empty').optional(),
});
export type MessagesQuery = z.input<typeof messagesQuerySchema>;

/** Every field but roundId is optional in practice; unknown fields are kept. */
export const messageSchema = z.looseObject({
  roundId: z.string(),
  role: z.string().optional(),
  content: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  reasoning: z.string().nullable().optional(),
  reasoningDurationMs: z.number().nullable().optional(),
  toolCallId: z.string().nullable().optional(),
  toolCalls: z.array(z.record(z.string(), z.unknown())).nullable().optional(),
  timestamp: timestampSchema,
});
export type Message = z.output<typeof messageSchema>;

export const messagesPageSchema = z.looseObject({
  sessionId: z.string().optional(),
  messages: z.array(messageSchema),
  pagination: z
    .looseObject({
      count: z.number().optional(),
      hasMore: z.boolean().optional().default(false),
      lastRoundId: z.string().nullable().optional().default(null),
    })
    .optional()
    .default({ hasMore: false, lastRoundId: null }),
});
export type MessagesPage = z.output<typeof messagesPageSchema>;
