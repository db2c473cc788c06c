/** Agent hosts over MCP: the endpoint, its personal tokens, and the tools that act as one Slack person. */
export {
  ACTIVE_PEOPLE,
  ActivePeople,
  type ActivePeopleSettings,
  type SlackUser,
  type Standing,
  slackUser,
} from './active-people.js';
export { clientAddress, type ProxyTrust, proxyTrust, trustedProxyProblem } from './client-address.js';
export { McpConnections } from './connections.js';
export { MCP_PATH, McpEndpoint, type McpEndpointSettings, METADATA_PATH, mcpRoutes } from './endpoint.js';
export { normalOrigin, originAllowed } from './origin.js';
export { RequestBudget } from './request-budget.js';
export { type Admission, SignInGuard, SPENT_ADDRESS_LOOKUPS_PER_SECOND } from './sign-in-guard.js';
export {
  SIGNATURE_WINDOW_SECONDS,
  SLACKBOT_HOST,
  SlackIdentityAuth,
  type SlackPerson,
} from './slack-identity.js';
export {
  MAX_LIVE_TOKENS,
  type McpCaller,
  type McpTokenInfo,
  type McpTokenSettings,
  McpTokens,
  TOKEN_PREFIX,
  wellFormedToken,
} from './tokens.js';
export type { McpToolDeps, MessageView, ToolCaller } from './tools.js';

/**
 * The per-request server with the session tools, loaded with the MCP SDK and the tools' schemas on the
 * first request that reaches them: a bot no agent host calls never loads them.
 */
export const loadSessionServer = async () => (await import('./session-server.js')).sessionServer;
export { SessionSlots } from './session-slots.js';
export { WAIT_LIMITS, type WaitLimits, WaitSlots } from './wait-slots.js';
export { SessionWaiter, type WaitEnd } from './waiting.js';
