import type { z } from 'zod';
import { ValidationError } from './errors.js';

/** Checks a request before it is sent; a failure names each field and rule, and nothing is sent. */
export function validateRequest<S extends z.ZodType>(
  operation: string,
  schema: S,
  value: unknown,
  /** Names a bare value (a path id) in messages. */
  rootField?: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(
    operation,
    result.error.issues.map((issue) => {
      const field = issue.path.map(String).join('.') || rootField || 'body';
      // Messages that already start with the field's name read better without it repeated.
      const message = issue.message.startsWith(`${field} `)
        ? issue.message.slice(field.length + 1)
        : issue.message;
      return { field, message };
    }),
  );
}
