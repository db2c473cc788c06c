import { z } from 'zod';

export const humanInputResponseRequestSchema = z
  .object({
    approved: z.boolean({ error: 'approved must be a boolean' }).optional(),
    choiceId: z
      .string({ error: 'choiceId must be a string' })
      .min(1, 'choiceId must not be empty')
      .optional(),
    choiceIds: z.array(z.string(), { error: 'choiceIds must be an array of strings' }).optional(),
    freeText: z.string({ error: 'freeText must be a string' }).optional(),
    answers: z.record(z.string(), z.unknown(), { error: 'answers must be an object' }).optional(),
  })
  .refine(
    (b) => Object.values(b).some((v) => v !== undefined),
    'an answer needs at least one of approved, choiceId, choiceIds, freeText, answers',
  );
export type HumanInputResponseRequest = z.input<typeof humanInputResponseRequestSchema>;

export const humanInputAckSchema = z.looseObject({
  inputId: z.string(),
  status: z.string(),
  roundId: z.string().optional(),
  message: z.string().optional(),
});
export type HumanInputAck = z.output<typeof humanInputAckSchema>;
