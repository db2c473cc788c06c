/**
 * What a POST returned. The service acted on it, so this is never turned into an error: fields the
 * contract names are typed when they have the contract's type and absent otherwise (`null` is absent),
 * `raw` is the body as sent, and `contractIssues` says what didn't match (absent when all did).
 */

import { isObj, type ReadIssue, typeOf } from './read-fields.js';

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
