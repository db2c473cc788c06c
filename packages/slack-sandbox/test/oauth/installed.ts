import { LogLevel, WebClient } from '@slack/web-api';
import type { RunningSandbox } from '../../src/index.js';

/** A Web API client of the sandbox that never retries: a test sees Slack's first answer. */
export function sandboxClient(sandbox: RunningSandbox, token?: string): WebClient {
  return new WebClient(token, {
    slackApiUrl: sandbox.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
}

/**
 * Installs the sandbox's OAuth app into each team, as a person there would (authorize, then the code
 * exchanged by `oauth.v2.access`), and returns each team's bot token.
 */
export async function installInto(
  sandbox: RunningSandbox,
  teams: string[],
  scopes: string[],
): Promise<Record<string, string>> {
  const oauth = sandbox.oauth;
  if (!oauth) throw new Error('the sandbox was started without OAuth');
  const tokens: Record<string, string> = {};
  for (const team of teams) {
    const query = new URLSearchParams({ client_id: oauth.clientId, scope: scopes.join(','), team });
    const { code } = await oauth.authorize(`${oauth.authorizeUrl}?${query}`, { team });
    const res = await sandboxClient(sandbox).oauth.v2.access({
      client_id: oauth.clientId,
      client_secret: oauth.clientSecret,
      code: code ?? '',
    });
    tokens[team] = res.access_token as string;
  }
  return tokens;
}
