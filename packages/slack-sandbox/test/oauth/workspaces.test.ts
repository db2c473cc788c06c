import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, secondSeed, startSandbox } from '../../src/index.js';
import { type EventSink, startEventSink } from './event-sink.js';

const REDIRECT = 'http://127.0.0.1:9/slack/oauth_redirect';
const GRID = { id: 'E0GLOBEX', name: 'Globex' };

let sandbox: RunningSandbox;
let sink: EventSink;
const tokens: Record<string, string> = {};

const client = (token?: string) =>
  new WebClient(token, {
    slackApiUrl: sandbox.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });

async function install(team: string) {
  const oauth = sandbox.oauth;
  if (!oauth) throw new Error('no OAuth app');
  const url = `${oauth.authorizeUrl}?${new URLSearchParams({ client_id: oauth.clientId, scope: 'chat:write,commands' })}`;
  const { code } = await oauth.authorize(url, { team });
  const res = await client().oauth.v2.access({
    client_id: oauth.clientId,
    client_secret: oauth.clientSecret,
    code: code as string,
  });
  tokens[team] = res.access_token as string;
  return res;
}

// biome-ignore lint/suspicious/noExplicitAny: the page's JSON, read as the page reads it
type Json = any;
const json = async (response: Response | Promise<Response>): Promise<Json> => (await response).json();

/** A JSON /sandbox/* call as the page makes it, with the page's cookie. */
const page = async (path: string, body: unknown, cookie = '') =>
  fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  sink = await startEventSink();
  // The second workspace on Enterprise Grid: its payloads carry the organization too.
  sandbox = await startSandbox({
    oauth: { redirectUrls: [REDIRECT] },
    workspaces: [{ ...secondSeed(), enterprise: GRID }],
    rateLimits: false,
  });
  sandbox.connectBot(sink.url);
  await install('T0SANDBOX');
  const north = await install('T0NORTH');
  expect(north).toMatchObject({ enterprise: GRID, team: { id: 'T0NORTH' }, is_enterprise_install: false });
});
afterAll(async () => {
  await sandbox?.close();
  await sink?.close();
});

describe('events and interactions carry their workspace', () => {
  it('the page switches workspace by a cookie, and what its people do reaches the bot as that workspace', async () => {
    const listed = await json(fetch(`${sandbox.url}/sandbox/workspaces`));
    expect(listed).toMatchObject({
      oauth: true,
      shown: 'T0SANDBOX',
      workspaces: [
        { id: 'T0SANDBOX', installed: true, enterprise: null },
        { id: 'T0NORTH', name: 'Northwind', installed: true, enterprise: GRID },
      ],
    });
    const chosen = await page('/sandbox/workspace', { team: 'T0NORTH' });
    const cookie = (chosen.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect(cookie).toBe('sandbox_team=T0NORTH');
    expect((await json(page('/sandbox/workspace', { team: 'T0NOPE' }))).error).toBe(
      'team: no workspace T0NOPE',
    );
    const state = await json(fetch(`${sandbox.url}/sandbox/state`, { headers: { cookie } }));
    expect(state.team).toEqual({ id: 'T0NORTH', domain: 'northwind' });

    sink.clear();
    const said = await page(
      '/sandbox/say',
      { user: 'U0DANA', channel: 'C0NAGENTS', text: '@agents hello' },
      cookie,
    );
    expect((await json(said)).ok).toBe(true);
    const mention = sink.events.find((e) => (e.event as { type: string }).type === 'app_mention');
    expect(mention).toMatchObject({
      team_id: 'T0NORTH',
      enterprise_id: 'E0GLOBEX',
      api_app_id: 'A0AGENTS',
      authorizations: [
        {
          team_id: 'T0NORTH',
          enterprise_id: 'E0GLOBEX',
          user_id: 'U0NORTHBOT',
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      event: { user: 'U0DANA', channel: 'C0NAGENTS', text: '<@U0NORTHBOT> hello' },
    });
    // The default workspace's page is untouched.
    expect(sandbox.workspace.messages.get('C0AGENTS')?.some((m) => m.text.includes('hello'))).toBe(false);
  });

  it('a click and a slash command carry the team and the organization; response URLs answer in their workspace', async () => {
    const bot = client(tokens.T0NORTH);
    const card = await bot.chat.postMessage({
      channel: 'C0NAGENTS',
      text: 'approve?',
      blocks: [
        {
          type: 'actions',
          elements: [{ type: 'button', action_id: 'ok', text: { type: 'plain_text', text: 'OK' } }],
        },
      ],
    });
    const driver = sandbox.driverFor('T0NORTH', sink.url);
    sink.clear();
    await driver.act({ user: 'U0ERIN', channel: 'C0NAGENTS', ts: card.ts as string, actionId: 'ok' });
    expect(sink.events[0]).toMatchObject({
      type: 'block_actions',
      team: { id: 'T0NORTH', domain: 'northwind', enterprise_id: 'E0GLOBEX' },
      enterprise: GRID,
      user: { id: 'U0ERIN', team_id: 'T0NORTH' },
      api_app_id: 'A0AGENTS',
    });
    const command = await driver.command({ user: 'U0DANA', channel: 'C0NAGENTS', text: 'status' });
    expect(sink.events[1]).toMatchObject({
      team_id: 'T0NORTH',
      enterprise_id: 'E0GLOBEX',
      command: '/agent',
    });
    const answered = await fetch(command.responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'only you see this' }),
    });
    expect(answered.status).toBe(200);
    expect(sandbox.workspaceFor('T0NORTH').ephemerals.at(-1)).toMatchObject({
      user: 'U0DANA',
      text: 'only you see this',
    });
    expect(sandbox.workspace.ephemerals.some((e) => e.text === 'only you see this')).toBe(false);
    expect(await bot.auth.test()).toMatchObject({ team_id: 'T0NORTH', enterprise_id: 'E0GLOBEX' });
  });

  it('an uninstalled workspace sends the bot nothing more; the other still does', async () => {
    await sandbox.oauth?.uninstall('T0NORTH', { eventsUrl: sink.url });
    sink.clear();
    const north = sandbox.driverFor('T0NORTH', sink.url);
    const said = await north.mention({ user: 'U0DANA', channel: 'C0NAGENTS', text: 'anyone?' });
    expect(said.events.every((e) => e.deliveries.length === 0)).toBe(true);
    await expect(north.command({ user: 'U0DANA', channel: 'C0NAGENTS' })).rejects.toThrow('not installed');
    expect(sink.events).toEqual([]);
    const home = await sandbox
      .driver(sink.url)
      .mention({ user: 'U0ALICE', channel: 'C0AGENTS', text: 'still here' });
    expect(home.events.at(-1)?.deliveries[0]?.status).toBe(200);
    const listed = await json(fetch(`${sandbox.url}/sandbox/workspaces`));
    expect(listed.workspaces.map((w: { installed: boolean }) => w.installed)).toEqual([true, false]);
  });
});
