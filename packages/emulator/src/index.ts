export { type ScenarioPrompt, scenarioPrompts } from './agent/suggested-prompts.js';
export { createApp } from './app.js';
export { type EmulatorConfig, loadConfig } from './config.js';
export { type FaultConfig, Faults } from './faults.js';
export { openApiDocument } from './openapi.js';
export { noQuirks, parseQuirks, QUIRK_NAMES, type Quirks, QuirksError, quirkNames } from './quirks.js';
export { createEmulator, type EmulatorOptions, type RunningEmulator, startEmulator } from './server.js';
export type { EmulatorEvent } from './store.js';
