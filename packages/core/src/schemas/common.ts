import { z } from 'zod';
import { normalizeTimestamp } from '../timestamps.js';

/** An untyped timestamp from the service, normalized (ISO when understood, kept as text when not). */
export const timestampSchema = z
  .unknown()
  .optional()
  .transform((value) => normalizeTimestamp(value));

/** A path segment id: non-empty, and no characters that would change the URL's meaning. */
export const idSchema = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .min(1, `${field} must not be empty`)
    .max(512, `${field} must be at most 512 characters`)
    .refine((id) => !/[/?#\\\s]/.test(id), `${field} must not contain '/', '?', '#', '\\' or whitespace`);

export const errorBodySchema = z.looseObject({ error: z.string() });
