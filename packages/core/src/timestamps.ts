/**
 * The spec leaves timestamps untyped. Accepted: ISO-8601 strings, epoch seconds or milliseconds (numbers
 * or numeric strings), and Firestore-style `{_seconds,_nanoseconds}` / `{seconds,nanoseconds}`.
 * Pure: no timers, no I/O (the n8n node bundles this file).
 */

// Below this an epoch number is seconds (1e11 s is the year 5138; 1e11 ms is 1973).
const SECONDS_CUTOFF = 1e11;
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function fromEpoch(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  const ms = value < SECONDS_CUTOFF ? value * 1000 : value;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An ISO-8601 string for any accepted shape; undefined when the value is none of them. */
export function parseTimestamp(value: unknown): string | undefined {
  if (typeof value === 'number') return fromEpoch(value);
  if (typeof value === 'string') {
    // Already what we produce: skip the parse (hot on every status and message read).
    if (CANONICAL_ISO.test(value)) return value;
    const trimmed = value.trim();
    if (trimmed === '') return undefined;
    if (/^\d+(\.\d+)?$/.test(trimmed)) return fromEpoch(Number(trimmed));
    const ms = Date.parse(trimmed);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    const seconds = v._seconds ?? v.seconds;
    const nanos = v._nanoseconds ?? v.nanoseconds ?? 0;
    if (typeof seconds === 'number' && typeof nanos === 'number') {
      const date = new Date(seconds * 1000 + Math.floor(nanos / 1e6));
      return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
    }
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  }
  return undefined;
}

/**
 * What responses carry: the ISO string when the value is understood, null when absent, and otherwise
 * the value as text — kept, never dropped.
 */
export function normalizeTimestamp(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const iso = parseTimestamp(value);
  if (iso !== undefined) return iso;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
