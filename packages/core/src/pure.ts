/**
 * Everything of core with no I/O, timers, `process` or globals: the session endpoints over an injected
 * request function (`createSessionsApi`), the wait loop, typed errors, request rules and response
 * readers, friendly input checks, statuses, timestamps, the message cursor, and human-input parsing and
 * answers. Safe to bundle where only pure code may run (n8n community nodes).
 *
 *   const sessions = createSessionsApi({ request, sleep });   // request: ApiRequest -> ApiResponse
 *   const status = await sessions.waitForCompletion(id, { until: 'needs-person', signal });
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
export { serverRequestedDelayMs } from './http/retry.js';
export * from './human-input/index.js';
export * from './messages/index.js';
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
