/**
 * The bot's HTTP server (Slack's requests, OAuth pages, /healthz, /livez, /readyz, /metrics, /audit): where
 * it listens, and how long it takes to go away on SIGTERM.
 */
import { z } from 'zod';
import { blankAsUnset, wholeNumber } from './fields.js';

export const httpSchema = z.object({
  PORT: wholeNumber('PORT').min(0).max(65535).default(3000),
  HOST: blankAsUnset(z.string().optional()),
  METRICS_TOKEN: blankAsUnset(z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional()),
  // Below Kubernetes' default terminationGracePeriodSeconds (30 s), so the bot exits before SIGKILL.
  SHUTDOWN_GRACE_SECONDS: wholeNumber('SHUTDOWN_GRACE_SECONDS').min(1).max(3600).default(25),
});

export interface HttpConfig {
  port: number;
  host: string;
  /** Unset: /metrics serves only series that name no workspace; set, its bearer also gets those that do. */
  metricsToken?: string;
  /** From SIGTERM to exit at most: the posts in flight drained, the leases released, the store closed. */
  shutdownGraceMs: number;
}

/** An http(s) URL whose host is 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackUrl(raw: string): boolean {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

export function httpSettings(
  env: z.output<typeof httpSchema> & { SLACK_API_URL?: string | undefined },
): HttpConfig {
  const local = env.SLACK_API_URL !== undefined && isLoopbackUrl(env.SLACK_API_URL);
  return {
    port: env.PORT,
    // A bot talking to a Slack on this machine (a local sandbox) is a development bot: loopback only.
    host: env.HOST ?? (local ? '127.0.0.1' : '0.0.0.0'),
    ...(env.METRICS_TOKEN ? { metricsToken: env.METRICS_TOKEN } : {}),
    shutdownGraceMs: env.SHUTDOWN_GRACE_SECONDS * 1000,
  };
}
