import { z } from 'zod';
import { badRequest } from './errors.js';

/** Turns a zod failure into one 400 whose message names each field and its rule. */
export function parseOr400<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
    return `${field}: ${issue.message}`;
  });
  throw badRequest(`invalid request: ${problems.join('; ')}`);
}

const nonEmpty = (field: string) =>
  z
    .string({ error: `${field} is required and must be a string` })
    .trim()
    .min(1, `${field} must not be empty`);

export const signupSchema = z.object({
  email: z.email({ error: 'email must be a valid email address' }),
  password: z
    .string({ error: 'password is required and must be a string' })
    .min(6, 'password must be at least 6 characters'),
  displayName: z.string({ error: 'displayName must be a string' }).optional(),
});

export const guardrailsSchema = z.looseObject({
  maxCostPerSession: z
    .number({ error: 'maxCostPerSession must be a number' })
    .positive('maxCostPerSession must be greater than 0')
    .optional(),
  maxIterations: z
    .number({ error: 'maxIterations must be an integer' })
    .int('maxIterations must be an integer')
    .positive('maxIterations must be at least 1')
    .optional()
    .meta({ description: 'Max agent iterations per round; default 50' }),
});

export const createSchema = z.object({
  goal: nonEmpty('goal'),
  context: z
    .record(z.string(), z.unknown(), { error: 'context must be an object or null' })
    .nullable()
    .optional(),
  guardrails: guardrailsSchema.optional(),
});

export const signalSchema = z
  .object({
    type: z.enum(['pause', 'resume', 'cancel', 'redirect'], {
      error: 'type is required and must be one of pause, resume, cancel, redirect',
    }),
    reason: z.string({ error: 'reason must be a string' }).optional(),
    message: z.string({ error: 'message must be a string' }).optional(),
    newBudget: z
      .number({ error: 'newBudget must be a number' })
      .positive('newBudget must be greater than 0')
      .optional(),
  })
  .superRefine((value, ctx) => {
    if (value.type === 'redirect' && (value.message === undefined || value.message.trim() === '')) {
      ctx.addIssue({
        code: 'custom',
        path: ['message'],
        message: 'message is required for a redirect signal',
      });
    }
  })
  // The refinement above, said in JSON Schema for the OpenAPI document.
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited
  .meta({ if: { properties: { type: { const: 'redirect' } } }, then: { required: ['message'] } });

export const answerSchema = z.object({
  approved: z.boolean({ error: 'approved must be a boolean' }).optional(),
  choiceId: z.string({ error: 'choiceId must be a string' }).optional(),
  choiceIds: z.array(z.string(), { error: 'choiceIds must be an array of strings' }).optional(),
  freeText: z.string({ error: 'freeText must be a string' }).optional(),
  answers: z.record(z.string(), z.unknown(), { error: 'answers must be an object' }).optional(),
});

export const messagesQuerySchema = z.object({
  limit: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return 50;
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || !Number.isInteger(n) || n < 1 || n > 200) {
        ctx.addIssue({ code: 'custom', message: 'limit must be an integer from 1 to 200' });
        return z.NEVER;
      }
      return n;
    })
    // What the transform accepts, for the OpenAPI document (a query string is text on the wire).
    .meta({ type: 'integer', minimum: 1, maximum: 200, description: 'Page size; default 50' }),
  after: z
    .string()
    .min(1, 'after must be a roundId')
    .optional()
    .meta({ description: 'A roundId of the session: results start after it' }),
});
