/**
 * The spec leaves timestamps untyped. Accepted: ISO-8601 strings (extended `2024-01-02T03:04:05Z`, or
 * basic with a time `20240102T030405Z`), HTTP/RFC 2822 dates, epoch seconds or milliseconds as NUMBERS,
 * and Firestore-style `{_seconds,_nanoseconds}` / `{seconds,nanoseconds}`.
 * A string of digits (`"20240102"`, `"1700000000"`) is not read as an epoch: it could as well be a
 * compact date, so it stays text. Other strings are not guessed at either (V8's Date.parse reads "1"
 * as 2001): what isn't clearly a date stays text. The caller keeps the original beside (`raw`).
 * Pure: no timers, no I/O (the n8n node bundles this file).
 */

// Below this an epoch number is seconds (1e11 s is the year 5138; 1e11 ms is 1973).
const SECONDS_CUTOFF = 1e11;
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ISO_EXTENDED =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}(?:\d{2})?)?$/i;
// RFC 7231 / RFC 2822: `Tue, 02 Jan 2024 03:04:05 GMT`, `2 Jan 2024 03:04:05 +0000`.
const RFC_2822 =
  /^(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{2}:\d{2}(?::\d{2})?\s*(?:GMT|UTC|UT|Z|[+-]\d{4})?$/;

function fromIsoBasic(match: RegExpExecArray): string | undefined {
  const [, y, mo, d, h, mi, sec, frac = '', zone = 'Z'] = match;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(3) || '00'}`;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac ? `.${frac}` : ''}${offset}`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

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
    const text = value.trim();
    const basic = ISO_BASIC.exec(text);
    if (basic) return fromIsoBasic(basic);
    if (!ISO_EXTENDED.test(text) && !RFC_2822.test(text)) return undefined;
    const ms = Date.parse(text);
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
