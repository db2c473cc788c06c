import { z } from 'zod';

const list = z
  .string()
  .optional()
  .transform((raw) =>
    (raw ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

const url = (name: string) =>
  z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` }).optional();

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
    AGENT_SERVICE_URL: url('AGENT_SERVICE_URL'),
    AGENT_API_KEY: z.string().min(1).optional(),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
      .optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    PORT: z.coerce
      .number({ error: 'PORT must be a number' })
      .int('PORT must be a whole number')
      .min(0)
      .max(65535)
      .default(3000),
    HOST: z.string().default('0.0.0.0'),
    AGENT_APPROVERS: list,
    AGENT_ALLOWED_CHANNELS: list,
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
    if ((env.SLACK_SIGNING_SECRET || env.SLACK_APP_TOKEN) && !env.SLACK_BOT_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLACK_BOT_TOKEN'],
        message: 'SLACK_BOT_TOKEN is required when Slack is configured',
      });
    }
    if (env.AGENT_SERVICE_URL && !env.AGENT_API_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['AGENT_API_KEY'],
        message: 'AGENT_API_KEY is required with AGENT_SERVICE_URL',
      });
    }
  });

export interface BotConfig {
  slack: { botToken: string; signingSecret: string; appToken?: string; apiUrl?: string } | undefined;
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
    slack: e.SLACK_BOT_TOKEN
      ? {
          botToken: e.SLACK_BOT_TOKEN,
          signingSecret: e.SLACK_SIGNING_SECRET ?? '',
          ...(e.SLACK_APP_TOKEN ? { appToken: e.SLACK_APP_TOKEN } : {}),
          ...(e.SLACK_API_URL ? { apiUrl: e.SLACK_API_URL } : {}),
        }
      : undefined,
    service:
      e.AGENT_SERVICE_URL && e.AGENT_API_KEY
        ? { url: e.AGENT_SERVICE_URL, apiKey: e.AGENT_API_KEY }
        : undefined,
    ...(e.DATABASE_URL ? { databaseUrl: e.DATABASE_URL } : {}),
    dataDir: e.DATA_DIR,
    port: e.PORT,
    host: e.HOST,
    approvers: e.AGENT_APPROVERS,
    allowedChannels: e.AGENT_ALLOWED_CHANNELS,
    showReasoning: e.AGENT_SHOW_REASONING === 'true',
    requestsPerSecond: e.FOLLOW_REQUESTS_PER_SECOND,
    leaseTtlMs: e.LEASE_TTL_SECONDS * 1000,
    ...(e.REPLICA_ID ? { replicaId: e.REPLICA_ID } : {}),
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
