import { z } from 'zod';

export type { Cost, CreateSessionResponse, Round, SessionStatus } from './responses/index.js';

/** A JSON number: NaN and Infinity can't be sent (JSON.stringify would send null). */
const jsonNumber = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .refine(Number.isFinite, `${field} must be a finite number`);

/**
 * Only the spec's types are checked: a budget of 0 or less, or maxIterations under 1, are the caller's
 * to refuse with a friendly message (`checkStartInput`). Extra guardrail keys pass through untouched.
 */
export const guardrailsSchema = z.looseObject({
  maxCostPerSession: jsonNumber('maxCostPerSession').optional(),
  maxIterations: z
    .number({ error: 'maxIterations must be a number' })
    .int('maxIterations must be a whole number')
    .optional(),
});
export interface Guardrails {
  maxCostPerSession?: number;
  maxIterations?: number;
  /** Additional guardrail keys: the spec accepts them. */
  [key: string]: unknown;
}

/** The goal goes as typed (a blank goal is the caller's to refuse); unknown top-level keys pass through. */
export const createSessionRequestSchema = z.looseObject({
  goal: z.string({ error: 'is required and must be a string' }),
  context: z.record(z.string(), z.unknown(), { error: 'must be an object or null' }).nullable().optional(),
  guardrails: guardrailsSchema.optional(),
});
export interface CreateSessionRequest {
  goal: string;
  context?: Record<string, unknown> | null;
  guardrails?: Guardrails;
}
