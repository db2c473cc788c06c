import { LogLevel, WebClient, type WebClientOptions } from '@slack/web-api';
import type { RunningSandbox } from '../src/index.js';

/** Slack's own Web API client, as the bot's token, pointed at a sandbox; no retries unless asked. */
export function botClient(
  sandbox: Pick<RunningSandbox, 'botToken' | 'apiUrl'>,
  options: WebClientOptions = {},
): WebClient {
  return new WebClient(sandbox.botToken, {
    slackApiUrl: sandbox.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
    ...options,
  });
}
