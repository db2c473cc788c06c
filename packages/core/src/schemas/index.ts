export * from './auth.js';
export * from './common.js';
export * from './human-input.js';
export * from './messages.js';
export * from './responses.js';
export * from './sessions.js';
export * from './signal.js';
