import type { z } from 'zod';
import { ValidationError } from './errors.js';
import type { RequestRule, RuleIssue } from './request-rules.js';

/** Issues as people read them: the dotted field (or `rootField`, or `body`) and the rule, said once. */
function toValidationError(
  operation: string,
  issues: readonly RuleIssue[],
  rootField?: string,
): ValidationError {
  return new ValidationError(
    operation,
    issues.map((issue) => {
      const field = issue.path.map(String).join('.') || rootField || 'body';
      // Messages that already start with the field's name read better without it repeated.
      const message = issue.message.startsWith(`${field} `)
        ? issue.message.slice(field.length + 1)
        : issue.message;
      return { field, message };
    }),
  );
}

/** Checks a request against a plain rule before it is sent: as `validateRequest`, without zod. */
export function checkRequest<T>(
  operation: string,
  rule: RequestRule<T>,
  value: unknown,
  /** Names a bare value (a path id) in messages. */
  rootField?: string,
): T {
  const result = rule(value);
  if (result.ok) return result.value;
  throw toValidationError(operation, result.issues, rootField);
}

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
  throw toValidationError(
    operation,
    result.error.issues.map((issue) => ({
      path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
      message: issue.message,
    })),
    rootField,
  );
}
