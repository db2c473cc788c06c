import { z } from 'zod';

const optionalText = (field: string) => z.string({ error: `${field} must be a string` }).optional();

export const signalRequestSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('pause'), reason: optionalText('reason') }),
    z.object({
      type: z.literal('resume'),
      message: optionalText('message'),
      newBudget: z
        .number({ error: 'newBudget must be a number' })
        .refine(Number.isFinite, 'newBudget must be a finite number')
        .refine((n) => n > 0, 'newBudget must be a positive number')
        .optional(),
    }),
    z.object({ type: z.literal('cancel'), reason: optionalText('reason') }),
    z.object({
      type: z.literal('redirect'),
      message: z
        .string({ error: 'message is required for a redirect' })
        .refine((m) => m.trim() !== '', 'message is required for a redirect and must not be empty'),
    }),
  ],
  { error: 'type must be one of pause, resume, cancel, redirect' },
);
export type SignalRequest = z.input<typeof signalRequestSchema>;

export const signalResponseSchema = z.looseObject({
  sessionId: z.string(),
  signal: z.string(),
  roundId: z.string().optional(),
  message: z.string().optional(),
});
export type SignalResponse = z.output<typeof signalResponseSchema>;
