import { ErrorCode, WebClientEvent } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/index.js';
import { botClient } from '../bot-client.js';

// The real @slack/web-api WebClient against a real sandbox server: what a bot meets when Slack fails or
// limits it. Time is the sandbox's injected clock, moved by the test; nothing waits on a timer.
let sandbox: RunningSandbox;
let now = 1_700_000_000_000;
const client = () => botClient(sandbox, { rejectRateLimitedCalls: true });

type Failure = { code?: string; data?: { error?: string }; retryAfter?: number };
const failure = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (e: Failure) => e,
  );

beforeAll(async () => {
  sandbox = await startSandbox({
    now: () => now,
    rateLimits: { postPerChannel: { perMinute: 60, burst: 2 }, tiers: { 3: { perMinute: 6, burst: 2 } } },
  });
});
afterAll(async () => {
  await sandbox?.close();
});
afterEach(() => {
  sandbox.faults.clear();
  now += 3_600_000; // every bucket full again
});

describe('failing like Slack, on demand', () => {
  it('the next N calls of a method answer the Slack error asked for, then calls succeed again', async () => {
    const web = client();
    sandbox.failNext({ method: 'chat.postMessage', error: 'not_in_channel', times: 2 });
    for (let i = 0; i < 2; i++) {
      const e = await failure(web.chat.postMessage({ channel: 'C0AGENTS', text: 'x' }));
      expect(e?.code).toBe(ErrorCode.PlatformError);
      expect(e?.data).toMatchObject({ ok: false, error: 'not_in_channel' });
    }
    expect((await web.chat.postMessage({ channel: 'C0AGENTS', text: 'now it goes' })).ok).toBe(true);
    const log = sandbox.workspace.apiCalls.filter((c) => c.method === 'chat.postMessage').slice(-3);
    expect(log.map((c) => [c.error, c.injected])).toEqual([
      ['not_in_channel', true],
      ['not_in_channel', true],
      [undefined, undefined],
    ]);
  });

  it('only for one channel: calls elsewhere and other methods are untouched', async () => {
    const web = client();
    sandbox.failNext({ method: 'chat.update', error: 'is_archived', channel: 'C0GENERAL' });
    const card = await web.chat.postMessage({ channel: 'C0AGENTS', text: 'card' });
    expect((await web.chat.update({ channel: 'C0AGENTS', ts: card.ts as string, text: 'edited' })).ok).toBe(
      true,
    );
    const other = await web.chat.postMessage({ channel: 'C0GENERAL', text: 'card' });
    const e = await failure(
      web.chat.update({ channel: 'C0GENERAL', ts: other.ts as string, text: 'edited' }),
    );
    expect(e?.data?.error).toBe('is_archived');
    expect(sandbox.faults.list()).toEqual([]);
  });

  it('a DM fault matches the user id the bot posts to', async () => {
    sandbox.failNext({ method: 'chat.postMessage', error: 'cannot_dm_bot', channel: 'D0BOB' });
    const e = await failure(client().chat.postMessage({ channel: 'U0BOB', text: 'hi' }));
    expect(e?.data?.error).toBe('cannot_dm_bot');
  });

  it('ratelimited comes as HTTP 429 with Retry-After, which the WebClient reads', async () => {
    sandbox.failNext({ method: 'chat.postEphemeral', error: 'ratelimited', retryAfter: 7 });
    const e = await failure(client().chat.postEphemeral({ channel: 'C0AGENTS', user: 'U0BOB', text: 'x' }));
    expect(e?.code).toBe(ErrorCode.RateLimitedError);
    expect(e?.retryAfter).toBe(7);
  });

  it('a dropped connection is a request error, not a Slack answer; the sandbox stays up', async () => {
    sandbox.failNext({ method: 'chat.postMessage', drop: true });
    const e = await failure(client().chat.postMessage({ channel: 'C0AGENTS', text: 'lost' }));
    expect(e?.code).toBe(ErrorCode.RequestError);
    expect(sandbox.workspace.apiCalls.at(-1)).toMatchObject({ dropped: true, injected: true, status: 0 });
    expect((await client().auth.test()).ok).toBe(true);
  });

  it('a gateway-style failure can carry any HTTP status', async () => {
    sandbox.failNext({ method: 'auth.test', error: 'service_unavailable', status: 503 });
    const e = await failure(client().auth.test());
    expect(e?.code).toBe(ErrorCode.HTTPError);
    expect((e as { statusCode?: number }).statusCode).toBe(503);
  });

  it('the admin endpoint does the same, and refuses a bad fault naming the field', async () => {
    type Answer = { ok: boolean; error?: string; faults?: unknown[] };
    const read = async (r: Response | Promise<Response>) => (await (await r).json()) as Answer;
    const post = (body: unknown) =>
      fetch(`${sandbox.url}/sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const added = await post({ method: 'chat.postMessage', error: 'channel_not_found', times: 1 });
    expect(added.status).toBe(200);
    expect(await added.json()).toMatchObject({
      ok: true,
      fault: { method: 'chat.postMessage', remaining: 1 },
    });
    expect((await read(fetch(`${sandbox.url}/sandbox/faults`))).faults).toHaveLength(1);
    const e = await failure(client().chat.postMessage({ channel: 'C0AGENTS', text: 'x' }));
    expect(e?.data?.error).toBe('channel_not_found');

    const bad = await post({ method: 'chat.postMessage', error: 'x', times: 0 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      ok: false,
      error: 'fault.times must be a whole number from 1 to 10000, got 0',
    });
    expect((await read(post({ method: 'chat.postMessage' }))).error).toBe(
      'fault: give exactly one of "error" or "drop: true"',
    );
    expect((await read(post({ method: 'postMessage', drop: true }))).error).toContain('fault.method');
    await post({ method: 'chat.update', error: 'cant_update_message' });
    expect((await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' })).status).toBe(200);
    expect(sandbox.faults.list()).toEqual([]);
  });
});

describe('Slack’s rate limits, through the WebClient', () => {
  it('chat.postMessage past its burst in one channel: 429, Retry-After, {ok:false, error:"ratelimited"}', async () => {
    const web = client();
    await web.chat.postMessage({ channel: 'C0AGENTS', text: '1' });
    await web.chat.postMessage({ channel: 'C0AGENTS', text: '2' });
    const raw = await fetch(`${sandbox.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'C0AGENTS', text: '3' }),
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('1');
    expect(await raw.json()).toEqual({ ok: false, error: 'ratelimited' });
    expect(sandbox.workspace.apiCalls.at(-1)).toMatchObject({
      method: 'chat.postMessage',
      status: 429,
      error: 'ratelimited',
      retryAfter: 1,
      limit: 'chat.postMessage in C0AGENTS',
    });
    // Another channel is not limited; the first is again one second later.
    expect((await web.chat.postMessage({ channel: 'C0GENERAL', text: 'elsewhere' })).ok).toBe(true);
    now += 1_000;
    expect((await web.chat.postMessage({ channel: 'C0AGENTS', text: '3' })).ok).toBe(true);
  });

  it('the WebClient with its default retries waits Retry-After and gets through', async () => {
    const retrying = botClient(sandbox, { retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 0 } });
    let limited = 0;
    retrying.on(WebClientEvent.RATE_LIMITED, (seconds: number) => {
      limited = seconds;
      now += seconds * 1000; // the sandbox's clock moves as the client waits
    });
    await retrying.chat.postMessage({ channel: 'C0AGENTS', text: 'a' });
    await retrying.chat.postMessage({ channel: 'C0AGENTS', text: 'b' });
    const third = await retrying.chat.postMessage({ channel: 'C0AGENTS', text: 'c' });
    expect(third.ok).toBe(true);
    expect(limited).toBe(1);
  });

  it('Tier 3: chat.update is limited per method per workspace, not per channel', async () => {
    const web = client();
    const a = await web.chat.postMessage({ channel: 'C0AGENTS', text: 'a' });
    const b = await web.chat.postMessage({ channel: 'C0GENERAL', text: 'b' });
    await web.chat.update({ channel: 'C0AGENTS', ts: a.ts as string, text: 'a2' });
    await web.chat.update({ channel: 'C0GENERAL', ts: b.ts as string, text: 'b2' });
    const e = await failure(web.chat.update({ channel: 'C0GENERAL', ts: b.ts as string, text: 'b3' }));
    expect(e?.code).toBe(ErrorCode.RateLimitedError);
    expect(e?.retryAfter).toBe(10); // 6 a minute
    expect((await web.chat.postEphemeral({ channel: 'C0AGENTS', user: 'U0BOB', text: 'Tier 4' })).ok).toBe(
      true,
    );
  });
});

describe('msg_blocks_too_long', () => {
  const section = (n: number) => ({ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(n) } });

  it('refuses blocks that add up past the budget though each is within its own limit', async () => {
    const web = client();
    // Five sections of 2,700 characters: each is under 3,000, together 13,500 plus their type names.
    const e = await failure(
      web.chat.postMessage({
        channel: 'C0GENERAL',
        text: 'long',
        blocks: Array.from({ length: 5 }, () => section(2_700)),
      }),
    );
    expect(e?.data?.error).toBe('msg_blocks_too_long');
    // Four of them (10,800 and the names) fit; the same budget holds for chat.update.
    const ok = await web.chat.postMessage({
      channel: 'C0GENERAL',
      text: 'long',
      blocks: Array.from({ length: 4 }, () => section(2_700)),
    });
    expect(ok.ok).toBe(true);
    const edit = await failure(
      web.chat.update({
        channel: 'C0GENERAL',
        ts: ok.ts as string,
        text: 'long',
        blocks: Array.from({ length: 5 }, () => section(2_700)),
      }),
    );
    expect(edit?.data?.error).toBe('msg_blocks_too_long');
  });

  it('counts what the blocks carry besides text: ids and values are part of the message', async () => {
    const web = client();
    const blocks = [
      section(2_990),
      section(2_990),
      section(2_990),
      section(2_990),
      {
        type: 'actions',
        block_id: 'b'.repeat(255),
        elements: [
          {
            type: 'button',
            action_id: 'a',
            text: { type: 'plain_text', text: 'Go' },
            value: 'v'.repeat(2_000),
          },
        ],
      },
    ];
    const e = await failure(web.chat.postMessage({ channel: 'C0GENERAL', text: 'x', blocks }));
    expect(e?.data?.error).toBe('msg_blocks_too_long');
  });
});

describe('history pages', () => {
  it('conversations.replies pages with a cursor; a non-Marketplace app gets 15 a page and 1 call a minute', async () => {
    const strict = await startSandbox({ now: () => now, rateLimits: { historyProfile: 'non-marketplace' } });
    try {
      const web = botClient(strict, { rejectRateLimitedCalls: true });
      const card = strict.workspace.post({ channel: 'C0AGENTS', user: 'U0ALICE', text: 'card' });
      for (let i = 0; i < 20; i++)
        strict.workspace.post({ channel: 'C0AGENTS', user: 'U0ALICE', text: `r${i}`, thread_ts: card.ts });
      const first = await web.conversations.replies({ channel: 'C0AGENTS', ts: card.ts, limit: 200 });
      expect(first.messages).toHaveLength(15);
      expect(first.has_more).toBe(true);
      const cursor = first.response_metadata?.next_cursor as string;
      const tooSoon = await failure(web.conversations.replies({ channel: 'C0AGENTS', ts: card.ts, cursor }));
      expect(tooSoon?.retryAfter).toBe(60);
      now += 60_000;
      const second = await web.conversations.replies({ channel: 'C0AGENTS', ts: card.ts, cursor });
      expect(second.messages?.map((m) => m.text)).toEqual(['r14', 'r15', 'r16', 'r17', 'r18', 'r19']);
      expect(second.has_more).toBe(false);
    } finally {
      await strict.close();
    }
  });

  it('rate limits off: no 429 however fast', async () => {
    const open = await startSandbox({ rateLimits: false });
    try {
      const web = botClient(open, { rejectRateLimitedCalls: true });
      for (let i = 0; i < 20; i++) await web.chat.postMessage({ channel: 'C0AGENTS', text: `m${i}` });
      expect(open.workspace.apiCalls.filter((c) => c.status === 429)).toEqual([]);
      expect(open.rateLimiter).toBeUndefined();
    } finally {
      await open.close();
    }
  });
});
