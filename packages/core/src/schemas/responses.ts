import { isKnownStatus } from '../status.js';
import { normalizeTimestamp } from '../timestamps.js';

/**
 * Reading what the service sends, field by field (docs/contract-decisions.md: "fields present only when…").
 *
 * The shape of every object read here:
 * - the fields we know are normalized at the top level (`null` means absent; numeric strings are
 *   numbers; timestamps are ISO strings; `content` is text);
 * - fields we don't know are kept at the top level as sent;
 * - `raw` is the object exactly as the service sent it, so an odd value is never lost: the original of
 *   a normalized field is `x.raw.<field>` (a service field that is itself called `raw` is in `x.raw.raw`).
 *
 * Only `sessionId` and `status` of a session and a message's `roundId` are strict: without them a read
 * can't be used, so it fails (InvalidResponseError) rather than guess. Everything else is tolerated.
 * Responses to POSTs are never failed at all: the service acted, so the caller gets what it sent.
 * Pure: no timers, no I/O (the n8n node bundles this file).
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A shallow copy of what the service sent, for the normalized fields to be stored over (same keys, same
 * order as `{ ...obj, a, b }`). Not that literal: V8 builds a spread followed by more properties on a
 * slow path, ~8 µs for one status, more than all the rest of the client's work per request, where
 * Object.assign then plain stores take a fraction of a microsecond. An own `__proto__` key (JSON.parse
 * makes one) is spread instead: Object.assign would set the copy's prototype with it.
 */
function copyOf<T extends Obj>(obj: Obj): T {
  return (Object.hasOwn(obj, '__proto__') ? { ...obj } : Object.assign({}, obj)) as T;
}

/** Sets `key` when there is a value and removes it otherwise, deleting only what is there (a delete is slow). */
function setOrDrop<T extends Obj, K extends keyof T & string>(
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

function typeOf(value: unknown): string {
  if (value === undefined) return 'no body';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A string field: strings as sent, numbers as text; null or absent is undefined. */
function optionalText(obj: Obj, key: string, issues: ReadIssue[], prefix = ''): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  issues.push({ path: `${prefix}${key}`, problem: `expected a string, got ${typeOf(value)}` });
  return undefined;
}

/** A number field: numbers, and strings that hold one ("12", "0.5"); null or absent is undefined. */
function optionalNumber(obj: Obj, key: string, issues: ReadIssue[], prefix = ''): number | undefined {
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

function strictId(obj: Obj, key: string, issues: ReadIssue[], prefix = ''): string | undefined {
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

// ——— Session status ———————————————————————————————————————————————————————————————

export interface Cost {
  /** USD; 0 when the service sent none (null, absent, or not a number: see `raw.cost`). */
  totalCost: number;
  totalTokens: number;
  promptTokens: number;
  completionTokens: number;
  [key: string]: unknown;
}

/** Rounds are free-form in the spec; an entry that isn't an object is kept as `{ value: entry }`. */
export interface Round {
  roundId?: string;
  [key: string]: unknown;
}

export interface SessionStatus {
  sessionId: string;
  status: string;
  /** False for a status the contract doesn't list: shown raw, treated as not terminal. */
  statusKnown: boolean;
  /** The original goal. */
  message: string | null;
  cost: Cost;
  /** Always an array: a map of rounds becomes its values; anything else becomes [] (see `raw.rounds`). */
  rounds: Round[];
  createdAt: string | null;
  updatedAt: string | null;
  completedAt: string | null;
  /** Text: an error object becomes its `message` (or its JSON); null when there is none. */
  error: string | null;
  completionReport: unknown;
  /** The body as the service sent it. */
  raw: Obj;
  [key: string]: unknown;
}

function readCost(value: unknown, issues: ReadIssue[]): Cost {
  const obj = isObj(value) ? value : {};
  if (value !== undefined && value !== null && !isObj(value)) {
    issues.push({ path: 'cost', problem: `expected an object, got ${typeOf(value)}` });
  }
  const cost = copyOf<Cost>(obj);
  cost.totalCost = optionalNumber(obj, 'totalCost', issues, 'cost.') ?? 0;
  cost.totalTokens = optionalNumber(obj, 'totalTokens', issues, 'cost.') ?? 0;
  cost.promptTokens = optionalNumber(obj, 'promptTokens', issues, 'cost.') ?? 0;
  cost.completionTokens = optionalNumber(obj, 'completionTokens', issues, 'cost.') ?? 0;
  return cost;
}

function readRounds(value: unknown, issues: ReadIssue[]): Round[] {
  if (value === undefined || value === null) return [];
  let entries: unknown[];
  if (Array.isArray(value)) entries = value;
  else if (isObj(value)) {
    // A map keyed by roundId (a document store's subcollection): its values are the rounds.
    issues.push({
      path: 'rounds',
      problem: 'expected an array, got an object: its values are read as the rounds',
    });
    entries = Object.values(value);
  } else {
    issues.push({ path: 'rounds', problem: `expected an array, got ${typeOf(value)}` });
    return [];
  }
  return entries.map((entry) => (isObj(entry) ? (entry as Round) : { value: entry }));
}

function readError(value: unknown, issues: ReadIssue[]): string | null {
  if (value === undefined || value === null || value === false) return null;
  if (typeof value === 'string') return value;
  if (isObj(value) && typeof value.message === 'string') return value.message;
  issues.push({ path: 'error', problem: `expected a string, got ${typeOf(value)}` });
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function readSessionStatus(body: unknown): ReadResult<SessionStatus> {
  const issues: ReadIssue[] = [];
  if (!isObj(body))
    return { ok: false, issues: [{ path: 'body', problem: `expected an object, got ${typeOf(body)}` }] };
  const sessionId = strictId(body, 'sessionId', issues);
  const status = strictId(body, 'status', issues);
  if (sessionId === undefined || status === undefined) return { ok: false, issues };
  const value = copyOf<SessionStatus>(body);
  value.sessionId = sessionId;
  value.status = status;
  value.statusKnown = isKnownStatus(status);
  value.message = optionalText(body, 'message', issues) ?? null;
  value.cost = readCost(body.cost, issues);
  value.rounds = readRounds(body.rounds, issues);
  value.createdAt = normalizeTimestamp(body.createdAt);
  value.updatedAt = normalizeTimestamp(body.updatedAt);
  value.completedAt = normalizeTimestamp(body.completedAt);
  value.error = readError(body.error, issues);
  value.completionReport = body.completionReport ?? null;
  value.raw = body;
  return { ok: true, value, issues };
}

// ——— Messages ——————————————————————————————————————————————————————————————————————

export interface Message {
  roundId: string;
  /** Absent when the service sent none (or not text). */
  role?: string;
  /**
   * Text: a string as sent; an array of parts becomes the text of its text parts joined by newlines
   * (other parts stay in `raw.content`); any other value its JSON; null when absent (e.g. beside toolCalls).
   */
  content: string | null;
  name?: string;
  reasoning?: string;
  reasoningDurationMs?: number;
  toolCallId?: string;
  /** The tool calls that are objects; anything else stays in `raw.toolCalls`. */
  toolCalls?: Record<string, unknown>[];
  timestamp: string | null;
  raw: Obj;
  [key: string]: unknown;
}

function partText(part: unknown): string | undefined {
  if (typeof part === 'string') return part;
  if (!isObj(part)) return undefined;
  if (typeof part.text === 'string') return part.text;
  if (isObj(part.text) && typeof part.text.value === 'string') return part.text.value;
  return undefined;
}

function readContent(value: unknown, issues: ReadIssue[], prefix: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const texts = value.map(partText).filter((t): t is string => t !== undefined);
    if (texts.length < value.length) {
      issues.push({ path: `${prefix}content`, problem: 'parts without text are kept in raw.content only' });
    }
    return texts.length > 0 ? texts.join('\n') : null;
  }
  issues.push({
    path: `${prefix}content`,
    problem: `expected a string, got ${typeOf(value)}: read as its JSON`,
  });
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function readMessage(value: unknown, index: number, issues: ReadIssue[]): Message | undefined {
  const prefix = `messages.${index}.`;
  if (!isObj(value)) {
    issues.push({ path: `messages.${index}`, problem: `expected an object, got ${typeOf(value)}` });
    return undefined;
  }
  const roundId = strictId(value, 'roundId', issues, prefix);
  if (roundId === undefined) return undefined;
  const message = copyOf<Message>(value);
  message.roundId = roundId;
  message.content = readContent(value.content, issues, prefix);
  message.timestamp = normalizeTimestamp(value.timestamp);
  message.raw = value;
  // Optional fields are set only when present, as before: `'role' in message` keeps its meaning.
  setOrDrop(message, 'role', optionalText(value, 'role', issues, prefix));
  for (const key of ['name', 'reasoning', 'toolCallId'] as const) {
    setOrDrop(message, key, optionalText(value, key, issues, prefix));
  }
  setOrDrop(message, 'reasoningDurationMs', optionalNumber(value, 'reasoningDurationMs', issues, prefix));
  const calls = value.toolCalls;
  if (Array.isArray(calls)) {
    const objects = calls.filter(isObj);
    if (objects.length < calls.length) {
      issues.push({
        path: `${prefix}toolCalls`,
        problem: 'entries that are not objects are kept in raw.toolCalls only',
      });
    }
    message.toolCalls = objects;
  } else {
    if (calls !== undefined && calls !== null) {
      issues.push({ path: `${prefix}toolCalls`, problem: `expected an array, got ${typeOf(calls)}` });
    }
    setOrDrop(message, 'toolCalls', undefined);
  }
  return message;
}

export interface MessagesPagination {
  count?: number;
  hasMore: boolean;
  /** The cursor for the next request; null when the service sent none. */
  lastRoundId: string | null;
  /** `pagination` as sent (undefined when there was none). */
  raw: unknown;
  [key: string]: unknown;
}

export interface MessagesPage {
  sessionId?: string;
  /** Oldest first, as sent; every message the service sent is here (a page with one unusable fails whole). */
  messages: Message[];
  pagination: MessagesPagination;
  [key: string]: unknown;
}

function readHasMore(value: unknown, issues: ReadIssue[]): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 1) return true;
  if (value === 'false' || value === 0) return false;
  issues.push({ path: 'pagination.hasMore', problem: `expected a boolean, got ${typeOf(value)}` });
  return false;
}

export function readMessagesPage(body: unknown): ReadResult<MessagesPage> {
  const issues: ReadIssue[] = [];
  if (!isObj(body))
    return { ok: false, issues: [{ path: 'body', problem: `expected an object, got ${typeOf(body)}` }] };
  const list = body.messages ?? [];
  if (!Array.isArray(list)) {
    return { ok: false, issues: [{ path: 'messages', problem: `expected an array, got ${typeOf(list)}` }] };
  }
  const messages: Message[] = [];
  let unusable = false;
  list.forEach((entry, index) => {
    const message = readMessage(entry, index, issues);
    if (message === undefined) unusable = true;
    else messages.push(message);
  });
  // Never a page with a message left out: the caller's cursor would skip it for good.
  if (unusable) return { ok: false, issues };
  const rawPagination = body.pagination;
  const p = isObj(rawPagination) ? rawPagination : {};
  if (rawPagination !== undefined && rawPagination !== null && !isObj(rawPagination)) {
    issues.push({ path: 'pagination', problem: `expected an object, got ${typeOf(rawPagination)}` });
  }
  const pagination = copyOf<MessagesPagination>(p);
  pagination.hasMore = readHasMore(p.hasMore, issues);
  pagination.lastRoundId = optionalText(p, 'lastRoundId', issues, 'pagination.') ?? null;
  pagination.raw = rawPagination;
  setOrDrop(pagination, 'count', optionalNumber(p, 'count', issues, 'pagination.'));
  const page = copyOf<MessagesPage>(body);
  page.messages = messages;
  page.pagination = pagination;
  setOrDrop(page, 'sessionId', optionalText(body, 'sessionId', issues));
  return { ok: true, value: page, issues };
}

// ——— Responses to POSTs: never a failure ————————————————————————————————————————————

/**
 * What a POST returned. The service acted on it, so this is never turned into an error: fields the
 * contract names are typed when they have the contract's type and absent otherwise (`null` is absent),
 * `raw` is the body as sent, and `contractIssues` says what didn't match (absent when all did).
 */
interface PostResult {
  raw: unknown;
  contractIssues?: string[];
  [key: string]: unknown;
}

export interface CreateSessionResponse extends PostResult {
  /**
   * `''` (falsy, and refused by every other call) only when the service's answer had none: the session
   * may exist, so don't create it again blindly. A string, not optional, so the usual case stays simple.
   */
  sessionId: string;
  /** The first round. */
  roundId?: string;
  /** `queued` at first. */
  status?: string;
}

export interface SignalResponse extends PostResult {
  sessionId?: string;
  signal?: string;
  /** Present only when a resume created a new round. */
  roundId?: string;
  message?: string;
}

export interface HumanInputAck extends PostResult {
  inputId?: string;
  /** `responded`. */
  status?: string;
  /** Present only when the session resumed. */
  roundId?: string;
  message?: string;
}

function readPostResult<T extends PostResult>(
  body: unknown,
  required: readonly string[],
  optional: readonly string[],
): T {
  const issues: ReadIssue[] = [];
  if (!isObj(body)) {
    const result: PostResult = {
      raw: body,
      contractIssues: [`body: expected a JSON object, got ${typeOf(body)}`],
    };
    return result as T;
  }
  const result: PostResult = { ...body, raw: body };
  for (const key of [...required, ...optional]) {
    const value = body[key];
    if (typeof value === 'string') continue;
    delete result[key];
    if (value === undefined || value === null) {
      if (required.includes(key)) issues.push({ path: key, problem: 'is missing' });
    } else issues.push({ path: key, problem: `expected a string, got ${typeOf(value)}` });
  }
  if (issues.length > 0) result.contractIssues = issues.map((i) => `${i.path}: ${i.problem}`);
  return result as T;
}

export function readCreateSessionResponse(body: unknown): CreateSessionResponse {
  const result = readPostResult<CreateSessionResponse>(body, ['sessionId', 'status'], ['roundId']);
  if (result.sessionId === undefined) result.sessionId = '';
  return result;
}

export const readSignalResponse = (body: unknown): SignalResponse =>
  readPostResult(body, ['sessionId', 'signal'], ['roundId', 'message']);

export const readHumanInputAck = (body: unknown): HumanInputAck =>
  readPostResult(body, ['inputId', 'status'], ['roundId', 'message']);
