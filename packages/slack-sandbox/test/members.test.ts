import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../src/index.js';
import { botClient } from './bot-client.js';

// Who is in which channel: conversations.members as Slack answers it (driven by the real WebClient),
// and the ways membership changes — the workspace's join/leave, and Slack's own /invite, /join, /leave
// played for the page.
let sandbox: RunningSandbox;
let client: WebClient;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: false });
  client = botClient(sandbox);
});
afterAll(async () => {
  await sandbox?.close();
});

const slackError = async (call: Promise<unknown>) =>
  (
    (await call.then(
      () => ({}),
      (e) => e,
    )) as { data?: { error?: string } }
  ).data?.error;

/** POST /sandbox/command as the page sends it. */
const command = async (body: Record<string, unknown>) => {
  const response = await fetch(`${sandbox.url}/sandbox/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('conversations.members', () => {
  it('lists a channel’s people and the bot, in one page of up to 100 by default', async () => {
    const res = await client.conversations.members({ channel: 'C0AGENTS' });
    expect(res).toMatchObject({
      ok: true,
      members: ['U0AGENTBOT', 'U0ALICE', 'U0BOB'],
      response_metadata: { next_cursor: '' },
    });
    // A public channel the bot is not in is readable (channels:read); the bot is not among its members.
    expect((await client.conversations.members({ channel: 'C0RANDOM' })).members).toEqual([
      'U0ALICE',
      'U0BOB',
      'U0CAROL',
    ]);
  });

  it('pages with a small limit: an opaque cursor to the next page, empty on the last', async () => {
    const first = await client.conversations.members({ channel: 'C0RANDOM', limit: 2 });
    expect(first.members).toEqual(['U0ALICE', 'U0BOB']);
    const cursor = first.response_metadata?.next_cursor as string;
    expect(cursor).not.toBe('');
    const second = await client.conversations.members({ channel: 'C0RANDOM', limit: 2, cursor });
    expect(second.members).toEqual(['U0CAROL']);
    expect(second.response_metadata?.next_cursor).toBe('');

    // The WebClient's own paginator follows the cursors to the end.
    const pages: string[][] = [];
    for await (const page of client.paginate('conversations.members', { channel: 'C0RANDOM', limit: 1 }))
      pages.push((page as { members?: string[] }).members ?? []);
    expect(pages).toEqual([['U0ALICE'], ['U0BOB'], ['U0CAROL']]);
  });

  it('skips no one when the member a cursor points at leaves between two pages', async () => {
    const first = await client.conversations.members({ channel: 'C0RANDOM', limit: 1 });
    expect(first.members).toEqual(['U0ALICE']);
    sandbox.workspace.leave('C0RANDOM', 'U0BOB');
    try {
      const next = await client.conversations.members({
        channel: 'C0RANDOM',
        limit: 1,
        cursor: first.response_metadata?.next_cursor as string,
      });
      expect(next.members).toEqual(['U0CAROL']);
    } finally {
      sandbox.workspace.join('C0RANDOM', 'U0BOB');
    }
  });

  it('a private channel the bot is not in does not exist for it, until it is invited', async () => {
    expect(await slackError(client.conversations.members({ channel: 'G0PRIVATE' }))).toBe(
      'channel_not_found',
    );
    sandbox.workspace.inviteBot('G0PRIVATE', 'U0ALICE');
    expect((await client.conversations.members({ channel: 'G0PRIVATE' })).members).toEqual([
      'U0AGENTBOT',
      'U0ALICE',
      'U0BOB',
    ]);
  });

  it('a DM holds its person and the bot', async () => {
    const dm = await client.chat.postMessage({ channel: 'U0CAROL', text: 'hi' });
    expect((await client.conversations.members({ channel: dm.channel as string })).members).toEqual([
      'U0AGENTBOT',
      'U0CAROL',
    ]);
  });

  it('refuses what Slack refuses: bad limits and cursors, unknown channels, a user id for a channel', async () => {
    for (const limit of [0, -1, 1.5]) {
      expect(await slackError(client.conversations.members({ channel: 'C0AGENTS', limit }))).toBe(
        'invalid_limit',
      );
    }
    expect(
      await slackError(client.conversations.members({ channel: 'C0AGENTS', cursor: 'not-a-cursor' })),
    ).toBe('invalid_cursor');
    expect(await slackError(client.conversations.members({ channel: 'C0NOPE' }))).toBe('channel_not_found');
    expect(await slackError(client.conversations.members({ channel: 'U0ALICE' }))).toBe('channel_not_found');
    expect(await slackError(client.apiCall('conversations.members', {}))).toBe('invalid_arguments');
    // Past Slack's most at once, the page is cut to it rather than refused.
    expect((await client.conversations.members({ channel: 'C0AGENTS', limit: 5000 })).ok).toBe(true);
  });

  it('is Tier 4: past its budget, 429 with Retry-After', async () => {
    let now = 1_700_000_000_000;
    const limited = await startSandbox({
      now: () => now,
      rateLimits: { tiers: { 4: { perMinute: 60, burst: 2 } } },
    });
    try {
      const web = botClient(limited, { rejectRateLimitedCalls: true });
      await web.conversations.members({ channel: 'C0AGENTS' });
      await web.conversations.members({ channel: 'C0AGENTS' });
      const refused = (await web.conversations.members({ channel: 'C0AGENTS' }).catch((e) => e)) as {
        retryAfter?: number;
      };
      expect(refused.retryAfter).toBe(1);
      expect(limited.workspace.apiCalls.at(-1)).toMatchObject({
        status: 429,
        limit: 'conversations.members (Tier 4)',
      });
      now += 1_000;
      expect((await web.conversations.members({ channel: 'C0AGENTS' })).ok).toBe(true);
    } finally {
      await limited.close();
    }
  });
});

describe('joining and leaving', () => {
  it('the channel says who joined (and who invited them) and who left, as Slack does', async () => {
    const ws = sandbox.workspace;
    expect(ws.join('C0AGENTS', 'U0CAROL', 'U0ALICE')).toBe(true);
    expect(ws.messages.get('C0AGENTS')?.at(-1)).toMatchObject({
      subtype: 'channel_join',
      user: 'U0CAROL',
      inviter: 'U0ALICE',
      text: '<@U0CAROL> has joined the channel',
    });
    expect((await client.conversations.members({ channel: 'C0AGENTS' })).members).toContain('U0CAROL');
    expect(ws.join('C0AGENTS', 'U0CAROL')).toBe(false); // already in
    expect(ws.leave('C0AGENTS', 'U0CAROL')).toBe(true);
    expect(ws.messages.get('C0AGENTS')?.at(-1)).toMatchObject({
      subtype: 'channel_leave',
      user: 'U0CAROL',
    });
    expect((await client.conversations.members({ channel: 'C0AGENTS' })).members).not.toContain('U0CAROL');
    expect(ws.leave('C0AGENTS', 'U0CAROL')).toBe(false);
    expect(ws.join('C0AGENTS', 'U0NOBODY')).toBe(false);
    expect(ws.join('D0CAROL', 'U0BOB')).toBe(false); // a DM is two people, always
  });

  it('the bot leaving a private channel loses it again; the page state lists members', async () => {
    sandbox.workspace.inviteBot('G0PRIVATE', 'U0ALICE');
    expect(sandbox.workspace.leave('G0PRIVATE', 'U0AGENTBOT')).toBe(true);
    expect(sandbox.workspace.channels.get('G0PRIVATE')?.is_member).toBe(false);
    expect(await slackError(client.conversations.members({ channel: 'G0PRIVATE' }))).toBe(
      'channel_not_found',
    );
    const state = (await (await fetch(`${sandbox.url}/sandbox/state`)).json()) as {
      channels: Array<{ id: string; members: string[] }>;
    };
    expect(state.channels.find((c) => c.id === 'C0AGENTS')?.members).toEqual([
      'U0AGENTBOT',
      'U0ALICE',
      'U0BOB',
    ]);
  });

  it('the page plays /join, /leave and /invite @name, with Slack’s rules, no bot needed', async () => {
    const members = () => sandbox.workspace.members('C0AGENTS');
    expect(await command({ user: 'U0CAROL', channel: 'C0AGENTS', command: '/join' })).toMatchObject({
      status: 200,
      body: { ok: true, result: { joined: ['U0CAROL'] } },
    });
    expect(members()).toContain('U0CAROL');
    expect((await command({ user: 'U0CAROL', channel: 'C0AGENTS', command: '/leave' })).status).toBe(200);
    expect(members()).not.toContain('U0CAROL');
    expect(await command({ user: 'U0CAROL', channel: 'C0AGENTS', command: '/leave' })).toMatchObject({
      status: 400,
      body: { error: 'You are not in #agents' },
    });

    // Only someone in a channel invites to it; `@name` is a person's name, as the composer has it.
    expect(
      await command({ user: 'U0CAROL', channel: 'C0AGENTS', command: '/invite', text: '@carol' }),
    ).toMatchObject({ status: 400, body: { error: expect.stringMatching(/Only people in #agents/) } });
    expect(
      await command({ user: 'U0ALICE', channel: 'C0AGENTS', command: '/invite', text: '@carol' }),
    ).toMatchObject({ status: 200, body: { result: { joined: ['U0CAROL'] } } });
    expect(sandbox.workspace.messages.get('C0AGENTS')?.at(-1)).toMatchObject({ inviter: 'U0ALICE' });
    sandbox.workspace.leave('C0AGENTS', 'U0CAROL');
    expect(
      await command({ user: 'U0ALICE', channel: 'C0AGENTS', command: '/invite', text: '@nobody' }),
    ).toMatchObject({ status: 400, body: { error: 'No one here is called @nobody' } });
    expect(await command({ user: 'U0ALICE', channel: 'C0AGENTS', command: '/invite' })).toMatchObject({
      status: 400,
      body: { error: 'Say who to invite: /invite @name' },
    });

    // A private channel is joined by invitation only.
    expect(await command({ user: 'U0CAROL', channel: 'G0PRIVATE', command: '/join' })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/private/) },
    });
    expect(sandbox.workspace.members('G0PRIVATE')).not.toContain('U0CAROL');
    // The bot's own commands still need a bot to go to.
    expect(
      (await command({ user: 'U0ALICE', channel: 'C0AGENTS', command: '/agent', text: 'help' })).status,
    ).toBe(503);
  });
});

describe('a slash command nobody has', () => {
  it('is answered as Slack answers it, only to the person, and reaches no app', async () => {
    const calls = sandbox.workspace.apiCalls.length;
    const res = await command({
      user: 'U0ALICE',
      channel: 'C0AGENTS',
      command: '/agnet',
      text: 'start ship it',
    });
    expect(res.status).toBe(200);
    const notice = sandbox.workspace.ephemerals.at(-1);
    expect(notice).toMatchObject({ user: 'U0ALICE', channel: 'C0AGENTS', via: 'slack' });
    expect(notice?.text).toMatch(/^\/agnet is not a valid command\. In Slack, all messages that start with/);
    // Nothing was delivered to the app (no event, no request to a Request URL was even possible).
    expect(sandbox.workspace.apiCalls.length).toBe(calls);
  });
});
