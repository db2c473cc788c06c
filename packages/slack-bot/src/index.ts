export { createSlackApp, registerListeners } from './app.js';
export * from './blocks/index.js';
export * from './command-parser.js';
export {
  type BotConfig,
  ConfigError,
  loadConfig,
  loadConfigOrExit,
  SECRET_VARIABLES,
} from './config/index.js';
export { createLogger } from './logger.js';
export * from './store/index.js';
export {
  type BotTuning,
  mintMcpToken,
  type RunnableConfig,
  type RunningBot,
  startBot,
} from './wiring/index.js';
