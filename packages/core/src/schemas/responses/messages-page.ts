/**
 * A page of messages (GET /sessions/{id}/messages): strict on each message's `roundId`, and never a page
 * with a message left out.
 */

import { normalizeTimestamp } from '../../timestamps.js';
import {
  copyOf,
  isObj,
  type Obj,
  optionalNumber,
  optionalText,
  type ReadIssue,
  type ReadResult,
  setOrDrop,
  strictId,
  typeOf,
} from './read-fields.js';

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
  // Optional fields are set only when present, so `'role' in message` says whether the service sent one.
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
