import { z } from 'zod';
import { normalizeTimestamp } from '../timestamps.js';

/** An untyped timestamp from the service, normalized (ISO when understood, kept as text when not). */
export const timestampSchema = z
  .unknown()
  .optional()
  .transform((value) => normalizeTimestamp(value));

/**
 * A path segment id. The spec forbids nothing here, and ids are sent percent-encoded, so spaces and most
 * characters go through as typed (refusing them is the caller's business). Refused are only ids that
 * can't be sent faithfully: empty (the path would name another endpoint), `.` and `..` (URL parsers
 * resolve them as dot segments before sending), and `/`, `\`, `?`, `#` (many servers and proxies decode
 * the path before routing, where these cut or move the segment even when encoded).
 */
export const idSchema = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .min(1, `${field} must not be empty`)
    .refine((id) => id !== '.' && id !== '..', `${field} must not be '.' or '..'`)
    .refine((id) => !/[/?#\\]/.test(id), `${field} must not contain '/', '?', '#' or '\\'`);

export const errorBodySchema = z.looseObject({ error: z.string() });
