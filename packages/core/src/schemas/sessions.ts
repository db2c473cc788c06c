import { z } from 'zod';
import { isKnownStatus } from '../status.js';
import { timestampSchema } from './common.js';

const positiveNumber = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .refine(Number.isFinite, `${field} must be a finite number`)
    .refine((n) => n > 0, `${field} must be greater than 0`);

/** Extra guardrail keys pass through untouched: the spec accepts them. */
export const guardrailsSchema = z.looseObject({
  maxCostPerSession: positiveNumber('maxCostPerSession').optional(),
  maxIterations: z
    .number({ error: 'maxIterations must be a number' })
    .int('maxIterations must be a whole number')
    .positive('maxIterations must be at least 1')
    .optional(),
});
export type Guardrails = z.input<typeof guardrailsSchema>;

export const createSessionRequestSchema = z.object({
  goal: z
    .string({ error: 'is required and must be a string' })
    .refine((g) => g.trim() !== '', 'must not be empty'),
  context: z.record(z.string(), z.unknown(), { error: 'must be an object or null' }).nullable().optional(),
  guardrails: guardrailsSchema.optional(),
});
export type CreateSessionRequest = z.input<typeof createSessionRequestSchema>;

export const createSessionResponseSchema = z.looseObject({
  sessionId: z.string().min(1),
  roundId: z.string().optional(),
  status: z.string(),
});
export type CreateSessionResponse = z.output<typeof createSessionResponseSchema>;

export const costSchema = z.looseObject({
  totalCost: z.number().optional().default(0),
  totalTokens: z.number().optional().default(0),
  promptTokens: z.number().optional().default(0),
  completionTokens: z.number().optional().default(0),
});
export type Cost = z.output<typeof costSchema>;

/** Rounds are free-form in the spec; the fields the emulator sends are typed, the rest kept. */
export const roundSchema = z.looseObject({
  roundId: z.string().optional(),
});
export type Round = z.output<typeof roundSchema>;

export const sessionStatusSchema = z
  .looseObject({
    sessionId: z.string().min(1),
    status: z.string(),
    message: z.string().nullable().optional(),
    cost: costSchema.nullable().optional(),
    rounds: z.array(z.unknown()).nullable().optional(),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
    completedAt: timestampSchema,
    error: z.string().nullable().optional(),
    completionReport: z.unknown().optional(),
  })
  .transform((s) => ({
    ...s,
    cost: s.cost ?? { totalCost: 0, totalTokens: 0, promptTokens: 0, completionTokens: 0 },
    rounds: (s.rounds ?? []) as Round[],
    error: s.error ?? null,
    completionReport: s.completionReport ?? null,
    /** False for a status the contract doesn't list: shown raw, treated as not terminal. */
    statusKnown: isKnownStatus(s.status),
  }));
export type SessionStatus = z.output<typeof sessionStatusSchema>;
