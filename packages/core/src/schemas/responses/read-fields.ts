/**
 * The field readers every response reader is built from: each takes one field, bends what it can into
 * the contract's type, and notes in `issues` what it had to bend or could not use.
 */

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A shallow copy of what the service sent, for the normalized fields to be stored over (same keys, same
 * order as `{ ...obj, a, b }`). Not that literal: V8 builds a spread followed by more properties on a
 * slow path, ~8 µs for one status, more than all the rest of the client's work per request, where
 * Object.assign then plain stores take a fraction of a microsecond. An own `__proto__` key (JSON.parse
 * makes one) is spread instead: Object.assign would set the copy's prototype with it.
 */
export function copyOf<T extends Obj>(obj: Obj): T {
  return (Object.hasOwn(obj, '__proto__') ? { ...obj } : Object.assign({}, obj)) as T;
}

/** Sets `key` when there is a value and removes it otherwise, deleting only what is there (a delete is slow). */
export function setOrDrop<T extends Obj, K extends keyof T & string>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value !== undefined) target[key] = value;
  else if (Object.hasOwn(target, key)) delete target[key];
}

/** Where a read found something it had to bend or could not use; `path` is dotted, e.g. `cost.totalCost`. */
export interface ReadIssue {
  path: string;
  problem: string;
}

export type ReadResult<T> = { ok: true; value: T; issues: ReadIssue[] } | { ok: false; issues: ReadIssue[] };

export function typeOf(value: unknown): string {
  if (value === undefined) return 'no body';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A string field: strings as sent, numbers as text; null or absent is undefined. */
export function optionalText(obj: Obj, key: string, issues: ReadIssue[], prefix = ''): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  issues.push({ path: `${prefix}${key}`, problem: `expected a string, got ${typeOf(value)}` });
  return undefined;
}

/** A number field: numbers, and strings that hold one ("12", "0.5"); null or absent is undefined. */
export function optionalNumber(obj: Obj, key: string, issues: ReadIssue[], prefix = ''): number | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    if (Number.isFinite(n)) return n;
  }
  issues.push({ path: `${prefix}${key}`, problem: `expected a number, got ${typeOf(value)}` });
  return undefined;
}

export function strictId(obj: Obj, key: string, issues: ReadIssue[], prefix = ''): string | undefined {
  const value = obj[key];
  if (typeof value === 'string' && value !== '') return value;
  issues.push({
    path: `${prefix}${key}`,
    problem:
      value === undefined || value === null
        ? 'is missing'
        : `expected a non-empty string, got ${typeOf(value)}`,
  });
  return undefined;
}
