/**
 * Everything of `./pure.js` (the n8n entry, `@agent-sessions/core/pure`), plus what needs Node: the client
 * with its fetch transport, the follower, the retry policy, sleep and the redacting logger.
 */
export { AgentSessionsClient, type ClientOptions } from './client.js';
export * from './follow/index.js';
export { redactHeaders, redactingLogger } from './http/logger.js';
export { backoffMs, defaultRetryPolicy, type RetryPolicy, retryVerdict } from './http/retry.js';
export { sleep } from './http/sleep.js';
export type { RequestTracer } from './http/transport.js';
export * from './pure.js';
