import type { CursorStore } from '@agent-sessions/core';
import { type AuditRepository, SqlAuditRepository } from './audit.js';
import { type ChannelSettingsRepository, SqlChannelSettingsRepository } from './channel-settings.js';
import { type CodeChannelRepository, SqlCodeChannelRepository } from './code-channels.js';
import { type EventLog, SqlEventLog } from './events.js';
import { type FeedbackRepository, SqlFeedbackRepository } from './feedback.js';
import { type FinalCardRepository, SqlFinalCardRepository } from './final-cards.js';
import { SqlFollowStateRepository } from './follow-state.js';
import { type InstallationRepository, SqlInstallationRepository } from './installations.js';
import { type LeaseRepository, SqlLeaseRepository } from './leases.js';
import { CachedMcpTokenRepository, type McpTokenRepository, SqlMcpTokenRepository } from './mcp-tokens.js';
import { migrate } from './migrations.js';
import { type PostRepository, SqlPostRepository } from './posts.js';
import { type PromptRepository, SqlPromptRepository } from './prompts.js';
import { type RecoveryClaimRepository, SqlRecoveryClaimRepository } from './recovery-claims.js';
import { type ReminderRepository, SqlReminderRepository } from './reminders.js';
import { type ServiceKeyRepository, SqlServiceKeyRepository } from './service-keys.js';
import { type SessionRepository, SqlSessionRepository } from './sessions.js';
import { type SlackBudgetRepository, SqlSlackBudgetRepository } from './slack-budgets.js';
import type { SqlClient } from './sql.js';
import { SqlStreamRepository, type StreamRepository } from './streams.js';
import { SqlThreadMessageRepository, type ThreadMessageRepository } from './thread-messages.js';
import { SqlWorkflowExecutionRepository, type WorkflowExecutionRepository } from './workflow-executions.js';

/**
 * Everything the bot must not forget across restarts and share across replicas, one repository per
 * concern. Services take only the repositories they use.
 */
export interface Store {
  sessions: SessionRepository;
  prompts: PromptRepository;
  posts: PostRepository;
  leases: LeaseRepository;
  /** Which replica sends a finished session's leftovers. */
  recoveryClaims: RecoveryClaimRepository;
  /** Finished sessions' final card edits not yet taken by Slack. */
  finalCards: FinalCardRepository;
  /** The follower's cursors. */
  followState: CursorStore;
  events: EventLog;
  /** Every human action on a session (approvals' audit). */
  audit: AuditRepository;
  /** Waiting questions' reminder schedules. */
  reminders: ReminderRepository;
  feedback: FeedbackRepository;
  /** Slack's limits, one budget for all replicas. */
  slackBudgets: SlackBudgetRepository;
  /** The agent's work streamed into Slack. */
  streams: StreamRepository;
  codeChannels: CodeChannelRepository;
  /** A channel's defaults for new sessions. */
  channelSettings: ChannelSettingsRepository;
  /** Service keys linked in App Home, encrypted. */
  serviceKeys: ServiceKeyRepository;
  /** OAuth installs: each workspace's tokens, and the install flow's states. */
  installations: InstallationRepository;
  /** Messages received as events, bounded: threads' context without reading Slack. */
  threadMessages: ThreadMessageRepository;
  /** Workflow Builder steps: each execution and its one completion. */
  workflowExecutions: WorkflowExecutionRepository;
  /** Personal tokens of MCP hosts, hashed. */
  mcpTokens: McpTokenRepository;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** One implementation for both databases: they share PostgreSQL's dialect and the migrations. */
export class SqlStore implements Store {
  readonly sessions: SqlSessionRepository;
  readonly prompts: SqlPromptRepository;
  readonly posts: SqlPostRepository;
  readonly leases: SqlLeaseRepository;
  readonly recoveryClaims: SqlRecoveryClaimRepository;
  readonly finalCards: SqlFinalCardRepository;
  readonly followState: SqlFollowStateRepository;
  readonly events: SqlEventLog;
  readonly audit: SqlAuditRepository;
  readonly reminders: SqlReminderRepository;
  readonly feedback: SqlFeedbackRepository;
  readonly slackBudgets: SqlSlackBudgetRepository;
  readonly streams: SqlStreamRepository;
  readonly codeChannels: SqlCodeChannelRepository;
  readonly channelSettings: SqlChannelSettingsRepository;
  readonly serviceKeys: SqlServiceKeyRepository;
  readonly installations: SqlInstallationRepository;
  readonly threadMessages: SqlThreadMessageRepository;
  readonly workflowExecutions: SqlWorkflowExecutionRepository;
  readonly mcpTokens: CachedMcpTokenRepository;

  constructor(readonly sql: SqlClient) {
    this.sessions = new SqlSessionRepository(sql);
    this.prompts = new SqlPromptRepository(sql);
    this.posts = new SqlPostRepository(sql);
    this.leases = new SqlLeaseRepository(sql);
    this.recoveryClaims = new SqlRecoveryClaimRepository(sql);
    this.finalCards = new SqlFinalCardRepository(sql);
    this.followState = new SqlFollowStateRepository(sql);
    this.events = new SqlEventLog(sql);
    this.audit = new SqlAuditRepository(sql);
    this.reminders = new SqlReminderRepository(sql);
    this.feedback = new SqlFeedbackRepository(sql);
    this.slackBudgets = new SqlSlackBudgetRepository(sql);
    this.streams = new SqlStreamRepository(sql);
    this.codeChannels = new SqlCodeChannelRepository(sql);
    this.channelSettings = new SqlChannelSettingsRepository(sql);
    this.serviceKeys = new SqlServiceKeyRepository(sql);
    this.installations = new SqlInstallationRepository(sql);
    this.threadMessages = new SqlThreadMessageRepository(sql);
    this.workflowExecutions = new SqlWorkflowExecutionRepository(sql);
    this.mcpTokens = new CachedMcpTokenRepository(new SqlMcpTokenRepository(sql));
  }

  static async open(sql: SqlClient): Promise<SqlStore> {
    await migrate(sql);
    return new SqlStore(sql);
  }

  async ping(): Promise<void> {
    await this.sql.query('SELECT 1');
  }

  close(): Promise<void> {
    return this.sql.close();
  }
}
