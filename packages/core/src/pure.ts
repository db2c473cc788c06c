/**
 * The modules with no I/O, timers, `process` or dependencies: statuses, timestamps, the message cursor and
 * human-input parsing and answers. Safe to bundle where only pure code may run (n8n community nodes).
 */
export * from './human-input/index.js';
export * from './messages-cursor.js';
export * from './status.js';
export * from './timestamps.js';
