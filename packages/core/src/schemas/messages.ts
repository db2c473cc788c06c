import { z } from 'zod';

export type { Message, MessagesPage, MessagesPagination } from './responses/index.js';

export const messagesQuerySchema = z.object({
  // The spec's maximum is 200. Below 1 is refused too: a page of nothing can't make progress, and no
  // reading of the spec's paging gives it a meaning.
  limit: z
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be between 1 and 200')
    .max(200, 'limit must be between 1 and 200')
    .optional(),
  after: z.string({ error: 'after must be a roundId string' }).optional(),
});
export type MessagesQuery = z.input<typeof messagesQuerySchema>;
