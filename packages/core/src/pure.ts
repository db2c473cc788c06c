/**
 * Everything of core with no I/O, timers, `process` or globals: the session endpoints over an injected
 * request function (`createSessionsApi`), the wait loop, typed errors, request rules and response
 * readers, friendly input checks, statuses, timestamps, the message cursor, and human-input parsing and
 * answers. Safe to bundle where only pure code may run (n8n community nodes).
 *
 *   const sessions = createSessionsApi({ request, sleep });   // request: ApiRequest -> ApiResponse
 *   const status = await sessions.waitForCompletion(id, { until: 'needs-person', signal });
 *
 * The same without zod (the schemas left out, requests checked in plain code): `./pure-without-zod`.
 */
export * from './pure-without-zod.js';
export * from './schemas/index.js';
