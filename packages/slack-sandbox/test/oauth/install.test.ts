import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/index.js';
import { type EventSink, startEventSink } from './event-sink.js';

const REDIRECT = 'http://127.0.0.1:9/slack/oauth_redirect';

let sandbox: RunningSandbox;
let sink: EventSink;

const client = (token?: string) =>
  new WebClient(token, {
    slackApiUrl: sandbox.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
const slackError = async (call: Promise<unknown>) =>
  ((await call.catch((e: unknown) => e)) as { data?: { error?: string } }).data?.error;

const oauth = () => {
  if (!sandbox.oauth) throw new Error('no OAuth app');
  return sandbox.oauth;
};
const authorizeUrl = (params: Record<string, string>) =>
  `${oauth().authorizeUrl}?${new URLSearchParams({ client_id: oauth().clientId, ...params })}`;

/** Through the page to a code, then oauth.v2.access as InstallProvider calls it. */
async function install(team: string, scope = 'chat:write,commands', extra: Record<string, string> = {}) {
  const { code } = await oauth().authorize(authorizeUrl({ scope, redirect_uri: REDIRECT, ...extra }), {
    team,
  });
  return client().oauth.v2.access({
    client_id: oauth().clientId,
    client_secret: oauth().clientSecret,
    code: code as string,
    redirect_uri: REDIRECT,
  });
}

beforeAll(async () => {
  sink = await startEventSink();
  sandbox = await startSandbox({ oauth: { redirectUrls: [REDIRECT] }, rateLimits: false });
});
afterAll(async () => {
  await sandbox?.close();
  await sink?.close();
});

describe('the "Add to Slack" flow and oauth.v2.access', () => {
  it('shows the page, redirects with a code and the state, and answers as Slack does', async () => {
    const page = await fetch(authorizeUrl({ scope: 'chat:write', user_scope: 'users:read', state: 's1' }));
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('Agent Sessions is requesting permission');
    expect(html).toContain('<code>chat:write</code>');
    expect(html).toContain('Northwind — as Dana Starter');
    expect(html).not.toContain(oauth().clientSecret);

    const answer = await oauth().authorize(
      authorizeUrl({ scope: 'chat:write', user_scope: 'users:read', state: 's1', redirect_uri: REDIRECT }),
      { team: 'T0SANDBOX', user: 'U0BOB' },
    );
    expect(answer.location.startsWith(`${REDIRECT}?`)).toBe(true);
    expect(answer.state).toBe('s1');
    const res = await client().oauth.v2.access({
      client_id: oauth().clientId,
      client_secret: oauth().clientSecret,
      code: answer.code as string,
      redirect_uri: REDIRECT,
    });
    expect(res).toMatchObject({
      ok: true,
      token_type: 'bot',
      scope: 'chat:write',
      bot_user_id: 'U0AGENTBOT',
      app_id: 'A0AGENTS',
      team: { id: 'T0SANDBOX', name: 'sandbox' },
      enterprise: null,
      is_enterprise_install: false,
      authed_user: { id: 'U0BOB', scope: 'users:read', token_type: 'user' },
    });
    expect(res.access_token).toMatch(/^xoxb-/);
    expect(res.authed_user?.access_token).toMatch(/^xoxp-/);
    expect(res.expires_in).toBeUndefined();

    const asBot = await client(res.access_token).auth.test();
    expect(asBot).toMatchObject({ team_id: 'T0SANDBOX', user_id: 'U0AGENTBOT', bot_id: 'B0AGENTS' });
    const asBob = await client(res.authed_user?.access_token).auth.test();
    expect(asBob).toMatchObject({ team_id: 'T0SANDBOX', user_id: 'U0BOB', is_enterprise_install: false });
    expect(asBob.bot_id).toBeUndefined();
    // A user token is no bot token.
    expect(
      await slackError(
        client(res.authed_user?.access_token).chat.postMessage({ channel: 'C0AGENTS', text: 'x' }),
      ),
    ).toBe('not_allowed_token_type');
  });

  it('takes the client credentials by HTTP Basic too', async () => {
    const { code } = await oauth().authorize(authorizeUrl({ scope: 'chat:write' }), { team: 'T0SANDBOX' });
    const basic = Buffer.from(`${oauth().clientId}:${oauth().clientSecret}`).toString('base64');
    const response = await fetch(`${sandbox.apiUrl}oauth.v2.access`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code: code as string }),
    });
    expect(await response.json()).toMatchObject({ ok: true, team: { id: 'T0SANDBOX' } });
  });

  it('refuses a bad client secret, an unknown client id, a reused code and a different redirect_uri', async () => {
    const { code } = await oauth().authorize(authorizeUrl({ scope: 'chat:write', redirect_uri: REDIRECT }));
    const access = (args: Record<string, string>) =>
      slackError(
        client().oauth.v2.access({
          client_id: oauth().clientId,
          client_secret: oauth().clientSecret,
          code: code as string,
          redirect_uri: REDIRECT,
          ...args,
        }),
      );
    expect(await access({ client_secret: 'not-the-secret' })).toBe('bad_client_secret');
    expect(await access({ client_id: '123.456' })).toBe('invalid_client_id');
    expect(await access({ redirect_uri: `${REDIRECT}/elsewhere` })).toBe('bad_redirect_uri');
    expect(await access({ grant_type: 'password' })).toBe('invalid_grant_type');
    expect(await access({})).toBeUndefined();
    expect(await access({})).toBe('invalid_code');
    expect(await access({ code: 'T0SANDBOX.made-up' })).toBe('invalid_code');
  });

  it('shows an error page, and redirects nowhere, for a redirect_uri or client_id not the app’s', async () => {
    const foreign = await fetch(
      authorizeUrl({ scope: 'chat:write', redirect_uri: 'http://evil.example/cb' }),
      {
        redirect: 'manual',
      },
    );
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('location')).toBeNull();
    expect(await foreign.text()).toContain('redirect_uri did not match any configured URIs');
    const wrongApp = await fetch(`${oauth().authorizeUrl}?client_id=1.2&scope=chat:write`);
    expect(await wrongApp.text()).toContain('Invalid client_id parameter');
    // A path below a Redirect URL is one of the app's, as on Slack.
    const below = await oauth().authorize(
      authorizeUrl({ scope: 'chat:write', redirect_uri: `${REDIRECT}/done` }),
    );
    expect(below.location.startsWith(`${REDIRECT}/done?code=`)).toBe(true);
  });

  it('Cancel sends the browser back with error=access_denied and the state', async () => {
    const answer = await oauth().authorize(authorizeUrl({ scope: 'chat:write', state: 'abc' }), {
      cancel: true,
    });
    expect(answer).toMatchObject({ error: 'access_denied', state: 'abc' });
    expect(answer.code).toBeUndefined();
  });

  it('refuses the fixed bot token under OAuth: tokens come from installs only', async () => {
    expect(await slackError(client(sandbox.botToken).auth.test())).toBe('invalid_auth');
  });
});

describe('two workspaces, each with its own installation', () => {
  it('gives each token its own workspace only', async () => {
    const home = await install('T0SANDBOX');
    const north = await install('T0NORTH');
    expect(north).toMatchObject({ team: { id: 'T0NORTH', name: 'Northwind' }, bot_user_id: 'U0NORTHBOT' });
    const a = client(home.access_token);
    const b = client(north.access_token);
    expect(await b.auth.test()).toMatchObject({
      team_id: 'T0NORTH',
      user_id: 'U0NORTHBOT',
      bot_id: 'B0NORTHBOT',
    });
    expect((await b.chat.postMessage({ channel: 'C0NAGENTS', text: 'hello north' })).ok).toBe(true);
    expect(sandbox.workspaceFor('T0NORTH').messages.get('C0NAGENTS')?.at(-1)?.text).toBe('hello north');
    expect(await slackError(b.chat.postMessage({ channel: 'C0AGENTS', text: 'cross' }))).toBe(
      'channel_not_found',
    );
    expect(await slackError(a.chat.postMessage({ channel: 'C0NAGENTS', text: 'cross' }))).toBe(
      'channel_not_found',
    );
    expect(await slackError(b.users.info({ user: 'U0ALICE' }))).toBe('user_not_found');
    expect((await a.chat.postMessage({ channel: 'C0AGENTS', text: 'hello home' })).ok).toBe(true);
  });

  it('uninstall revokes one workspace’s tokens, tells the bot, and leaves the other alone', async () => {
    const home = await install('T0SANDBOX');
    const north = await install('T0NORTH', 'chat:write', { user_scope: 'users:read' });
    sink.clear();
    const result = await oauth().uninstall('T0NORTH', { eventsUrl: sink.url });
    expect(result.revoked).toEqual({ bot: ['U0NORTHBOT'], oauth: ['U0DANA'] });
    const types = sink.events.map((e) => [e.team_id, (e.event as { type: string }).type]);
    expect(types).toEqual([
      ['T0NORTH', 'tokens_revoked'],
      ['T0NORTH', 'app_uninstalled'],
    ]);
    expect(sink.events[0]?.event).toEqual({
      type: 'tokens_revoked',
      tokens: { oauth: ['U0DANA'], bot: ['U0NORTHBOT'] },
    });
    expect(sink.events.every((e) => e.api_app_id === 'A0AGENTS')).toBe(true);
    expect(await slackError(client(north.access_token).auth.test())).toBe('token_revoked');
    expect(await slackError(client(north.authed_user?.access_token).auth.test())).toBe('token_revoked');
    expect((await client(home.access_token).auth.test()).team_id).toBe('T0SANDBOX');
    expect(oauth().installation('T0NORTH')).toBeUndefined();
    expect(oauth().installation('T0SANDBOX')).toMatchObject({ teamId: 'T0SANDBOX', botUserId: 'U0AGENTBOT' });
    await expect(oauth().uninstall('T0NORTH')).rejects.toThrow('not installed in T0NORTH');
  });
});
