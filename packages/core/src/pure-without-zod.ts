/**
 * Core's pure API without zod: everything `./pure` exports but the zod schemas (their types are here;
 * the requests are checked by the same rules in plain code). For code that may not carry zod: the n8n
 * node bundles this, and n8n's verification scanner refuses zod's use of `globalThis`.
 */
export * from './checks.js';
export * from './http/errors.js';
export { type Logger, silentLogger } from './http/logger.js';
export type {
  ApiRequest,
  ApiResponse,
  RequestFunction,
  RequestOptions,
  SleepFunction,
} from './http/request.js';
export * from './http/request-rules.js';
export { serverRequestedDelayMs } from './http/retry.js';
export * from './human-input/index.js';
export * from './messages/index.js';
export {
  createSessionsApi,
  type ListMessagesOptions,
  Sessions,
  type SessionsApiOptions,
} from './resources/sessions.js';
export type { SignupRequest, SignupResponse } from './schemas/auth.js';
export type { HumanInputResponseRequest } from './schemas/human-input.js';
export type { MessagesQuery } from './schemas/messages.js';
export * from './schemas/responses/index.js';
export type { CreateSessionRequest, Guardrails } from './schemas/sessions.js';
export type { SignalRequest } from './schemas/signal.js';
export * from './status.js';
export * from './timestamps.js';
export { type WaitableSessions, type WaitOptions, WaitTimeoutError, waitForCompletion } from './wait.js';
