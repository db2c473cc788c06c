import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GRID_ENTERPRISE,
  gridSeeds,
  type RunningSandbox,
  secondSeed,
  startSandbox,
} from '../../src/index.js';
import { type EventSink, startEventSink } from './event-sink.js';

/** Enterprise Grid: Globex's two workspaces, the app installed in one of them or org-wide. */

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

async function install(team: string, user?: string) {
  const oauth = sandbox.oauth;
  if (!oauth) throw new Error('no OAuth app');
  const url = `${oauth.authorizeUrl}?${new URLSearchParams({ client_id: oauth.clientId, scope: 'chat:write', team })}`;
  const { code } = await oauth.authorize(url, { team, ...(user ? { user } : {}) });
  return client().oauth.v2.access({
    client_id: oauth.clientId,
    client_secret: oauth.clientSecret,
    code: code ?? '',
  });
}

beforeAll(async () => {
  sink = await startEventSink();
  sandbox = await startSandbox({
    oauth: { redirectUrls: [REDIRECT] },
    workspaces: [secondSeed(), ...gridSeeds()],
    rateLimits: false,
  });
  sandbox.connectBot(sink.url);
});
afterAll(async () => {
  await sandbox?.close();
  await sink?.close();
});

describe('Enterprise Grid', () => {
  it('installs in one workspace of an organization: the answer names the organization too', async () => {
    const res = await install('T0GSALES');
    expect(res).toMatchObject({
      team: { id: 'T0GSALES', name: 'Globex Sales' },
      enterprise: GRID_ENTERPRISE,
      is_enterprise_install: false,
      bot_user_id: 'W0GLOBEXBOT',
    });
    expect(await client(res.access_token).auth.test()).toMatchObject({
      team_id: 'T0GSALES',
      enterprise_id: 'E0GLOBEX',
      is_enterprise_install: false,
    });
    // Only that workspace: the organization's other one is not the token's.
    expect(
      await slackError(client(res.access_token).chat.postMessage({ channel: 'C0GINCIDENTS', text: 'x' })),
    ).toBe('channel_not_found');
    await sandbox.oauth?.uninstall('T0GSALES');
  });

  it('installs org-wide: one token for every workspace of the organization, and none other', async () => {
    const page = await fetch(
      `${sandbox.oauth?.authorizeUrl}?client_id=${sandbox.oauth?.clientId}&scope=chat:write&team=E0GLOBEX`,
    );
    expect(await page.text()).toContain('Globex, every workspace — as Gina Starter');
    const res = await install('E0GLOBEX', 'U0IVY');
    expect(res).toMatchObject({
      ok: true,
      team: null,
      enterprise: GRID_ENTERPRISE,
      is_enterprise_install: true,
      bot_user_id: 'W0GLOBEXBOT',
      authed_user: { id: 'U0IVY' },
    });
    const org = client(res.access_token);
    expect(await org.auth.test()).toMatchObject({
      team_id: 'E0GLOBEX',
      team: 'Globex',
      enterprise_id: 'E0GLOBEX',
      is_enterprise_install: true,
      user_id: 'W0GLOBEXBOT',
      bot_id: 'B0GLOBEX',
    });
    expect((await org.chat.postMessage({ channel: 'C0GDEALS', text: 'to sales' })).ok).toBe(true);
    expect((await org.chat.postMessage({ channel: 'C0GINCIDENTS', text: 'to ops' })).ok).toBe(true);
    expect(sandbox.workspaceFor('T0GSALES').messages.get('C0GDEALS')?.at(-1)?.text).toBe('to sales');
    expect(sandbox.workspaceFor('T0GOPS').messages.get('C0GINCIDENTS')?.at(-1)?.text).toBe('to ops');
    // Methods that need to know the workspace take `team_id` from an org-wide token.
    expect(await org.apiCall('users.info', { user: 'U0IVY', team_id: 'T0GOPS' })).toMatchObject({
      user: { id: 'U0IVY' },
    });
    expect(await slackError(org.chat.postMessage({ channel: 'C0AGENTS', text: 'x' }))).toBe(
      'channel_not_found',
    );
    expect(await slackError(org.apiCall('users.info', { user: 'U0DANA', team_id: 'T0NORTH' }))).toBe(
      'team_access_not_granted',
    );
    const listed = (await (await fetch(`${sandbox.url}/sandbox/workspaces`)).json()) as {
      workspaces: Array<{ id: string; installed: boolean; installedAs?: string }>;
    };
    expect(listed.workspaces.filter((w) => w.installed).map((w) => [w.id, w.installedAs])).toEqual([
      ['T0GSALES', 'E0GLOBEX'],
      ['T0GOPS', 'E0GLOBEX'],
    ]);
  });

  it('events and interactions from its workspaces say the installation is org-wide', async () => {
    const ops = sandbox.driverFor('T0GOPS', sink.url);
    sink.clear();
    await ops.mention({ user: 'U0IVY', channel: 'C0GINCIDENTS', text: 'status?' });
    const mention = sink.events.find((e) => (e.event as { type: string }).type === 'app_mention');
    expect(mention).toMatchObject({
      team_id: 'T0GOPS',
      enterprise_id: 'E0GLOBEX',
      authorizations: [
        { enterprise_id: 'E0GLOBEX', team_id: 'T0GOPS', user_id: 'W0GLOBEXBOT', is_enterprise_install: true },
      ],
    });
    const command = await sandbox
      .driverFor('T0GSALES', sink.url)
      .command({ user: 'U0GINA', channel: 'C0GDEALS' });
    expect(command.status).toBe(200);
    expect(sink.events.at(-1)).toMatchObject({
      team_id: 'T0GSALES',
      enterprise_id: 'E0GLOBEX',
      is_enterprise_install: 'true',
    });
  });

  it('uninstalling org-wide revokes the token and stops every workspace of the organization', async () => {
    const token = (await install('E0GLOBEX')).access_token as string;
    sink.clear();
    const result = await sandbox.oauth?.uninstall('E0GLOBEX', { eventsUrl: sink.url });
    expect(result?.revoked.bot).toEqual(['W0GLOBEXBOT']);
    expect(sink.events.map((e) => [e.enterprise_id, (e.event as { type: string }).type])).toEqual([
      ['E0GLOBEX', 'tokens_revoked'],
      ['E0GLOBEX', 'app_uninstalled'],
    ]);
    expect(await slackError(client(token).auth.test())).toBe('token_revoked');
    sink.clear();
    await sandbox
      .driverFor('T0GOPS', sink.url)
      .mention({ user: 'U0IVY', channel: 'C0GINCIDENTS', text: 'hello?' });
    expect(sink.events).toEqual([]);
  });
});
