/**
 * The MCP endpoint (/mcp): whether it is served, how long a personal token works, each person's request
 * budget, each client address's budget of failed token checks (and the proxies trusted to name the
 * client's address), the browser origins allowed, the bot's
 * public address, the longest wait one call may hold, how many waits may be open at once, and whether
 * Slackbot's signed requests are taken (Slack identity auth).
 */
import { z } from 'zod';
import { normalOrigin, trustedProxyProblem, WAIT_LIMITS, type WaitLimits } from '../services/mcp/index.js';
import { blankAsUnset, commaSeparated, httpUrl, type Problem, wholeNumber } from './fields.js';
import type { SlackConfig } from './slack.js';

export const mcpSchema = z.object({
  MCP_ENABLED: blankAsUnset(
    z.enum(['true', 'false'], { error: 'MCP_ENABLED must be true or false' }).default('true'),
  ),
  MCP_TOKEN_DAYS: wholeNumber('MCP_TOKEN_DAYS').min(1).max(365).default(90),
  MCP_REQUESTS_PER_MINUTE: wholeNumber('MCP_REQUESTS_PER_MINUTE').min(1).max(10_000).default(120),
  MCP_FAILED_AUTH_PER_MINUTE: wholeNumber('MCP_FAILED_AUTH_PER_MINUTE').min(1).max(10_000).default(30),
  MCP_ALLOWED_ORIGINS: blankAsUnset(z.string().optional()),
  MCP_TRUSTED_PROXIES: blankAsUnset(z.string().optional()),
  MCP_PUBLIC_URL: blankAsUnset(httpUrl('MCP_PUBLIC_URL')),
  MCP_WAIT_MAX_SECONDS: wholeNumber('MCP_WAIT_MAX_SECONDS').min(1).max(300).default(50),
  MCP_SLACK_IDENTITY: blankAsUnset(
    z.enum(['true', 'false'], { error: 'MCP_SLACK_IDENTITY must be true or false' }).default('false'),
  ),
  MCP_WAITS_PER_PERSON: wholeNumber('MCP_WAITS_PER_PERSON').min(1).max(1_000).default(WAIT_LIMITS.perPerson),
  MCP_WAITS_PER_WORKSPACE: wholeNumber('MCP_WAITS_PER_WORKSPACE')
    .min(1)
    .max(10_000)
    .default(WAIT_LIMITS.perWorkspace),
});

export interface McpConfig {
  tokenDays: number;
  requestsPerMinute: number;
  failedAuthPerMinute: number;
  /**
   * MCP_TRUSTED_PROXIES: peers whose X-Forwarded-For names the client (CIDRs, addresses, `loopback`,
   * `uniquelocal`, …), for the budget of failed token checks. Empty: no one's; the TCP peer is the client.
   */
  trustedProxies: string[];
  allowedOrigins: string[];
  publicUrl?: string;
  waitCapSeconds: number;
  /**
   * MCP_SLACK_IDENTITY: requests Slackbot signs with the app's signing secret act as the person they
   * name (Slack identity auth). Off unless asked for.
   */
  slackIdentity: boolean;
  /** Open `wait_for_session` calls at once on one replica: per person, and per workspace. */
  waitLimits: WaitLimits;
}

export function mcpProblems(
  env: z.output<typeof mcpSchema> & { SLACK_SIGNING_SECRET?: string | undefined },
): Problem[] {
  const origins = commaSeparated(env.MCP_ALLOWED_ORIGINS)
    .filter((entry) => normalOrigin(entry) === undefined)
    .map(
      (entry): Problem => [
        'MCP_ALLOWED_ORIGINS',
        `"${entry}" is not an origin: each entry is scheme://host[:port], like https://app.example.com`,
      ],
    );
  const proxies = commaSeparated(env.MCP_TRUSTED_PROXIES).flatMap((entry): Problem[] => {
    const problem = trustedProxyProblem(entry);
    return problem ? [['MCP_TRUSTED_PROXIES', problem]] : [];
  });
  const unsigned: Problem[] =
    env.MCP_SLACK_IDENTITY === 'true' && !env.SLACK_SIGNING_SECRET
      ? [['MCP_SLACK_IDENTITY', 'true needs SLACK_SIGNING_SECRET: Slackbot signs its requests with it']]
      : [];
  return [...origins, ...proxies, ...unsigned];
}

export function mcpSettings(env: z.output<typeof mcpSchema>): { mcp?: McpConfig } {
  if (env.MCP_ENABLED === 'false') return {};
  return {
    mcp: {
      tokenDays: env.MCP_TOKEN_DAYS,
      requestsPerMinute: env.MCP_REQUESTS_PER_MINUTE,
      failedAuthPerMinute: env.MCP_FAILED_AUTH_PER_MINUTE,
      trustedProxies: commaSeparated(env.MCP_TRUSTED_PROXIES),
      allowedOrigins: commaSeparated(env.MCP_ALLOWED_ORIGINS),
      ...(env.MCP_PUBLIC_URL ? { publicUrl: env.MCP_PUBLIC_URL.replace(/\/+$/, '') } : {}),
      waitCapSeconds: env.MCP_WAIT_MAX_SECONDS,
      slackIdentity: env.MCP_SLACK_IDENTITY === 'true',
      waitLimits: { perPerson: env.MCP_WAITS_PER_PERSON, perWorkspace: env.MCP_WAITS_PER_WORKSPACE },
    },
  };
}

/**
 * With Slackbot's MCP client on (MCP_SLACK_IDENTITY) and OAuth installs asking for the default scopes, an
 * install asks for `mcp:connect` too: Slack lets Slackbot reach an app's MCP server only with it. Scopes
 * given in SLACK_SCOPES are taken as given.
 */
export function withSlackbotScope(
  slack: SlackConfig | undefined,
  env: z.output<typeof mcpSchema> & { SLACK_SCOPES?: string | undefined },
): SlackConfig | undefined {
  const oauth = slack?.oauth;
  if (!slack || !oauth || env.MCP_SLACK_IDENTITY !== 'true' || commaSeparated(env.SLACK_SCOPES).length > 0)
    return slack;
  return { ...slack, oauth: { ...oauth, scopes: [...new Set([...oauth.scopes, 'mcp:connect'])] } };
}
