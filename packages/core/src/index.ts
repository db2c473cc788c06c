export * from './checks.js';
export { AgentSessionsClient, type ClientOptions } from './client.js';
export * from './follow/index.js';
export * from './http/errors.js';
export { type Logger, redactHeaders, redactingLogger, silentLogger } from './http/logger.js';
export type {
  ApiRequest,
  ApiResponse,
  RequestFunction,
  RequestOptions,
  SleepFunction,
} from './http/request.js';
export {
  backoffMs,
  defaultRetryPolicy,
  type RetryPolicy,
  retryVerdict,
  serverRequestedDelayMs,
} from './http/retry.js';
export { sleep } from './http/sleep.js';
export * from './human-input/index.js';
export * from './messages-cursor.js';
export {
  createSessionsApi,
  type ListMessagesOptions,
  Sessions,
  type SessionsApiOptions,
} from './resources/sessions.js';
export * from './schemas/index.js';
export * from './status.js';
export * from './timestamps.js';
export { type WaitableSessions, type WaitOptions, WaitTimeoutError, waitForCompletion } from './wait.js';
