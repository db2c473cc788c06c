import { z } from 'zod';

export type { HumanInputAck } from './responses/index.js';

/**
 * The spec's human-input response: "all fields optional; supply the ones matching the request type".
 * So `{}` is a valid body, and fields the spec doesn't list pass through untouched. Only wrong JSON
 * types are refused. Whether an answer fits its question is `validateAnswer`'s (the caller's) to say.
 */
export const humanInputResponseRequestSchema = z.looseObject({
  approved: z.boolean({ error: 'approved must be a boolean' }).optional(),
  choiceId: z.string({ error: 'choiceId must be a string' }).optional(),
  choiceIds: z.array(z.string(), { error: 'choiceIds must be an array of strings' }).optional(),
  freeText: z.string({ error: 'freeText must be a string' }).optional(),
  answers: z.record(z.string(), z.unknown(), { error: 'answers must be an object' }).optional(),
});
/** Declared without an index signature so `HumanInputAnswer` and other plain interfaces fit it. */
export interface HumanInputResponseRequest {
  approved?: boolean;
  choiceId?: string;
  choiceIds?: string[];
  freeText?: string;
  answers?: Record<string, unknown>;
}
