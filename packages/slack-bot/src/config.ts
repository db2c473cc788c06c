/**
 * The bot's settings, read from the environment once at start and checked as one schema, so every problem
 * is named at once. That schema lists every variable the bot reads, with its rule.
 */
import { z } from 'zod';
import { type AgentSurfaceConfig, agentSurfaceConfig, agentSurfaceEnv } from './config-agent.js';
import { isOAuth, oauthEnv, oauthProblems, oauthSlack, type SlackConfig } from './config-oauth.js';
import { keyLendingOf, tenantProblems, tenantsEnv } from './config-tenants.js';
import { type KeysConfig, keysConfigOf, keysEnv, keysEnvProblems } from './services/keys/key-config.js';
import { entryList } from './services/people/workspace-entries.js';

const url = (name: string) =>
  z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` }).optional();

/** `90s`, `15m`, `2h`, `500ms`, or plain seconds (`900`), into milliseconds. */
export function parseDuration(raw: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(raw);
  if (!match) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's').toLowerCase() as 'ms'];
  return Math.round(Number(match[1]) * unit);
}

/** `NAME=` (an env file's empty line) means unset, as for every approvals variable. */
const blankAsUnset = <T extends z.ZodType>(inner: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), inner);

const duration = (name: string) =>
  blankAsUnset(
    z
      .string()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined) return undefined;
        const ms = parseDuration(raw);
        if (ms === undefined) {
          ctx.addIssue({
            code: 'custom',
            message: `${name} must be a duration like 90s, 15m, 2h or a number of seconds`,
          });
          return z.NEVER;
        }
        return ms;
      }),
  );

/** A whole number, each problem named by the variable. */
const wholeNumber = (name: string) =>
  z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be a whole number`);

const schema = z
  .object({
    SLACK_BOT_TOKEN: z
      .string()
      .startsWith('xoxb-', 'SLACK_BOT_TOKEN must be a bot token (xoxb-…)')
      .optional(),
    SLACK_SIGNING_SECRET: z.string().min(1).optional(),
    SLACK_APP_TOKEN: z
      .string()
      .startsWith('xapp-', 'SLACK_APP_TOKEN must be an app-level token (xapp-…)')
      .optional(),
    SLACK_API_URL: url('SLACK_API_URL'),
    ...oauthEnv,
    ...tenantsEnv, // which workspaces are served and lent AGENT_API_KEY under OAuth (config-tenants.ts)
    AGENT_SERVICE_URL: url('AGENT_SERVICE_URL'),
    AGENT_API_KEY: z.string().min(1).optional(),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
      .optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    PORT: wholeNumber('PORT').min(0).max(65535).default(3000),
    HOST: blankAsUnset(z.string().optional()),
    // Each entry may be limited to a workspace: T0NORTH:U123 (issue #25; services/people/workspace-entries.ts).
    AGENT_APPROVERS: entryList(
      'AGENT_APPROVERS',
      /^[UWS][A-Z0-9]+$/,
      'takes user ids (U…, W…) and user group ids (S…)',
    ),
    AGENT_ALLOWED_CHANNELS: entryList(
      'AGENT_ALLOWED_CHANNELS',
      /^([CGD][A-Z0-9]{2,}|dm)$/,
      "takes channel ids (C…, G…) and dm (the bot's direct messages)",
    ),
    AGENT_SHOW_REASONING: z
      .enum(['true', 'false'], { error: 'AGENT_SHOW_REASONING must be true or false' })
      .default('false'),
    LEASE_TTL_SECONDS: z.coerce
      .number({ error: 'LEASE_TTL_SECONDS must be a number' })
      .min(1, 'LEASE_TTL_SECONDS must be at least 1')
      .max(3600, 'LEASE_TTL_SECONDS must be at most 3600')
      .default(30),
    REPLICA_ID: z
      .string()
      .regex(/^[\w.-]{1,100}$/, 'REPLICA_ID may hold letters, digits, dot, dash and underscore (1-100)')
      .optional(),
    FOLLOW_REQUESTS_PER_SECOND: z.coerce
      .number()
      .positive('FOLLOW_REQUESTS_PER_SECOND must be above 0')
      .default(10),
    // --- Approvals (issue #15): who may decide, reminders, timeouts, audit ---
    AGENT_APPROVAL_POLICY: blankAsUnset(
      z
        .enum(['starter-or-approvers', 'approvers-only', 'channel-members'], {
          error: 'AGENT_APPROVAL_POLICY must be starter-or-approvers, approvers-only or channel-members',
        })
        .optional(),
    ),
    AGENT_REMIND_AFTER: duration('AGENT_REMIND_AFTER'),
    AGENT_REMIND_MAX: blankAsUnset(
      wholeNumber('AGENT_REMIND_MAX')
        .min(0, 'AGENT_REMIND_MAX must be 0 or more')
        .max(20, 'AGENT_REMIND_MAX must be at most 20')
        .optional(),
    ),
    AGENT_ESCALATE_TO: entryList(
      'AGENT_ESCALATE_TO',
      /^[SCG][A-Z0-9]{2,}$/,
      'must be a user group id (S…) or a channel id (C…, G…)',
      { onePerTeam: true },
    ),
    AGENT_QUESTION_TIMEOUT: duration('AGENT_QUESTION_TIMEOUT'),
    AGENT_ON_TIMEOUT: blankAsUnset(
      z
        .enum(['leave', 'reject', 'cancel'], { error: 'AGENT_ON_TIMEOUT must be leave, reject or cancel' })
        .optional(),
    ),
    // Under approvers-only, raising a budget past this needs an approver; no session starts above it.
    AGENT_MAX_BUDGET: blankAsUnset(
      z.coerce
        .number({ error: 'AGENT_MAX_BUDGET must be a number of USD, like 25 or 7.50' })
        .positive('AGENT_MAX_BUDGET must be above 0')
        .optional(),
    ),
    AUDIT_TOKEN: blankAsUnset(z.string().min(16, 'AUDIT_TOKEN must be at least 16 characters').optional()),
    METRICS_TOKEN: blankAsUnset(
      z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
    ),
    AUDIT_RETENTION_DAYS: blankAsUnset(
      wholeNumber('AUDIT_RETENTION_DAYS').min(1, 'AUDIT_RETENTION_DAYS must be at least 1').optional(),
    ),
    // Conversational sessions (#14).
    AGENT_THREAD_REPLIES: z
      .enum(['steer', 'mention-only'], { error: 'AGENT_THREAD_REPLIES must be steer or mention-only' })
      .default('steer'),
    // --- Slack pacing (bot-outbound) ---
    AGENT_SLACK_PACING: z
      .enum(['on', 'off'], { error: 'AGENT_SLACK_PACING must be on or off' })
      .default('on'),
    // --- Slack's agent surfaces (#23) ---
    ...agentSurfaceEnv,
    ...keysEnv, // service keys per workspace or person (#25)
  })
  .superRefine((env, ctx) => {
    if (env.SLACK_BOT_TOKEN && !env.SLACK_SIGNING_SECRET && !env.SLACK_APP_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLACK_SIGNING_SECRET'],
        message:
          'SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode) is required with SLACK_BOT_TOKEN',
      });
    }
    for (const [path, message] of [...oauthProblems(env), ...tenantProblems(env, isOAuth(env))])
      ctx.addIssue({ code: 'custom', path: [path], message });
    if ((env.SLACK_SIGNING_SECRET || env.SLACK_APP_TOKEN) && !env.SLACK_BOT_TOKEN && !isOAuth(env)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLACK_BOT_TOKEN'],
        message: 'SLACK_BOT_TOKEN is required when Slack is configured',
      });
    }
    for (const issue of keysEnvProblems(env)) ctx.addIssue(issue);
    if (env.AGENT_SERVICE_URL && !env.AGENT_API_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['AGENT_API_KEY'],
        message: 'AGENT_API_KEY is required with AGENT_SERVICE_URL',
      });
    }
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
  approvals: ApprovalConfig;
  /** `steer`: every reply in a session's thread steers it; `mention-only`: only replies that mention the bot. */
  threadReplies: 'steer' | 'mention-only';
  /** off: one post per message and 429s left to the Web API client (the benchmark's naive strategy). */
  slackPacing: 'on' | 'off';
  /** Slack's agent surfaces (#23): AGENT_SLACK_SURFACE, AGENT_SUGGESTED_PROMPTS. */
  agent: AgentSurfaceConfig;
  keys?: KeysConfig; // service keys per workspace or person (#25)
}

/** Issue #15: who may answer, reminders and escalation, question timeouts, the audit record. */
export interface ApprovalConfig {
  policy: 'starter-or-approvers' | 'approvers-only' | 'channel-members';
  /** 0: no reminders. */
  remindAfterMs: number;
  remindMax: number;
  /** A user group (S…) or channel (C…, G…) told after the last reminder. */
  escalateTo?: string;
  /** Unset: questions wait for ever. */
  questionTimeoutMs?: number;
  onTimeout: 'leave' | 'reject' | 'cancel';
  /** USD: no session starts with more; above it, only an approver raises a budget (see policy.ts). */
  maxBudget?: number;
  /** Unset: GET /audit answers 404. */
  auditToken?: string;
  auditRetentionDays: number;
}

export class ConfigError extends Error {}

/** The password in a postgres:// URL, scrubbed from logs like the tokens (a driver error may quote it). */
export function databasePassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/** An http(s) URL whose host is 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackUrl(raw: string): boolean {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

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
    slack: e.SLACK_BOT_TOKEN
      ? {
          botToken: e.SLACK_BOT_TOKEN,
          signingSecret: e.SLACK_SIGNING_SECRET ?? '',
          ...(e.SLACK_APP_TOKEN ? { appToken: e.SLACK_APP_TOKEN } : {}),
          ...(e.SLACK_API_URL ? { apiUrl: e.SLACK_API_URL } : {}),
        }
      : oauthSlack(e, e.SLACK_SIGNING_SECRET, e.SLACK_API_URL),
    service:
      e.AGENT_SERVICE_URL && e.AGENT_API_KEY
        ? { url: e.AGENT_SERVICE_URL, apiKey: e.AGENT_API_KEY }
        : undefined,
    ...(e.DATABASE_URL ? { databaseUrl: e.DATABASE_URL } : {}),
    dataDir: e.DATA_DIR,
    port: e.PORT,
    // A bot talking to a Slack on this machine (a local sandbox) is a development bot: loopback only.
    host: e.HOST ?? (e.SLACK_API_URL && isLoopbackUrl(e.SLACK_API_URL) ? '127.0.0.1' : '0.0.0.0'),
    approvers: e.AGENT_APPROVERS,
    allowedChannels: e.AGENT_ALLOWED_CHANNELS,
    showReasoning: e.AGENT_SHOW_REASONING === 'true',
    requestsPerSecond: e.FOLLOW_REQUESTS_PER_SECOND,
    leaseTtlMs: e.LEASE_TTL_SECONDS * 1000,
    ...(e.REPLICA_ID ? { replicaId: e.REPLICA_ID } : {}),
    ...(e.METRICS_TOKEN ? { metricsToken: e.METRICS_TOKEN } : {}),
    approvals: {
      policy: e.AGENT_APPROVAL_POLICY ?? 'starter-or-approvers',
      remindAfterMs: e.AGENT_REMIND_AFTER ?? 15 * 60_000,
      remindMax: e.AGENT_REMIND_MAX ?? 3,
      ...(e.AGENT_ESCALATE_TO.length > 0 ? { escalateTo: e.AGENT_ESCALATE_TO.join(',') } : {}),
      ...(e.AGENT_QUESTION_TIMEOUT ? { questionTimeoutMs: e.AGENT_QUESTION_TIMEOUT } : {}),
      onTimeout: e.AGENT_ON_TIMEOUT ?? 'leave',
      ...(e.AGENT_MAX_BUDGET === undefined ? {} : { maxBudget: e.AGENT_MAX_BUDGET }),
      ...(e.AUDIT_TOKEN ? { auditToken: e.AUDIT_TOKEN } : {}),
      auditRetentionDays: e.AUDIT_RETENTION_DAYS ?? 365,
    },
    threadReplies: e.AGENT_THREAD_REPLIES,
    slackPacing: e.AGENT_SLACK_PACING,
    agent: agentSurfaceConfig(e),
    keys: { ...keysConfigOf(e), ...keyLendingOf(e, isOAuth(e)) },
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
