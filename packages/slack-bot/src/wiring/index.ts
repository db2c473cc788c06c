/**
 * The bot's composition root: `startBot` builds its parts in order, each given every dependency at
 * construction (one builder per part, in this folder), then starts and serves them.
 */
export { mintMcpToken } from './mcp.js';
export { type RunningBot, startBot } from './start-bot.js';
export type { BotTuning, RunnableConfig } from './types.js';
