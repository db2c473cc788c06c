import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patient } from '../../../../test/support/patience.js';
import { oauthOptionsFromEnv, type RunningSandbox, startSandbox } from '../../src/index.js';
import { type EventSink, startEventSink } from './event-sink.js';

/**
 * The OAuth side over HTTP, for a sandbox in another process (npm start runs it in its own): the app's
 * settings, installing through a bot's install page, uninstalling; and what turns OAuth on.
 */

let sandbox: RunningSandbox;
let sink: EventSink;
let bot: Server;
let botUrl: string;
const codes: string[] = [];

// biome-ignore lint/suspicious/noExplicitAny: JSON as the routes answer it
const post = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<any> => {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, ...((await res.json()) as object) };
};

beforeAll(async () => {
  sink = await startEventSink();
  sandbox = await startSandbox({ oauth: true, rateLimits: false });
  // A bot's install page (a link to Slack, as InstallProvider's default page has) and its redirect URL.
  bot = createServer((req, res) => {
    const url = new URL(req.url ?? '/', botUrl);
    if (url.pathname === '/slack/install') {
      const oauth = sandbox.oauth;
      const authorize = `${oauth?.authorizeUrl}?client_id=${oauth?.clientId}&amp;scope=chat:write&amp;state=st8`;
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'state=st8; HttpOnly' });
      return void res.end(`<a href="${authorize}">Add to Slack</a>`);
    }
    const ok = req.headers.cookie === 'state=st8' && url.searchParams.get('state') === 'st8';
    codes.push(url.searchParams.get('code') ?? '');
    res.writeHead(ok ? 200 : 400).end(ok ? 'installed' : 'state mismatch');
  });
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve));
  botUrl = `http://127.0.0.1:${(bot.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sandbox?.close();
  await sink?.close();
  bot?.closeAllConnections();
  await new Promise<void>((resolve) => bot?.close(() => resolve()));
});

describe('/sandbox/oauth', () => {
  it('tells the app’s settings, never its secret', async () => {
    const res = await fetch(`${sandbox.url}/sandbox/oauth`);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({
      enabled: true,
      clientId: sandbox.oauth?.clientId,
      authorizeUrl: `${sandbox.url}/oauth/v2/authorize`,
      redirectUrls: [],
      tokenRotation: false,
      installations: [],
    });
    expect(text).not.toContain(sandbox.oauth?.clientSecret);
  });

  it('takes Redirect URLs and the install page, and installs through the bot’s page as a browser does', async () => {
    const noUrls = await post('/sandbox/oauth/install', { installUrl: `${botUrl}/slack/install` });
    expect(noUrls).toMatchObject({ status: 400, ok: false });
    expect(noUrls.error).toContain('no Redirect URL configured');
    expect(await post('/sandbox/oauth/redirect-urls', { urls: ['not a url'] })).toMatchObject({
      status: 400,
    });
    expect(
      await post('/sandbox/oauth/redirect-urls', { urls: [`${botUrl}/slack/oauth_redirect`] }),
    ).toMatchObject({
      ok: true,
      result: [`${botUrl}/slack/oauth_redirect`],
    });
    expect(await post('/sandbox/oauth/install-url', { url: `${botUrl}/slack/install` })).toMatchObject({
      ok: true,
    });
    const installed = await post('/sandbox/oauth/install', {
      installUrl: `${botUrl}/slack/install`,
      team: 'T0NORTH',
      user: 'U0FRANK',
    });
    expect(installed).toMatchObject({ ok: true, result: { status: 200, body: 'installed', state: 'st8' } });
    expect(codes.at(-1)).toBe(installed.result.code);
    expect((await post('/sandbox/oauth/install', {})).error).toContain('installUrl is required');
    const info = await (await fetch(`${sandbox.url}/sandbox/oauth`)).json();
    expect(info).toMatchObject({
      installUrl: `${botUrl}/slack/install`,
      // The code is not exchanged yet (the stand-in bot doesn't): nothing is installed until it is.
      installations: [],
    });
  });

  it('a form answer from another site is refused; the page’s own is taken', async () => {
    const url = `${sandbox.oauth?.authorizeUrl}?client_id=${sandbox.oauth?.clientId}&scope=chat:write`;
    const html = await (await fetch(url)).text();
    const request = html.match(/name="request" value="([^"]+)"/)?.[1] ?? '';
    const answer = (origin: string) =>
      fetch(`${sandbox.url}/oauth/v2/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({ request, as: 'T0SANDBOX|U0ALICE', decision: 'allow' }),
      });
    expect((await answer('http://evil.example')).status).toBe(403);
    const own = await answer(sandbox.url);
    expect(own.status).toBe(302);
    expect(own.headers.get('location')).toMatch(/code=T0SANDBOX\./);
    // Answered once: the same request again is refused.
    expect((await answer(sandbox.url)).status).toBe(400);
    // A person of another workspace can't install into this one.
    const other = await fetch(url).then((r) => r.text());
    const second = other.match(/name="request" value="([^"]+)"/)?.[1] ?? '';
    const mixed = await fetch(`${sandbox.url}/oauth/v2/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request: second, team: 'T0SANDBOX', user: 'U0DANA', decision: 'allow' }),
    });
    expect(mixed.status).toBe(400);
    expect(await mixed.text()).toContain('user: U0DANA is no person of sandbox');
  });

  it('uninstalls over HTTP, and says so for a workspace without the app', async () => {
    const oauth = sandbox.oauth;
    if (!oauth) throw new Error('no OAuth app');
    const { code } = await oauth.authorize(
      `${oauth.authorizeUrl}?client_id=${oauth.clientId}&scope=chat:write`,
      {
        team: 'T0NORTH',
      },
    );
    const form = new URLSearchParams({
      client_id: oauth.clientId,
      client_secret: oauth.clientSecret,
      code: code ?? '',
    });
    const access = await fetch(`${sandbox.apiUrl}oauth.v2.access`, { method: 'POST', body: form });
    expect(await access.json()).toMatchObject({ ok: true, team: { id: 'T0NORTH' } });
    sink.clear();
    const removed = await post('/sandbox/oauth/uninstall', { team: 'T0NORTH', eventsUrl: sink.url });
    expect(removed).toMatchObject({ ok: true, result: { revoked: { bot: ['U0NORTHBOT'] } } });
    expect(sink.events.map((e) => (e.event as { type: string }).type)).toEqual([
      'tokens_revoked',
      'app_uninstalled',
    ]);
    expect(await post('/sandbox/oauth/uninstall', { team: 'T0NORTH' })).toMatchObject({
      status: 400,
      error: 'uninstall: the app is not installed in T0NORTH',
    });
  });
});

describe('without OAuth', () => {
  it('nothing changes: one workspace, the fixed token, no authorize page, oauth.v2.access unknown', async () => {
    const plain = await startSandbox({ rateLimits: false });
    try {
      expect(plain.oauth).toBeUndefined();
      expect(plain.workspaces.map((w) => w.seed.teamId)).toEqual(['T0SANDBOX']);
      expect((await fetch(`${plain.url}/oauth/v2/authorize?client_id=x&scope=y`)).status).toBe(404);
      const access = await fetch(`${plain.apiUrl}oauth.v2.access`, { method: 'POST' });
      expect(await access.json()).toEqual({ ok: false, error: 'unknown_method' });
      const test = await fetch(`${plain.apiUrl}auth.test`, {
        headers: { authorization: `Bearer ${plain.botToken}` },
      });
      expect(await test.json()).toMatchObject({ ok: true, team_id: 'T0SANDBOX' });
      expect(await (await fetch(`${plain.url}/sandbox/workspaces`)).json()).toMatchObject({
        oauth: false,
        workspaces: [{ id: 'T0SANDBOX', installed: true }],
      });
    } finally {
      await plain.close();
    }
  });
});

describe('turning OAuth on from the environment', () => {
  it('reads SANDBOX_OAUTH and its settings, and names the rule a bad value breaks', () => {
    expect(oauthOptionsFromEnv({})).toBeUndefined();
    expect(oauthOptionsFromEnv({ SANDBOX_OAUTH: 'off' })).toBeUndefined();
    expect(
      oauthOptionsFromEnv({
        SANDBOX_OAUTH: 'on',
        SANDBOX_OAUTH_CLIENT_ID: '1.2',
        SANDBOX_OAUTH_CLIENT_SECRET: 's',
        SANDBOX_OAUTH_REDIRECT_URLS: 'http://127.0.0.1:3000/slack/oauth_redirect, http://localhost:3000/x',
        SANDBOX_TOKEN_ROTATION: 'on',
        SANDBOX_TOKEN_LIFETIME: '60',
      }),
    ).toEqual({
      clientId: '1.2',
      clientSecret: 's',
      redirectUrls: ['http://127.0.0.1:3000/slack/oauth_redirect', 'http://localhost:3000/x'],
      tokenRotation: true,
      tokenLifetimeSeconds: 60,
    });
    expect(() => oauthOptionsFromEnv({ SANDBOX_OAUTH: '1', SANDBOX_TOKEN_LIFETIME: '1.5' })).toThrow(
      'SANDBOX_TOKEN_LIFETIME must be a whole number of seconds (at least 1), got "1.5"',
    );
  });

  it('the CLI with --oauth prints the client id and secret for the bot instead of a bot token', async () => {
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const child = spawn(process.execPath, [cli, '--oauth'], {
      env: { PATH: process.env.PATH ?? '', SANDBOX_PORT: '0', SANDBOX_OAUTH_CLIENT_ID: '111.222' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      await expect.poll(() => out, { timeout: patient(10_000) }).toMatch(/authorize URL: /);
      expect(out).toContain('SLACK_CLIENT_ID=111.222\n');
      expect(out).toMatch(/SLACK_CLIENT_SECRET=[0-9a-f]{32}\n/);
      expect(out).not.toContain('SLACK_BOT_TOKEN');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
