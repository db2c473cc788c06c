/** A session's status (GET /sessions/{id}): strict on `sessionId` and `status`, tolerant of the rest. */

import { isKnownStatus } from '../../status.js';
import { normalizeTimestamp } from '../../timestamps.js';
import {
  copyOf,
  isObj,
  type Obj,
  optionalNumber,
  optionalText,
  type ReadIssue,
  type ReadResult,
  strictId,
  typeOf,
} from './read-fields.js';

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
