/**
 * The bot's settings, read from the environment once at start. Each concern (Slack, the service, the
 * store, HTTP, conversations, approvals, limits, the agent surfaces, service keys, traces) has its own schema
 * and settings in this folder; here they are checked as one schema, so every problem is named at once.
 * The services never read this: the composition (wiring/) hands each the settings it declares.
 */
import { z } from 'zod';
import type { WorkflowStepSettings } from '../services/workflows/workflow-steps.js';
import { type AgentSurfaceConfig, agentSurfaceSchema, agentSurfaceSettings } from './agent-surface.js';
import { type ApprovalConfig, approvalsProblems, approvalsSchema, approvalsSettings } from './approvals.js';
import {
  conversationProblems,
  conversationSchema,
  conversationSettings,
  type ThreadContextConfig,
} from './conversation.js';
import { httpSchema, httpSettings } from './http.js';
import { type KeysConfig, keysProblems, keysSchema, keysSettings } from './keys.js';
import { limitsSchema, limitsSettings } from './limits.js';
import { type McpConfig, mcpProblems, mcpSchema, mcpSettings, withSlackbotScope } from './mcp.js';
import { secretProblems } from './secrets.js';

export { SECRET_VARIABLES } from './secrets.js';

import { keyLendingOf, serviceProblems, serviceSchema, serviceSettings } from './service.js';
import { isOAuth, type SlackConfig, slackProblems, slackSchema, slackSettings } from './slack.js';
import { storeSchema, storeSettings } from './store.js';
import { type TelemetryConfig, telemetrySchema, telemetrySettings } from './telemetry.js';
import { workflowsSchema, workflowsSettings } from './workflows.js';

export { DEFAULT_SUGGESTED_PROMPTS } from './agent-surface.js';
export type { KeysConfig } from './keys.js';
export type { McpConfig } from './mcp.js';
export { NO_KEY_FOR_TOKENS } from './slack.js';
export { databasePassword } from './store.js';
export type { TelemetryConfig } from './telemetry.js';

const schema = z
  .object({
    ...slackSchema.shape,
    ...serviceSchema.shape,
    ...storeSchema.shape,
    ...httpSchema.shape,
    ...conversationSchema.shape,
    ...approvalsSchema.shape,
    ...limitsSchema.shape,
    ...agentSurfaceSchema.shape,
    ...keysSchema.shape,
    ...telemetrySchema.shape,
    ...workflowsSchema.shape,
    ...mcpSchema.shape,
  })
  .superRefine((env, ctx) => {
    const oauth = isOAuth(env);
    const problems = [
      ...slackProblems(env),
      ...serviceProblems(env, oauth),
      ...conversationProblems(env, oauth),
      ...approvalsProblems(env, oauth),
      ...keysProblems(env),
      ...secretProblems(env),
      ...mcpProblems(env),
    ];
    for (const [path, message] of problems) ctx.addIssue({ code: 'custom', path: [path], message });
  });

export interface BotConfig {
  slack: SlackConfig | undefined;
  service: { url: string; apiKey: string } | undefined;
  databaseUrl?: string;
  dataDir: string;
  port: number;
  host: string;
  approvers: string[];
  allowedChannels: string[];
  showReasoning: boolean;
  requestsPerSecond: number;
  /** With PostgreSQL: how long a dead replica's sessions wait before another takes them. */
  leaseTtlMs: number;
  replicaId?: string;
  /** Unset: /metrics serves only series that name no workspace; set, its bearer also gets those that do. */
  metricsToken?: string;
  /** SHUTDOWN_GRACE_SECONDS: from SIGTERM to exit at most. */
  shutdownGraceMs: number;
  approvals: ApprovalConfig;
  /** `steer`: every reply in a session's thread steers it; `mention-only`: only replies that mention the bot. */
  threadReplies: 'steer' | 'mention-only';
  /** AGENT_THREAD_CACHE_* and AGENT_THREAD_READ*: a thread's context within Slack's read limits. */
  threadContext: ThreadContextConfig;
  /** off: one post per message and 429s left to the Web API client (the benchmark's naive strategy). */
  slackPacing: 'on' | 'off';
  /** Slack's agent surfaces: AGENT_SLACK_SURFACE, AGENT_SUGGESTED_PROMPTS… */
  agent: AgentSurfaceConfig;
  /** Service keys per workspace or person. */
  keys?: KeysConfig;
  /** Traces over OTLP, when an endpoint is set. */
  telemetry: TelemetryConfig;
  /** Workflow Builder's steps: WORKFLOW_STEP_CHECK_EVERY. */
  workflows?: WorkflowStepSettings;
  /** The MCP endpoint (/mcp) for agent hosts; absent with MCP_ENABLED=false. */
  mcp?: McpConfig;
}

export class ConfigError extends Error {}

/** Reads the environment once. Every problem is named by its variable, all at once. */
export function loadConfig(env: Record<string, string | undefined>): BotConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${String(i.path[0] ?? 'config')}: ${i.message}`).join('\n'),
    );
  }
  const e = parsed.data;
  return {
    slack: withSlackbotScope(slackSettings(e), e),
    service: serviceSettings(e),
    ...storeSettings(e),
    ...httpSettings(e),
    ...conversationSettings(e),
    ...approvalsSettings(e),
    ...limitsSettings(e),
    agent: agentSurfaceSettings(e),
    keys: { ...keysSettings(e), ...keyLendingOf(e, isOAuth(e)) },
    ...telemetrySettings(e),
    ...workflowsSettings(e),
    ...mcpSettings(e),
  };
}

/** For entry points: the configuration, or one message naming every problem and exit code 2. */
export function loadConfigOrExit(env: Record<string, string | undefined>): BotConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Configuration error:\n${error.message}\n`);
    process.exit(2);
  }
}
