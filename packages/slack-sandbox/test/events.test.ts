import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { patient } from '../../../test/support/patience.js';
import { type RunningSandbox, type SlackDriver, slackSignature, startSandbox } from '../src/index.js';
import { boltApp, driveBolt } from './bolt-app.js';

// Conversational Slack: what a person writes reaches a real Bolt app as Slack's Events API sends it,
// and what the app does (reactions, markdown, feedback buttons) lands in the sandbox.
let sandbox: RunningSandbox;
let app: App;
let driver: SlackDriver;
type Seen = { type: string; subtype?: string; channel_type?: string; thread_ts?: string; text?: string };
const seen: Seen[] = [];
const feedback: Array<{ value: string; user: string }> = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  app = boltApp(sandbox);
  app.event('app_mention', async ({ event, client }) => {
    seen.push({
      type: 'app_mention',
      text: event.text,
      ...(event.thread_ts ? { thread_ts: event.thread_ts } : {}),
    });
    await client.reactions.add({ channel: event.channel, timestamp: event.ts, name: 'eyes' });
    await client.chat.postMessage({
      channel: event.channel,
      thread_ts: event.thread_ts ?? event.ts,
      text: 'Report',
      blocks: [
        { type: 'markdown', text: '# Report\n\n**Done.** <b>not html</b>' },
        {
          type: 'context_actions',
          elements: [
            {
              type: 'feedback_buttons',
              action_id: 'feedback',
              positive_button: { text: { type: 'plain_text', text: '👍' }, value: 'good' },
              negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'bad' },
            },
          ],
        },
      ],
    });
  });
  app.message(async ({ message }) => {
    const m = message as Seen;
    seen.push({
      type: 'message',
      ...(m.subtype ? { subtype: m.subtype } : {}),
      ...(m.channel_type ? { channel_type: m.channel_type } : {}),
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    });
  });
  app.action('feedback', async ({ ack, body, action }) => {
    await ack();
    feedback.push({ value: (action as { value: string }).value, user: body.user.id });
  });
  driver = await driveBolt(sandbox, app);
});

afterAll(async () => {
  await app?.stop();
  await sandbox?.close();
});

describe('events a person causes, delivered to a real Bolt app', () => {
  it('a mention in a channel: message and app_mention, both acked; the app reacts and replies in the thread', async () => {
    seen.length = 0;
    const said = await driver.mention({ user: 'U0ALICE', channel: 'C0AGENTS', text: 'ship the notes' });
    expect(said.message.text).toBe('<@U0AGENTBOT> ship the notes');
    expect(said.events.map((e) => [e.type, e.deliveries.map((d) => d.status)])).toEqual([
      ['message', [200]],
      ['app_mention', [200]],
    ]);
    expect(said.events[0]?.eventId).not.toBe(said.events[1]?.eventId);
    await driver.waitForReaction({ channel: 'C0AGENTS', ts: said.message.ts, name: 'eyes' });
    const reply = await sandbox.workspace.waitFor(
      () => sandbox.workspace.replies('C0AGENTS', said.message.ts)[0],
    );
    expect(reply.blocks?.[0]).toMatchObject({ type: 'markdown' });
    expect(seen).toContainEqual({ type: 'app_mention', text: '<@U0AGENTBOT> ship the notes' });
    expect(seen).toContainEqual({ type: 'message', channel_type: 'channel' });
  });

  it('a reply in a thread carries thread_ts; the mention inside a thread too', async () => {
    seen.length = 0;
    const top = await driver.say({ user: 'U0BOB', channel: 'C0AGENTS', text: 'we should rotate the keys' });
    const reply = await driver.replyInThread({
      user: 'U0ALICE',
      channel: 'C0AGENTS',
      threadTs: top.message.ts,
      text: 'agreed',
    });
    expect(reply.message.thread_ts).toBe(top.message.ts);
    await driver.mention({ user: 'U0ALICE', channel: 'C0AGENTS', threadTs: top.message.ts, text: 'do it' });
    expect(seen).toContainEqual({ type: 'message', channel_type: 'channel', thread_ts: top.message.ts });
    expect(seen).toContainEqual({
      type: 'app_mention',
      text: '<@U0AGENTBOT> do it',
      thread_ts: top.message.ts,
    });
  });

  it('a DM with the bot: message.im only (no app_mention), in the person’s im channel', async () => {
    seen.length = 0;
    const said = await driver.dm({ user: 'U0CAROL', text: 'hello agent' });
    expect(said.message.channel).toBe('D0CAROL');
    expect(said.events.map((e) => e.type)).toEqual(['message']);
    expect(seen).toEqual([{ type: 'message', channel_type: 'im' }]);
  });

  it('an edit arrives as subtype message_changed; a channel the bot is not in sends nothing', async () => {
    const said = await driver.say({ user: 'U0ALICE', channel: 'C0AGENTS', text: 'typo' });
    seen.length = 0;
    await driver.edit({ user: 'U0ALICE', channel: 'C0AGENTS', ts: said.message.ts, text: 'fixed' });
    expect(seen).toEqual([{ type: 'message', subtype: 'message_changed', channel_type: 'channel' }]);
    const elsewhere = await driver.mention({ user: 'U0ALICE', channel: 'C0RANDOM', text: 'anyone?' });
    expect(elsewhere.events).toEqual([]);
  });

  it('feedback buttons: a press sends the pressed button’s value as Slack does', async () => {
    const said = await driver.mention({ user: 'U0ALICE', channel: 'C0AGENTS', text: 'report please' });
    const report = await sandbox.workspace.waitFor(
      () => sandbox.workspace.replies('C0AGENTS', said.message.ts)[0],
    );
    await driver.act({
      user: 'U0BOB',
      channel: 'C0AGENTS',
      ts: report.ts,
      actionId: 'feedback',
      value: 'bad',
    });
    expect(feedback.at(-1)).toEqual({ value: 'bad', user: 'U0BOB' });
    await expect(
      driver.act({ user: 'U0BOB', channel: 'C0AGENTS', ts: report.ts, actionId: 'feedback', value: 'meh' }),
    ).rejects.toThrow('feedback has no button with value "meh"');
  });
});

describe('Slack’s retries when the bot is slow to ack', () => {
  // Its own sandbox with a 1 s ack window (Slack: 3 s), so the retries come quickly.
  let quick: RunningSandbox;
  beforeAll(async () => {
    quick = await startSandbox({ eventAckTimeoutMs: 1_000 });
  });
  afterAll(async () => {
    await quick?.close();
  });

  it('over HTTP: retried with X-Slack-Retry-Num 1..3 and reason http_timeout, each signed', async () => {
    const requests: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const slow: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        requests.push({ headers: req.headers, body });
        // Leaves the first three unanswered (until the server closes); acks the fourth (retry 3).
        if (requests.length >= 4) res.end();
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const slowDriver = quick.driver(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/`);
      const said = await slowDriver.dm({ user: 'U0ALICE', text: 'are you there?' });
      expect(said.events[0]?.deliveries.map(({ ms, ...rest }) => rest)).toEqual([
        { attempt: 0, status: 'timeout', reason: '' },
        { attempt: 1, status: 'timeout', reason: 'http_timeout' },
        { attempt: 2, status: 'timeout', reason: 'http_timeout' },
        { attempt: 3, status: 200, reason: 'http_timeout' },
      ]);
      // Each attempt's wait is measured, as Slack measures an ack.
      expect(said.events[0]?.deliveries.every((d) => Number.isInteger(d.ms) && d.ms >= 0)).toBe(true);
      expect(
        requests.map((r) => [r.headers['x-slack-retry-num'], r.headers['x-slack-retry-reason']]),
      ).toEqual([
        [undefined, undefined],
        ['1', 'http_timeout'],
        ['2', 'http_timeout'],
        ['3', 'http_timeout'],
      ]);
      // The page's event log lists each attempt.
      expect(
        quick.workspace.apiCalls
          .filter((c) => c.event?.id === said.events[0]?.eventId)
          .map((c) => [c.method, c.event?.retry, c.ok]),
      ).toEqual([
        ['message', 0, false],
        ['message', 1, false],
        ['message', 2, false],
        ['message', 3, true],
      ]);
      const ids = requests.map((r) => (JSON.parse(r.body) as { event_id: string }).event_id);
      expect(new Set(ids).size).toBe(1);
      for (const r of requests) {
        const ts = Number(r.headers['x-slack-request-timestamp']);
        expect(r.headers['x-slack-signature']).toBe(slackSignature(quick.signingSecret, ts, r.body));
      }
      const body = JSON.parse(requests[0]?.body ?? '{}') as Record<string, unknown>;
      expect(body).toMatchObject({
        type: 'event_callback',
        team_id: 'T0SANDBOX',
        api_app_id: 'A0AGENTS',
        event_time: expect.any(Number),
        authorizations: [{ team_id: 'T0SANDBOX', user_id: 'U0AGENTBOT', is_bot: true }],
        event: { type: 'message', channel_type: 'im', user: 'U0ALICE', text: 'are you there?' },
      });
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });

  it('over Socket Mode: an envelope of type events_api, redelivered with retry_attempt when not acked', async () => {
    const opened = (await (
      await fetch(`${quick.apiUrl}apps.connections.open`, {
        method: 'POST',
        headers: { authorization: `Bearer ${quick.appToken}` },
      })
    ).json()) as { url: string };
    const ws = new WebSocket(opened.url);
    const envelopes: Array<{ type: string; retry_attempt: number; retry_reason: string; payload: unknown }> =
      [];
    ws.on('message', (data) => {
      const envelope = JSON.parse(String(data)) as {
        type: string;
        envelope_id?: string;
        retry_attempt: number;
        retry_reason: string;
        payload: unknown;
      };
      if (envelope.type !== 'events_api') return;
      envelopes.push(envelope);
      // Leaves the first delivery unacknowledged; acks every later one.
      if (envelopes.length > 1) ws.send(JSON.stringify({ envelope_id: envelope.envelope_id }));
    });
    await new Promise((r) => ws.once('open', r));
    try {
      const said = await quick
        .socketDriver()
        .mention({ user: 'U0BOB', channel: 'C0AGENTS', text: 'over the socket' });
      expect(said.events[0]?.deliveries.map((d) => [d.attempt, d.status, d.reason])).toEqual([
        [0, 'timeout', ''],
        [1, 200, 'timeout'],
      ]);
      expect(envelopes.slice(0, 2).map((e) => [e.type, e.retry_attempt, e.retry_reason])).toEqual([
        ['events_api', 0, ''],
        ['events_api', 1, 'timeout'],
      ]);
      expect(envelopes[0]?.payload).toMatchObject({ type: 'event_callback', event: { type: 'message' } });
    } finally {
      ws.close();
    }
  });
});

describe('Socket Mode connections', () => {
  it('are counted while open, and each end recorded: 1000 when the app closes it, 1006 when it drops', async () => {
    const sandbox = await startSandbox();
    const connect = async () => {
      const opened = (await (
        await fetch(`${sandbox.apiUrl}apps.connections.open`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sandbox.appToken}` },
        })
      ).json()) as { url: string };
      const ws = new WebSocket(opened.url);
      await new Promise((r) => ws.once('open', r));
      return ws;
    };
    try {
      const closedByApp = await connect();
      const dropped = await connect();
      const hub = sandbox.socketMode;
      // A connection's end is no workspace change: polled.
      const until = (check: () => void) => vi.waitFor(check, { timeout: patient(10_000), interval: 20 });
      await until(() => expect(hub.connected).toBe(2));
      closedByApp.close(1000);
      await until(() => expect(hub.closeCodes).toHaveLength(1));
      dropped.terminate();
      await until(() => expect(hub.closeCodes).toHaveLength(2));
      expect(hub.closeCodes).toEqual([1000, 1006]);
      expect(hub.connected).toBe(0);
    } finally {
      await sandbox.close();
    }
  });
});

describe('the bot’s own messages', () => {
  it('once echoed, the bot’s posts and edits reach it as Slack sends them (bot_id; message_changed)', async () => {
    const events: Array<Record<string, unknown>> = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        events.push((JSON.parse(body) as { event: Record<string, unknown> }).event);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const echo = sandbox.driver(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const stop = echo.echoBotMessages();
    try {
      const call = (method: string, body: Record<string, string>) =>
        fetch(`${sandbox.apiUrl}${method}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sandbox.botToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((r) => r.json() as Promise<{ ts: string }>);
      // Not a member of #random: posting there (chat:write.public) brings no event.
      await call('chat.postMessage', { channel: 'C0RANDOM', text: 'elsewhere' });
      const posted = await call('chat.postMessage', { channel: 'C0AGENTS', text: 'Working…' });
      await call('chat.update', { channel: 'C0AGENTS', ts: posted.ts, text: 'Done' });
      await expect.poll(() => events.length).toBe(2);
      expect(events.map((e) => e.text)).not.toContain('elsewhere');
      // Two deliveries in flight at once may land in either order.
      const post = events.find((e) => e.subtype === undefined);
      const edit = events.find((e) => e.subtype === 'message_changed');
      expect(post).toMatchObject({
        type: 'message',
        bot_id: 'B0AGENTS',
        user: 'U0AGENTBOT',
        text: 'Working…',
      });
      expect(edit).toMatchObject({
        subtype: 'message_changed',
        message: { text: 'Done', bot_id: 'B0AGENTS' },
      });
    } finally {
      stop();
      server.close();
    }
  });
});

describe('reactions through the Web API', () => {
  it('add, refuse twice, list, remove; bad names are refused', async () => {
    const message = sandbox.workspace.post({ channel: 'C0AGENTS', user: 'U0ALICE', text: 'react to me' });
    const call = async (method: string, body: Record<string, string>) =>
      (await (
        await fetch(`${sandbox.apiUrl}${method}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sandbox.botToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as { ok: boolean; error?: string; message?: { reactions?: unknown } };
    const at = { channel: 'C0AGENTS', timestamp: message.ts };
    expect(await call('reactions.add', { ...at, name: ':white_check_mark:' })).toEqual({ ok: true });
    expect(await call('reactions.add', { ...at, name: 'white_check_mark' })).toMatchObject({
      error: 'already_reacted',
    });
    expect(await call('reactions.add', { ...at, name: 'Not An Emoji' })).toMatchObject({
      error: 'invalid_name',
    });
    expect((await call('reactions.get', at)).message?.reactions).toEqual([
      { name: 'white_check_mark', users: ['U0AGENTBOT'], count: 1 },
    ]);
    expect(await call('reactions.remove', { ...at, name: 'white_check_mark' })).toEqual({ ok: true });
    expect(await call('reactions.remove', { ...at, name: 'white_check_mark' })).toMatchObject({
      error: 'no_reaction',
    });
  });
});
