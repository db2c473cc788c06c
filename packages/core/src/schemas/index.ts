export * from './auth.js';
export * from './common.js';
export * from './human-input.js';
export * from './messages.js';
export * from './responses/index.js';
export * from './sessions.js';
export * from './signal.js';
