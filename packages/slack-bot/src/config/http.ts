/** The bot's HTTP server (Slack's requests, OAuth pages, /healthz, /metrics, /audit): where it listens. */
import { z } from 'zod';
import { blankAsUnset, wholeNumber } from './fields.js';

export const httpSchema = z.object({
  PORT: wholeNumber('PORT').min(0).max(65535).default(3000),
  HOST: blankAsUnset(z.string().optional()),
  METRICS_TOKEN: blankAsUnset(z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional()),
});

export interface HttpConfig {
  port: number;
  host: string;
  /** Unset: /metrics serves only series that name no workspace; set, its bearer also gets those that do. */
  metricsToken?: string;
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
  };
}
