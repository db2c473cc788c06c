import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

export type { ChannelDefaults, ChannelSettings, ChannelSettingsRepository } from './channel-settings.js';
export type {
  CodeChannelEnd,
  CodeChannelRecord,
  CodeChannelRepository,
  CodeChannelState,
} from './code-channels.js';
export type { EventLog } from './events.js';
export type { FeedbackRepository, FeedbackValue } from './feedback.js';
export type { FinalCardRepository } from './final-cards.js';
export type { InstallationRepository, SlackInstallation } from './installations.js';
export type { LeaseRepository } from './leases.js';
export type { McpTokenRecord, McpTokenRepository } from './mcp-tokens.js';
export { MIGRATIONS, migrate } from './migrations.js';
export { openStore } from './open.js';
export type { PostRepository } from './posts.js';
export type { NewPrompt, PromptLocator, PromptRepository, SessionWithPending } from './prompts.js';
export * from './records.js';
export type { RecoveryClaimRepository } from './recovery-claims.js';
export type { ServiceKeyRepository, StoredServiceKey } from './service-keys.js';
export type { SessionFilter, SessionRepository, SessionWorkspace } from './sessions.js';
export type { BudgetRate, SlackBudgetRepository } from './slack-budgets.js';
export type { SqlClient, SqlExecutor } from './sql.js';
export { SqlStore, type Store } from './store.js';
export type { StreamInFlight, StreamRecord, StreamRepository } from './streams.js';
export type { ThreadCacheLimits, ThreadMessage, ThreadMessageRepository } from './thread-messages.js';
export type { WorkflowExecution, WorkflowExecutionRepository } from './workflow-executions.js';
export { openPglite, openPostgres };
