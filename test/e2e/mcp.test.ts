import { request } from 'node:http';
import type { SlackbotCallOptions, SlackbotReply } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { ALICE, allLogLines, BOB, CAROL, CHANNEL, textOf, useHarness, WAIT_MS } from './harness.js';
import { homeOf } from './home-tab.js';
import { connectHost, tokenFromHome } from './mcp-client.js';

// The bot's MCP endpoint driven by a host that is not ours (the official SDK's Client over Streamable
// HTTP), against the real bot, emulator and sandbox: each tool, the token's checks, the policy, and two
// hosts racing to answer one question.
const h = useHarness({
  env: { MCP_REQUESTS_PER_MINUTE: '1000', MCP_FAILED_AUTH_PER_MINUTE: '5', MCP_SLACK_IDENTITY: 'true' },
});
const url = () => `${h.bot.url}/mcp`;

/** An MCP initialize to /mcp sent from `localAddress` (any 127.x.y.z reaches the bot on the loopback). */
function postFrom(
  localAddress: string,
  token: string | undefined,
): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url(),
      {
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter, body: text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('MCP: tools that act as one Slack person', () => {
  it('start_session posts the card in Slack; get_session, list_sessions and wait_for_session follow it', async () => {
    const alice = await connectHost(url(), await tokenFromHome(h.sandbox, h.driver, ALICE), 'Claude Code');
    const tools = (await alice.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(
      [
        'answer_question',
        'get_session',
        'list_sessions',
        'send_signal',
        'start_session',
        'wait_for_session',
      ].sort(),
    );
    const started = await alice.call('start_session', {
      goal: 'scenario:approval ship it via mcp',
      channel: CHANNEL,
    });
    expect(started.isError, started.text).toBe(false);
    const sessionId = String(started.data.session_id);
    const cardTs = String(started.data.card_ts);
    const card = await h.waitForCard(cardTs, (t) => t.includes(sessionId), 'the card of the MCP session');
    expect(textOf(card)).toMatch(/ship it via mcp/);
    // The question arrives: the wait returns on it, with the progress it saw.
    const progress: number[] = [];
    const waited = await alice.callTool(
      { name: 'wait_for_session', arguments: { session_id: sessionId, timeout_seconds: 40 } },
      { onprogress: (p) => progress.push(p.progress), timeout: WAIT_MS },
    );
    const waitedData = waited.structuredContent as {
      ended_because: string;
      pending_questions: Array<{ kind: string }>;
    };
    expect(waitedData.ended_because).toBe('asking');
    expect(waitedData.pending_questions[0]?.kind).toBe('approval');
    const state = await alice.call('get_session', { session_id: sessionId });
    expect(state.data).toMatchObject({
      session: { session_id: sessionId, goal: expect.stringMatching(/ship it/) },
    });
    expect((state.data.pending_questions as unknown[]).length).toBe(1);
    const listed = await alice.call('list_sessions');
    expect((listed.data.mine as Array<{ session_id: string }>).map((s) => s.session_id)).toContain(sessionId);
    // Bob (an approver) sees it waiting on him, answers over MCP; the Slack prompt shows it answered.
    const bob = await connectHost(url(), await tokenFromHome(h.sandbox, h.driver, BOB), 'Cursor');
    const waiting = await bob.call('list_sessions');
    expect(JSON.stringify(waiting.data.waiting_on_you)).toContain(sessionId);
    const answered = await bob.call('answer_question', { session_id: sessionId, approve: true });
    expect(answered.isError, answered.text).toBe(false);
    await h.waitInThread(
      cardTs,
      (m) => /Approved/i.test(textOf(m)) && /U0BOB/.test(textOf(m)),
      'the prompt answered',
    );
    const ended = await alice.call('wait_for_session', { session_id: sessionId, timeout_seconds: 40 });
    expect(ended.data.ended_because).toBe('ended');
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'the session completed');
    // Its numbers are the card's summary, stopped at its end: asked again later, they are the same.
    const final = await alice.call('get_session', { session_id: sessionId, messages: 0 });
    expect(final.data).toMatchObject({
      status_label: '✅ Ended · Completed',
      ended: true,
      cost_usd: expect.any(Number),
      rounds: expect.any(Number),
      elapsed_seconds: expect.any(Number),
    });
    const { latest_messages: _, ...numbers } = final.data;
    const again = await alice.call('get_session', { session_id: sessionId, messages: 0 });
    expect(again.data).toMatchObject(numbers);
    await alice.close();
    await bob.close();
  });

  it('send_signal pauses and cancels through the same policy; the audit names the host', async () => {
    const alice = await connectHost(url(), await tokenFromHome(h.sandbox, h.driver, ALICE), 'n8n agent');
    const started = await alice.call('start_session', { goal: 'scenario:long a long one', channel: CHANNEL });
    const sessionId = String(started.data.session_id);
    const carol = await connectHost(url(), await tokenFromHome(h.sandbox, h.driver, CAROL));
    // Carol isn't in #agents: the session is as unknown to her as a made-up id.
    const unseen = await carol.call('send_signal', { session_id: sessionId, signal: 'cancel' });
    const madeUp = await carol.call('send_signal', { session_id: 'sess_made_up', signal: 'cancel' });
    expect(unseen.isError).toBe(true);
    expect(unseen.text.replace(sessionId, 'X')).toBe(madeUp.text.replace('sess_made_up', 'X'));
    // Nor may she put a card in a channel she isn't in: the field and the rule are named.
    const outside = await carol.call('start_session', {
      goal: 'scenario:complete sneak in',
      channel: CHANNEL,
    });
    expect(outside).toMatchObject({ isError: true, text: expect.stringMatching(/^channel: .*member/) });
    const redirect = await alice.call('send_signal', { session_id: sessionId, signal: 'redirect' });
    expect(redirect).toMatchObject({ isError: true, text: expect.stringMatching(/^message: required/) });
    const cancelled = await alice.call('send_signal', {
      session_id: sessionId,
      signal: 'cancel',
      reason: 'enough',
    });
    expect(cancelled.isError, cancelled.text).toBe(false);
    const cardTs = String(started.data.card_ts);
    await h.waitInThread(
      cardTs,
      (m) => /cancelled the session \(via MCP, n8n agent\)/.test(textOf(m)),
      'the note',
    );
    await alice.close();
    await carol.close();
  });

  it('wait_for_session reports progress while the session works, and returns at its bound', async () => {
    const alice = await connectHost(url(), await tokenFromHome(h.sandbox, h.driver, ALICE));
    // No channel named: the card goes to her DM with the bot, as a workflow step's does.
    const started = await alice.call('start_session', { goal: 'scenario:long keep busy' });
    expect(started.isError, started.text).toBe(false);
    expect(started.data).toMatchObject({ channel_id: ALICE, card_ts: expect.any(String) });
    const progress: number[] = [];
    const waited = await alice.callTool(
      { name: 'wait_for_session', arguments: { session_id: started.data.session_id, timeout_seconds: 5 } },
      { onprogress: (p) => progress.push(p.progress), timeout: WAIT_MS },
    );
    expect((waited.structuredContent as { ended_because: string }).ended_because).toBe('timeout');
    expect(progress.length).toBeGreaterThan(0);
    await alice.call('send_signal', { session_id: started.data.session_id, signal: 'cancel' });
    await alice.close();
  });

  it('answer_question: the policy refuses who may see but not answer; of two hosts the first wins', async () => {
    const alice = await connectHost(url(), await tokenFromHome(h.sandbox, h.driver, ALICE));
    // In #general Carol is a member: she sees the session, but only its starter and the approvers answer.
    const started = await alice.call('start_session', {
      goal: 'scenario:approval race it',
      channel: 'C0GENERAL',
    });
    const sessionId = String(started.data.session_id);
    await alice.call('wait_for_session', { session_id: sessionId, timeout_seconds: 40 });
    const carol = await connectHost(url(), await tokenFromHome(h.sandbox, h.driver, CAROL));
    const seen = await carol.call('get_session', { session_id: sessionId });
    expect(seen.isError, seen.text).toBe(false);
    const refusedAnswer = await carol.call('answer_question', { session_id: sessionId, approve: true });
    expect(refusedAnswer.isError).toBe(true);
    expect(refusedAnswer.text).toMatch(/Only/);
    // A wrong field for the question's kind is named with its rule, and nothing is claimed.
    const wrongKind = await alice.call('answer_question', { session_id: sessionId, text: 'yes' });
    expect(wrongKind).toMatchObject({ isError: true, text: expect.stringMatching(/approve \(/) });
    // Alice and Bob answer at once from two hosts: exactly one wins, the other is told who did.
    const bob = await connectHost(url(), await tokenFromHome(h.sandbox, h.driver, BOB));
    const asked = await alice.call('get_session', { session_id: sessionId });
    const inputId = (asked.data.pending_questions as Array<{ input_id: string }>)[0]?.input_id;
    const answers = await Promise.all([
      alice.call('answer_question', { session_id: sessionId, input_id: inputId, approve: true }),
      bob.call('answer_question', {
        session_id: sessionId,
        input_id: inputId,
        approve: false,
        reason: 'not today',
      }),
    ]);
    expect(answers.filter((a) => !a.isError)).toHaveLength(1);
    const loser = answers.find((a) => a.isError);
    expect(loser?.text).toMatch(/Already (being )?answered|already answered/i);
    const ws = h.sandbox.workspace;
    await ws.waitFor(
      () =>
        ws
          .replies('C0GENERAL', String(started.data.card_ts))
          .find(
            (m) =>
              /input_approve/.test(JSON.stringify(m.blocks ?? [])) === false &&
              /(Approved|Rejected)/.test(textOf(m)),
          ),
      { what: 'the Slack prompt shown answered', timeoutMs: WAIT_MS },
    );
    for (const c of [alice, bob, carol]) await c.close();
  });

  it('a request without a valid token gets 401 naming the RFC 9728 metadata, which the bot serves', async () => {
    const call = (headers: Record<string, string>) =>
      fetch(url(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const tries: Array<Record<string, string>> = [{}, { authorization: 'Bearer asm_mcp_not_a_real_token' }];
    for (const headers of tries) {
      const response = await call(headers);
      expect(response.status).toBe(401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
      expect(metadataUrl).toBe(`${h.bot.url}/.well-known/oauth-protected-resource/mcp`);
      const metadata = await (await fetch(String(metadataUrl))).json();
      expect(metadata).toMatchObject({ resource: url(), bearer_methods_supported: ['header'] });
    }
    // A browser page from an origin nobody allowed: refused before the token is even read.
    const fromPage = await call({ origin: 'https://evil.example' });
    expect(fromPage.status).toBe(403);
    // A body over 64 KiB: 413.
    const alice = await tokenFromHome(h.sandbox, h.driver, ALICE);
    const big = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${alice}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(70_000) },
      }),
    });
    expect(big.status).toBe(413);
  });

  it('an address that keeps failing the token check gets 429 before its tokens are looked up; good tokens and other addresses go on', async () => {
    const GUESSER = '127.0.0.3';
    const alice = await tokenFromHome(h.sandbox, h.driver, ALICE);
    expect((await postFrom('127.0.0.1', alice)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await postFrom(GUESSER, `asm_mcp_guess${i}`)).status).toBe(401);
    const refused = await postFrom(GUESSER, 'asm_mcp_guess5');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatch(/MCP_FAILED_AUTH_PER_MINUTE/);
    expect((await postFrom(GUESSER, undefined)).status).toBe(429);
    // A token that works here (Alice's) still gets through from that address; another address is
    // answered as before.
    expect((await postFrom(GUESSER, alice)).status).toBe(200);
    expect((await postFrom('127.0.0.1', 'asm_mcp_guess6')).status).toBe(401);
  });

  it('a valid token never seen before still works from an address that spent its budget guessing', async () => {
    const GUESSER = '127.0.0.4';
    for (let i = 0; i < 5; i++) expect((await postFrom(GUESSER, undefined)).status).toBe(401);
    expect((await postFrom(GUESSER, undefined)).status).toBe(429);
    expect((await postFrom(GUESSER, 'asm_mcp_not-our-shape')).status).toBe(429);
    // Bob's new token, not yet used anywhere, from the same address (as behind one Ingress or NAT).
    const bob = await tokenFromHome(h.sandbox, h.driver, BOB);
    expect((await postFrom(GUESSER, bob)).status).toBe(200);
    // A token of our shape that matches nothing is looked up too, and is still 401.
    expect((await postFrom(GUESSER, `asm_mcp_${'x'.repeat(43)}`)).status).toBe(401);
  });

  it('a revoked token is refused from its next request', async () => {
    const token = await tokenFromHome(h.sandbox, h.driver, ALICE);
    const alice = await connectHost(url(), token);
    expect((await alice.call('list_sessions')).isError).toBe(false);
    const ws = h.sandbox.workspace;
    const hint = token.slice(0, 'asm_mcp_'.length + 4);
    const home = await ws.waitFor(
      () => {
        const view = homeOf(h.sandbox, ALICE);
        return JSON.stringify(view?.blocks ?? []).includes(hint) ? view : undefined;
      },
      { what: 'the new token listed on Alice’s Home' },
    );
    const line = (home.blocks as Array<{ block_id?: string; text?: { text?: string } }>).find((b) =>
      b.text?.text?.includes(hint),
    );
    expect(line?.block_id).toMatch(/^mcp_token_/);
    const pressed = await h.driver.actInView({
      user: ALICE,
      viewId: home.id,
      actionId: 'mcp_revoke',
      ...(line?.block_id ? { blockId: line.block_id } : {}),
    });
    expect(pressed.status).toBe(200);
    // Refused from the next request: the token's line leaves the Home tab once it is revoked.
    await ws.waitFor(
      () => (JSON.stringify(homeOf(h.sandbox, ALICE)?.blocks ?? []).includes(hint) ? undefined : true),
      {
        what: 'the revoked token gone from Alice’s Home',
      },
    );
    await expect(alice.call('list_sessions')).rejects.toThrow();
    await alice.close().catch(() => {});
    // The token was shown once, in its window: never in a log line (the store's side: mcp-tokens.test.ts).
    expect(allLogLines.filter((line) => line.includes(token))).toEqual([]);
  });
});

/** A tool's answer through Slackbot: whether it is a refusal, its text, and its structured content. */
function toolResult(reply: SlackbotReply): { isError: boolean; text: string; data: Record<string, unknown> } {
  const result = reply.message?.result ?? {};
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return {
    isError: result.isError === true,
    text: content.map((c) => c.text ?? '').join('\n'),
    data: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

describe('MCP: Slackbot, with Slack identity auth (requests signed as Slack signs them)', () => {
  it('a call Slackbot signs acts as the person it names, under their rules; the thread names Slackbot', async () => {
    const slackbot = h.driver.slackbot;
    for (const options of [{}, { anonymous: true }]) {
      const listed = await slackbot.request(ALICE, 'tools/list', {}, options);
      expect(listed.status, listed.text).toBe(200);
      const names = ((listed.message?.result?.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
      expect(names).toContain('start_session');
    }
    const started = toolResult(
      await slackbot.callTool(ALICE, 'start_session', {
        goal: 'scenario:long asked of Slackbot',
        channel: CHANNEL,
      }),
    );
    expect(started.isError, started.text).toBe(false);
    const sessionId = String(started.data.session_id);
    const cardTs = String(started.data.card_ts);
    await h.waitForCard(cardTs, (t) => t.includes(sessionId), 'the card of the session Slackbot started');
    const mine = toolResult(await slackbot.callTool(ALICE, 'list_sessions'));
    expect((mine.data.mine as Array<{ session_id: string }>).map((s) => s.session_id)).toContain(sessionId);
    // Carol isn't in #agents: through Slackbot too, the session is as unknown to her as a made-up id.
    const unseen = toolResult(await slackbot.callTool(CAROL, 'get_session', { session_id: sessionId }));
    const madeUp = toolResult(await slackbot.callTool(CAROL, 'get_session', { session_id: 'sess_made_up' }));
    expect(unseen.isError).toBe(true);
    expect(unseen.text.replace(sessionId, 'X')).toBe(madeUp.text.replace('sess_made_up', 'X'));
    const cancelled = toolResult(
      await slackbot.callTool(ALICE, 'send_signal', {
        session_id: sessionId,
        signal: 'cancel',
        reason: 'done',
      }),
    );
    expect(cancelled.isError, cancelled.text).toBe(false);
    await h.waitInThread(
      cardTs,
      (m) => /cancelled the session \(via MCP, Slackbot\)/.test(textOf(m)),
      'the note naming Slackbot',
    );
  });

  it('the answer policy holds through Slackbot: a member who may not answer is refused, an approver answers', async () => {
    const slackbot = h.driver.slackbot;
    const started = toolResult(
      await slackbot.callTool(ALICE, 'start_session', {
        goal: 'scenario:approval asked via Slackbot',
        channel: 'C0GENERAL',
      }),
    );
    const sessionId = String(started.data.session_id);
    const waited = toolResult(
      await slackbot.callTool(ALICE, 'wait_for_session', { session_id: sessionId, timeout_seconds: 40 }),
    );
    expect(waited.data.ended_because).toBe('asking');
    // Carol is in #general: she sees the session, but only its starter and the approvers answer.
    const carol = toolResult(
      await slackbot.callTool(CAROL, 'answer_question', { session_id: sessionId, approve: true }),
    );
    expect(carol).toMatchObject({ isError: true, text: expect.stringMatching(/Only/) });
    const bob = toolResult(
      await slackbot.callTool(BOB, 'answer_question', { session_id: sessionId, approve: true }),
    );
    expect(bob.isError, bob.text).toBe(false);
    const ws = h.sandbox.workspace;
    await ws.waitFor(
      () =>
        ws
          .replies('C0GENERAL', String(started.data.card_ts))
          .find((m) => /Approved/i.test(textOf(m)) && /U0BOB/.test(textOf(m))),
      { what: 'the prompt answered by Bob', timeoutMs: WAIT_MS },
    );
  });

  it('a bad signature, a stale timestamp, a tool call naming no one, a team not served: refused, nothing leaked', async () => {
    const slackbot = h.driver.slackbot;
    const started = toolResult(
      await slackbot.callTool(ALICE, 'start_session', {
        goal: 'scenario:long a secret plan',
        channel: CHANNEL,
      }),
    );
    const sessionId = String(started.data.session_id);
    const refusals: Array<[SlackbotCallOptions, number, RegExp]> = [
      [{ forgeSignature: true }, 401, /X-Slack-Signature/],
      [{ timestampOffsetSeconds: -600 }, 401, /X-Slack-Request-Timestamp/],
      [{ timestampOffsetSeconds: 600 }, 401, /X-Slack-Request-Timestamp/],
      [{ anonymous: true }, 401, /params\._meta\.slack/],
      [{ teamId: 'T0ELSEWHERE' }, 403, /not served by this bot/],
    ];
    for (const [options, status, why] of refusals) {
      const reply = await slackbot.request(
        ALICE,
        'tools/call',
        { name: 'get_session', arguments: { session_id: sessionId } },
        options,
      );
      expect(reply.status, JSON.stringify(options)).toBe(status);
      expect(reply.message?.error?.message).toMatch(why);
      for (const secret of [sessionId, 'a secret plan', h.sandbox.signingSecret])
        expect(reply.text).not.toContain(secret);
    }
    await slackbot.callTool(ALICE, 'send_signal', { session_id: sessionId, signal: 'cancel' });
  });

  it('the same signed request sent again is refused 401 as a replay; signed afresh it is taken', async () => {
    const slackbot = h.driver.slackbot;
    const first = await slackbot.request(ALICE, 'tools/call', { name: 'list_sessions', arguments: {} });
    expect(first.status, first.text).toBe(200);
    const again = await slackbot.resendLast();
    expect(again.status).toBe(401);
    expect(again.message?.error?.message).toMatch(/X-Slack-Signature: .*a replay/);
    const fresh = await slackbot.request(ALICE, 'tools/call', { name: 'list_sessions', arguments: {} });
    expect(fresh.status, fresh.text).toBe(200);
  });
});
