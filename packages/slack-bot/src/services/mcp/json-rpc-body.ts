/**
 * Reading a JSON-RPC body before the SDK parses it (who it names, which calls it holds open or cancels,
 * which tool it calls): nothing here trusts its shape.
 */

/** Messages of a body: one, or a batch. */
export const messagesOf = (body: unknown): unknown[] => (Array.isArray(body) ? body : [body]);

/** `value[name]` when `value` is an object that has it; undefined otherwise. */
export function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && name in value
    ? (value as Record<string, unknown>)[name]
    : undefined;
}
