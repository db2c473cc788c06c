/**
 * The request rules the session endpoints check before sending, in plain code: the same rules as the zod
 * schemas in ../schemas (which stay the public description of them), with the same fields and messages.
 * Plain so that core's pure API carries no zod: the n8n node bundles it, and n8n's verification scanner
 * refuses zod's use of `globalThis`. A property test holds each rule to its schema.
 */

/** What a rule found wrong: where (`[]` is the value itself) and the rule, as a zod issue says it. */
export interface RuleIssue {
  path: (string | number)[];
  message: string;
}

export type RuleResult<T> = { ok: true; value: T } | { ok: false; issues: RuleIssue[] };

/** A request rule: the value accepted (as it goes out) or every issue found. */
export type RequestRule<T> = (value: unknown) => RuleResult<T>;

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object of plain keys (what JSON makes): a record's type. */
function isPlainObject(v: unknown): v is Obj {
  if (!isObject(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || proto === Object.prototype;
}

/** The type a message names, as zod names it. */
function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

const expectedObject = (value: unknown): RuleIssue => ({
  path: [],
  message: `Invalid input: expected object, received ${received(value)}`,
});

/** A JSON number: finite (NaN and Infinity would be sent as null). */
const isJsonNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

const done = <T>(value: T, issues: RuleIssue[]): RuleResult<T> =>
  issues.length === 0 ? { ok: true, value } : { ok: false, issues };

/** As `idSchema(field)`: a string, not empty, not a dot segment, without `/ ? # \`. */
export function idRule(field: string): RequestRule<string> {
  return (value) => {
    if (typeof value !== 'string')
      return { ok: false, issues: [{ path: [], message: `${field} must be a string` }] };
    const issues: RuleIssue[] = [];
    if (value.length === 0) issues.push({ path: [], message: `${field} must not be empty` });
    if (value === '.' || value === '..')
      issues.push({ path: [], message: `${field} must not be '.' or '..'` });
    if (/[/?#\\]/.test(value))
      issues.push({ path: [], message: `${field} must not contain '/', '?', '#' or '\\'` });
    return done(value, issues);
  };
}

/** `text` must be a string when given. */
function optionalString(body: Obj, key: string, message: string, issues: RuleIssue[], path = [key]): void {
  if (body[key] !== undefined && typeof body[key] !== 'string') issues.push({ path, message });
}

/** As `createSessionRequestSchema`: a goal string, context an object or null, guardrails' numbers. */
export function createSessionRule<T>(value: unknown): RuleResult<T> {
  if (!isObject(value)) return { ok: false, issues: [expectedObject(value)] };
  const issues: RuleIssue[] = [];
  if (typeof value.goal !== 'string')
    issues.push({ path: ['goal'], message: 'is required and must be a string' });
  const { context, guardrails } = value;
  if (context !== undefined && context !== null && !isPlainObject(context)) {
    issues.push({ path: ['context'], message: 'must be an object or null' });
  }
  if (guardrails !== undefined) {
    if (!isObject(guardrails)) {
      issues.push({ ...expectedObject(guardrails), path: ['guardrails'] });
    } else {
      const { maxCostPerSession: cost, maxIterations: iterations } = guardrails;
      if (cost !== undefined && !isJsonNumber(cost)) {
        issues.push({
          path: ['guardrails', 'maxCostPerSession'],
          message: 'maxCostPerSession must be a number',
        });
      }
      if (iterations !== undefined) {
        if (!isJsonNumber(iterations)) {
          issues.push({ path: ['guardrails', 'maxIterations'], message: 'maxIterations must be a number' });
        } else if (!Number.isSafeInteger(iterations)) {
          issues.push({
            path: ['guardrails', 'maxIterations'],
            message: 'maxIterations must be a whole number',
          });
        }
      }
    }
  }
  return done(value as T, issues);
}

const SIGNAL_TYPES = ['pause', 'resume', 'cancel', 'redirect'];
const UNKNOWN_TYPE = 'type must be one of pause, resume, cancel, redirect';

/** As `signalRequestSchema`: a known type, text fields as strings, a finite budget, a redirect's message. */
export function signalRule<T>(value: unknown): RuleResult<T> {
  if (!isObject(value)) return { ok: false, issues: [{ path: [], message: UNKNOWN_TYPE }] };
  if (!SIGNAL_TYPES.includes(value.type as string)) {
    return { ok: false, issues: [{ path: ['type'], message: UNKNOWN_TYPE }] };
  }
  const issues: RuleIssue[] = [];
  optionalString(value, 'reason', 'reason must be a string', issues);
  if (value.type === 'redirect') {
    if (typeof value.message !== 'string') {
      issues.push({ path: ['message'], message: 'message is required for a redirect' });
    }
  } else {
    optionalString(value, 'message', 'message must be a string', issues);
  }
  if (value.newBudget !== undefined && !isJsonNumber(value.newBudget)) {
    issues.push({ path: ['newBudget'], message: 'newBudget must be a number' });
  }
  return done(value as T, issues);
}

/** As `humanInputResponseRequestSchema`: every field optional, each of its JSON type. */
export function humanInputResponseRule<T>(value: unknown): RuleResult<T> {
  if (!isObject(value)) return { ok: false, issues: [expectedObject(value)] };
  const issues: RuleIssue[] = [];
  if (value.approved !== undefined && typeof value.approved !== 'boolean') {
    issues.push({ path: ['approved'], message: 'approved must be a boolean' });
  }
  optionalString(value, 'choiceId', 'choiceId must be a string', issues);
  const { choiceIds } = value;
  if (choiceIds !== undefined) {
    if (!Array.isArray(choiceIds)) {
      issues.push({ path: ['choiceIds'], message: 'choiceIds must be an array of strings' });
    } else {
      choiceIds.forEach((choice, i) => {
        if (typeof choice !== 'string') {
          issues.push({
            path: ['choiceIds', i],
            message: `Invalid input: expected string, received ${received(choice)}`,
          });
        }
      });
    }
  }
  optionalString(value, 'freeText', 'freeText must be a string', issues);
  if (value.answers !== undefined && !isPlainObject(value.answers)) {
    issues.push({ path: ['answers'], message: 'answers must be an object' });
  }
  return done(value as T, issues);
}

/** As `messagesQuerySchema`: limit a whole number 1–200, after a string; other keys dropped. */
export function messagesQueryRule(value: unknown): RuleResult<{ limit?: number; after?: string }> {
  if (!isObject(value)) return { ok: false, issues: [expectedObject(value)] };
  const issues: RuleIssue[] = [];
  const { limit, after } = value;
  if (limit !== undefined) {
    const between = { path: ['limit'], message: 'limit must be between 1 and 200' };
    if (!isJsonNumber(limit)) issues.push({ path: ['limit'], message: 'limit must be a number' });
    else if (!Number.isInteger(limit))
      issues.push({ path: ['limit'], message: 'limit must be a whole number' });
    else if (!Number.isSafeInteger(limit))
      issues.push({ path: ['limit'], message: 'limit must be a whole number' }, between);
    else if (limit < 1 || limit > 200) issues.push(between);
  }
  if (after !== undefined && typeof after !== 'string') {
    issues.push({ path: ['after'], message: 'after must be a roundId string' });
  }
  const query: { limit?: number; after?: string } = {};
  if ('limit' in value) query.limit = limit as number | undefined;
  if ('after' in value) query.after = after as string | undefined;
  return done(query, issues);
}
