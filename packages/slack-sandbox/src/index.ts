export type { AgentOptions } from './agent/options.js';
export * from './agent/records.js';
export { AgentState } from './agent/state.js';
export {
  type BlockKitProblem,
  describeProblem,
  type Surface,
  validateBlocks,
  validateView,
} from './blockkit/validate.js';
export {
  type BotResponse,
  SENT_TO_BOTS,
  type SendOptions,
  type SentToBots,
  type SlackbotCallOptions,
  type SlackbotMcp,
  type SlackbotReply,
  SlackDriver,
  type StepRun,
  type StopResult,
  type ViewActInput,
  type ViewValues,
} from './driver.js';
export { Interactions } from './interactions.js';
export { type OAuthOptions, redirectMatches, type TokenEndpointCounts } from './oauth/app.js';
export {
  type AuthorizeInput,
  type AuthorizeResult,
  type InstallationInfo,
  type InstallResult,
  SandboxOAuth,
  type UninstallResult,
} from './oauth/sandbox-oauth.js';
export { oauthOptionsFromEnv } from './oauth/wiring.js';
export { createSandboxApp, type RunningSandbox, type SandboxOptions, startSandbox } from './server.js';
export { slackSignature } from './signing.js';
export {
  linkSharedChannels,
  PARTNER_TEAM_ID,
  withExternalMember,
  withSharedChannel,
} from './slack-connect.js';
export { type EnvelopeType, SocketModeHub } from './socket-mode.js';
export {
  type FunctionDefinition,
  type FunctionDefinitions,
  type FunctionParameters,
  functionsFromManifest,
  outputProblems,
} from './workflows/definitions.js';
export { type StepExecution, WorkflowRuns } from './workflows/state.js';
export * from './workspace.js';
