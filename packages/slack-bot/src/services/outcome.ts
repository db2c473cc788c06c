import {
  type CreateSessionRequest,
  type HumanInputAnswer,
  ServiceError,
  ValidationError,
} from '@agent-sessions/core';
import { escapeMrkdwn } from '../blocks/text.js';

/** What a service tells its caller: done, or why not in words for the person who acted. */
export type Outcome<T = object> = ({ ok: true } & T) | { ok: false; message: string };

/** A person-readable sentence for any failure of a call to the service; never the API key. */
export function describeServiceFailure(error: unknown): string {
  // The service's words, shown in mrkdwn: escaped, so an error message can't ping or link.
  // A session's key removed or unreadable: the way to fix it, not "could not be reached".
  if (error instanceof Error && error.name === 'KeyUnavailableError') {
    const fix = (error as { fix?: unknown }).fix;
    return `${escapeMrkdwn(error.message)}: ${typeof fix === 'string' ? fix : 'a key can be linked on my Home tab'}`;
  }
  if (error instanceof ValidationError)
    return escapeMrkdwn(error.issues.map((i) => `${i.field}: ${i.message}`).join('; '));
  if (error instanceof ServiceError)
    return `the service answered ${error.status}: ${escapeMrkdwn(error.message)}`;
  if (error instanceof Error) return `the service could not be reached (${escapeMrkdwn(error.message)})`;
  return 'the service could not be reached';
}

/**
 * A form checked on submit: its problems by block id (shown under the inputs, the form stays open), or
 * what to do once the form has closed (the listener acks first: Slack closes forms within 3 seconds).
 */
export type FormResult = { ok: false; errors: Record<string, string> } | { ok: true; run(): Promise<void> };

/** What the bot reads of a session's status (the client's full type has more, and may gain more). */
export interface LiveSession {
  status: string;
  cost?: { totalCost?: number } | null;
  rounds?: unknown[] | null;
  /** When it started and ended, as the service says: a summary's elapsed time stops at the end. */
  createdAt?: unknown;
  completedAt?: unknown;
  updatedAt?: unknown;
}

/**
 * The calls to the Agent Session Service the bot makes, typed by what it sends and what it reads back:
 * the client satisfies it, and a test's fake needs nothing more.
 */
export interface SessionsCalls {
  create(body: CreateSessionRequest): Promise<{ sessionId: string }>;
  get(sessionId: string): Promise<LiveSession>;
  respond(sessionId: string, inputId: string, answer: HumanInputAnswer): Promise<unknown>;
  pause(sessionId: string, body?: { reason?: string }): Promise<unknown>;
  resume(sessionId: string, body?: { newBudget?: number; message?: string }): Promise<unknown>;
  cancel(sessionId: string, body?: { reason?: string }): Promise<unknown>;
  redirect(sessionId: string, body: { message: string }): Promise<unknown>;
}

/** The calls one service makes. */
export type SessionsApi<K extends keyof SessionsCalls> = { sessions: Pick<SessionsCalls, K> };
