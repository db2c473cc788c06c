import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Installation, InstallProvider, LogLevel } from '@slack/oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridSeeds, type RunningSandbox, secondSeed, startSandbox } from '../../src/index.js';

/**
 * The contract: Slack's own InstallProvider (@slack/oauth 4.0.0, what Bolt installs with) against the
 * sandbox, its state cookie and all, driven by `sandbox.oauth.install` as a browser would be.
 */

let sandbox: RunningSandbox;
let server: Server;
let base: string;
const stored: Installation[] = [];
let provider: InstallProvider;

beforeAll(async () => {
  sandbox = await startSandbox({
    oauth: { tokenRotation: true },
    workspaces: [secondSeed(), ...gridSeeds()],
    rateLimits: false,
  });
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/slack/install') return void provider.handleInstallPath(req, res);
    if (url.pathname === '/slack/oauth_redirect') return void provider.handleCallback(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const oauth = sandbox.oauth;
  if (!oauth) throw new Error('no OAuth app');
  oauth.setRedirectUrls([`${base}/slack/oauth_redirect`]);
  provider = new InstallProvider({
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    stateSecret: 'a-state-secret-for-this-test',
    authorizationUrl: oauth.authorizeUrl,
    clientOptions: { slackApiUrl: sandbox.apiUrl },
    logLevel: LogLevel.ERROR,
    installUrlOptions: {
      scopes: ['chat:write', 'commands'],
      userScopes: ['users:read'],
      redirectUri: `${base}/slack/oauth_redirect`,
    },
    installationStore: {
      storeInstallation: async (installation) => {
        stored.push(installation as Installation);
      },
      fetchInstallation: async (query) => {
        const found = stored.findLast((i) =>
          query.isEnterpriseInstall ? i.enterprise?.id === query.enterpriseId : i.team?.id === query.teamId,
        );
        if (!found) throw new Error(`no installation for ${query.teamId}`);
        return found;
      },
      deleteInstallation: async () => {},
    },
  });
});
afterAll(async () => {
  await sandbox?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

describe('InstallProvider against the sandbox', () => {
  it('installs into the workspace the person picks, with rotating tokens', async () => {
    const result = await sandbox.oauth?.install(`${base}/slack/install`, { team: 'T0NORTH', user: 'U0ERIN' });
    expect(result?.status).toBe(200);
    expect(result?.body).toContain('Thank you!');
    const installation = stored.at(-1);
    expect(installation).toMatchObject({
      team: { id: 'T0NORTH', name: 'Northwind' },
      isEnterpriseInstall: false,
      appId: 'A0AGENTS',
      tokenType: 'bot',
      authVersion: 'v2',
      bot: { userId: 'U0NORTHBOT', id: 'B0NORTHBOT', scopes: ['chat:write', 'commands'] },
      user: { id: 'U0ERIN', scopes: ['users:read'] },
    });
    expect(installation?.bot?.token).toMatch(/^xoxe\.xoxb-1-/);
    expect(installation?.bot?.refreshToken).toMatch(/^xoxe-1-/);
    expect(installation?.user.refreshToken).toMatch(/^xoxe-1-/);
    // 12 hours, as Slack gives a rotating token.
    const left = (installation?.bot?.expiresAt ?? 0) - Math.floor(Date.now() / 1000);
    expect(left).toBeGreaterThan(43_100);
    expect(left).toBeLessThanOrEqual(43_200);
  });

  it('refuses a redirect that comes back without the browser’s state cookie', async () => {
    const url = await provider.generateInstallUrl(
      { scopes: ['chat:write'], redirectUri: `${base}/slack/oauth_redirect` },
      true,
    );
    const answer = await sandbox.oauth?.authorize(url, { team: 'T0SANDBOX' });
    const back = await fetch(answer?.location as string);
    expect(back.status).toBe(400);
    expect(stored.some((i) => i.team?.id === 'T0SANDBOX')).toBe(false);
  });

  it('a person who cancels installs nothing', async () => {
    const before = stored.length;
    const result = await sandbox.oauth?.install(`${base}/slack/install`, { cancel: true });
    expect(result?.error).toBe('access_denied');
    expect(result?.status).not.toBe(200);
    expect(stored.length).toBe(before);
  });

  it('refreshes an expiring token through authorize(), as Bolt does before each event', async () => {
    const before = stored.findLast((i) => i.team?.id === 'T0NORTH');
    // InstallProvider refreshes within 2 hours of expiry: make this one look old.
    if (before?.bot) before.bot.expiresAt = Math.floor(Date.now() / 1000) + 60;
    // (authorize() updates the stored installation in place: keep the old values.)
    const old = { token: before?.bot?.token, refresh: before?.bot?.refreshToken };
    const auth = await provider.authorize({
      teamId: 'T0NORTH',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(auth.botToken).toMatch(/^xoxe\.xoxb-1-/);
    expect(auth.botToken).not.toBe(old.token);
    expect(auth.botRefreshToken).not.toBe(old.refresh);
    const reused = await fetch(`${sandbox.apiUrl}oauth.v2.access`, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: sandbox.oauth?.clientId ?? '',
        client_secret: sandbox.oauth?.clientSecret ?? '',
        grant_type: 'refresh_token',
        refresh_token: old.refresh ?? '',
      }),
    });
    expect(await reused.json()).toEqual({ ok: false, error: 'invalid_refresh_token' });
    const res = await fetch(`${sandbox.apiUrl}auth.test`, {
      headers: { authorization: `Bearer ${auth.botToken}` },
    });
    expect(await res.json()).toMatchObject({ ok: true, team_id: 'T0NORTH', bot_id: 'B0NORTHBOT' });
  });

  it('installs org-wide on Enterprise Grid, and authorizes an event from any workspace of the organization', async () => {
    const result = await sandbox.oauth?.install(`${base}/slack/install`, { team: 'E0GLOBEX', user: 'U0IVY' });
    expect(result?.status).toBe(200);
    const installation = stored.at(-1);
    expect(installation).toMatchObject({
      enterprise: { id: 'E0GLOBEX', name: 'Globex' },
      isEnterpriseInstall: true,
      enterpriseUrl: `${sandbox.url}/`,
      bot: { userId: 'W0GLOBEXBOT', id: 'B0GLOBEX' },
      user: { id: 'U0IVY' },
    });
    expect(installation?.team).toBeUndefined();
    const auth = await provider.authorize({
      enterpriseId: 'E0GLOBEX',
      teamId: 'T0GOPS',
      isEnterpriseInstall: true,
    });
    const res = await fetch(`${sandbox.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'C0GINCIDENTS', text: 'org-wide hello' }),
    });
    expect(await res.json()).toMatchObject({ ok: true, channel: 'C0GINCIDENTS' });
  });
});
