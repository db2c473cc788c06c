export * from './agent-message.js';
export * from './home.js';
export * from './ids.js';
export * from './modals.js';
export * from './prompt.js';
export * from './report.js';
export * from './session-card.js';
export * from './text.js';
