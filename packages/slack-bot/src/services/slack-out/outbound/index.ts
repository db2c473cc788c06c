/**
 * How the bot's own calls reach Slack: the client it calls, who the bot is, and the paced outbound queue
 * with its budgets (per channel, per workspace, shared by replicas) and its answer to a 429.
 */
export { type BotIdentity, botIdentity, isOwnMessage } from './bot-identity.js';
export { OutboundQueue } from './outbound.js';
export {
  countedCall,
  type OutboundCall,
  type OutboundOptions,
  type OutboundPriority,
  queuedChat,
  rateLimitedRetryAfterMs,
  type SharedBudgets,
} from './outbound-calls.js';
export { type SlackChat, type SlackClient, slackErrorCode } from './slack.js';
export {
  type LimitOverrides,
  SLACK_LIMITS,
  SLACK_METHODS,
  type SlackLimit,
  type SlackMethod,
} from './slack-limits.js';
