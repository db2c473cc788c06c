import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/index.js';

const REDIRECT = 'http://127.0.0.1:9/slack/oauth_redirect';

let sandbox: RunningSandbox;
// The sandbox's clock: tests move time themselves instead of waiting.
let now = Date.parse('2026-11-25T12:00:00Z');

const client = (token?: string) =>
  new WebClient(token, {
    slackApiUrl: sandbox.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
const slackError = async (call: Promise<unknown>) =>
  ((await call.catch((e: unknown) => e)) as { data?: { error?: string } }).data?.error;
const creds = () => ({
  client_id: sandbox.oauth?.clientId ?? '',
  client_secret: sandbox.oauth?.clientSecret ?? '',
});

async function install(team: string) {
  const oauth = sandbox.oauth;
  if (!oauth) throw new Error('no OAuth app');
  const url = `${oauth.authorizeUrl}?${new URLSearchParams({ client_id: oauth.clientId, scope: 'chat:write' })}`;
  const { code } = await oauth.authorize(url, { team });
  return client().oauth.v2.access({ ...creds(), code: code as string });
}

beforeAll(async () => {
  sandbox = await startSandbox({
    oauth: { redirectUrls: [REDIRECT], tokenRotation: true, tokenLifetimeSeconds: 600, now: () => now },
    rateLimits: false,
  });
});
afterAll(async () => {
  await sandbox?.close();
});

describe('token rotation', () => {
  it('issues expiring tokens with a refresh token, and auth.test tells the time left', async () => {
    const res = await install('T0SANDBOX');
    expect(res).toMatchObject({ ok: true, token_type: 'bot', expires_in: 600 });
    expect(res.access_token).toMatch(/^xoxe\.xoxb-1-/);
    expect(res.refresh_token).toMatch(/^xoxe-1-/);
    now += 100_000;
    expect(await client(res.access_token).auth.test()).toMatchObject({
      team_id: 'T0SANDBOX',
      expires_in: 500,
    });
  });

  it('rotates with grant_type=refresh_token; the refresh token works once; the old token lasts until it expires', async () => {
    const first = await install('T0NORTH');
    const refresh = (token: string) =>
      client().oauth.v2.access({ ...creds(), grant_type: 'refresh_token', refresh_token: token });
    const second = await refresh(first.refresh_token as string);
    expect(second).toMatchObject({
      ok: true,
      token_type: 'bot',
      bot_user_id: 'U0NORTHBOT',
      team: { id: 'T0NORTH' },
      is_enterprise_install: false,
      expires_in: 600,
    });
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await slackError(refresh(first.refresh_token as string))).toBe('invalid_refresh_token');
    expect(await slackError(refresh('xoxe-1-made-up'))).toBe('invalid_refresh_token');
    expect(
      await slackError(
        client().oauth.v2.access({
          ...creds(),
          client_secret: 'wrong',
          grant_type: 'refresh_token',
          refresh_token: second.refresh_token as string,
        }),
      ),
    ).toBe('bad_client_secret');
    // Both access tokens are good until each one's 10 minutes are up.
    expect((await client(first.access_token).auth.test()).ok).toBe(true);
    now += 600_000;
    expect(await slackError(client(first.access_token).auth.test())).toBe('token_expired');
    expect(
      await slackError(client(second.access_token).chat.postMessage({ channel: 'C0NAGENTS', text: 'x' })),
    ).toBe('token_expired');
    const third = await refresh(second.refresh_token as string);
    expect(
      (await client(third.access_token).chat.postMessage({ channel: 'C0NAGENTS', text: 'again' })).ok,
    ).toBe(true);
  });

  it('counts what the token endpoint did, and fails as a test asks (a lost refresh)', async () => {
    const before = sandbox.oauth?.counts ?? { installs: 0, refreshes: 0, refreshesRefused: 0, exchanges: 0 };
    const first = await install('T0SANDBOX');
    const refresh = () =>
      client().oauth.v2.access({
        ...creds(),
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token as string,
      });
    sandbox.failNext({ method: 'oauth.v2.access', error: 'internal_error' });
    expect(await slackError(refresh())).toBe('internal_error');
    // The failed call spent nothing: the refresh token still works, once.
    expect((await refresh()).ok).toBe(true);
    expect(await slackError(refresh())).toBe('invalid_refresh_token');
    expect(sandbox.oauth?.counts).toEqual({
      installs: before.installs + 1,
      refreshes: before.refreshes + 1,
      refreshesRefused: before.refreshesRefused + 1,
      exchanges: before.exchanges,
    });
  });

  it('a code lives 10 minutes, as on Slack', async () => {
    const oauth = sandbox.oauth;
    if (!oauth) throw new Error('no OAuth app');
    const url = `${oauth.authorizeUrl}?${new URLSearchParams({ client_id: oauth.clientId, scope: 'chat:write' })}`;
    const { code } = await oauth.authorize(url);
    now += 600_000;
    expect(await slackError(client().oauth.v2.access({ ...creds(), code: code as string }))).toBe(
      'invalid_code',
    );
  });

  it('an uninstalled workspace’s refresh token is refused too', async () => {
    const res = await install('T0NORTH');
    await sandbox.oauth?.uninstall('T0NORTH');
    expect(
      await slackError(
        client().oauth.v2.access({
          ...creds(),
          grant_type: 'refresh_token',
          refresh_token: res.refresh_token as string,
        }),
      ),
    ).toBe('invalid_refresh_token');
  });
});

describe('oauth.v2.exchange: turning rotation on for an app installed before', () => {
  it('trades a long-lived token once for a rotating pair', async () => {
    const plain = await startSandbox({ oauth: { redirectUrls: [REDIRECT] }, rateLimits: false });
    try {
      const oauth = plain.oauth;
      if (!oauth) throw new Error('no OAuth app');
      const web = new WebClient(undefined, {
        slackApiUrl: plain.apiUrl,
        retryConfig: { retries: 0 },
        logLevel: LogLevel.ERROR,
      });
      const url = `${oauth.authorizeUrl}?${new URLSearchParams({ client_id: oauth.clientId, scope: 'chat:write' })}`;
      const { code } = await oauth.authorize(url);
      const own = { client_id: oauth.clientId, client_secret: oauth.clientSecret };
      const installed = await web.oauth.v2.access({ ...own, code: code as string });
      expect(installed.access_token).toMatch(/^xoxb-/);
      const exchange = () => web.oauth.v2.exchange({ ...own, token: installed.access_token as string });
      expect(await slackError(exchange())).toBe('token_rotation_not_enabled');
      oauth.enableTokenRotation();
      const pair = await exchange();
      expect(pair).toMatchObject({
        ok: true,
        token_type: 'bot',
        expires_in: 43_200,
        team: { id: 'T0SANDBOX' },
      });
      expect(pair.access_token).toMatch(/^xoxe\.xoxb-1-/);
      expect(await slackError(exchange())).toBe('token_already_exchanged');
    } finally {
      await plain.close();
    }
  });
});
