export { AgentSessionsClient, type ClientOptions } from './client.js';
export * from './core/errors.js';
export { type Logger, redactHeaders, redactingLogger, silentLogger } from './core/logger.js';
export {
  backoffMs,
  defaultRetryPolicy,
  type RetryPolicy,
  retryVerdict,
  serverRequestedDelayMs,
} from './core/retry.js';
export { sleep } from './core/sleep.js';
export type { RequestOptions } from './core/transport.js';
export * from './follow/index.js';
export * from './human-input/index.js';
export * from './messages-cursor.js';
export type { ListMessagesOptions } from './resources/sessions.js';
export * from './schemas/index.js';
export * from './status.js';
export * from './timestamps.js';
export { type WaitOptions, WaitTimeoutError, waitForCompletion } from './wait.js';
