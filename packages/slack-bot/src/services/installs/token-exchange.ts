/**
 * oauth.v2.access with a refresh token (token rotation): the new pair and its lifetime. One try, with a
 * timeout: the web client's defaults (no timeout, ten retries over about half an hour) would keep a
 * refresh claimed that long while the token runs out; a failed refresh is tried again at the next call.
 */
import { LogLevel, type Logger as SlackLogger, webApi } from '@slack/bolt';
import { REFRESH_TIMEOUT_MS, type RefreshedToken } from './tokens.js';

export interface TokenExchangeOptions {
  clientId: string;
  clientSecret: string;
  /** Slack's Web API base (a sandbox in development and tests). */
  apiUrl?: string | undefined;
  logger: SlackLogger;
  timeoutMs?: number;
}

export function slackTokenExchange(
  options: TokenExchangeOptions,
): (refreshToken: string) => Promise<RefreshedToken> {
  const client = new webApi.WebClient(undefined, {
    ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
    logger: options.logger,
    logLevel: LogLevel.INFO,
    timeout: options.timeoutMs ?? REFRESH_TIMEOUT_MS,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  return async (refreshToken) => {
    const answer = await client.oauth.v2.access({
      client_id: options.clientId,
      client_secret: options.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    if (!answer.access_token || !answer.refresh_token || answer.expires_in === undefined) {
      throw new Error('oauth.v2.access: the refresh answer lacks access_token, refresh_token or expires_in');
    }
    return {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token,
      expiresIn: answer.expires_in,
    };
  };
}
