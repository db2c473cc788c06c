import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { ALICE, BOB, CAROL, CHANNEL, textOf, useHarness, WAIT_MS } from './harness.js';
import { isPrompt, SIGNAL_ROUTE } from './helpers.js';

// Many sessions in one channel: Slack's rate limits off until the bot paces itself (bot-outbound).
const h = useHarness({ sandbox: { rateLimits: false } });

const ws = () => h.sandbox.workspace;
const signals = async () => (await h.emulator.admin.stats()).requests[SIGNAL_ROUTE] ?? 0;
const SESSION_ID = /session `([^`]+)`/;

/** The session card the bot posted as a reply in `threadTs`, once it names its session. */
async function cardIn(
  channel: string,
  threadTs: string,
): Promise<{ card: SandboxMessage; sessionId: string }> {
  const card = await ws().waitFor(
    () =>
      ws()
        .replies(channel, threadTs)
        .find((m) => m.bot_id !== undefined && SESSION_ID.test(textOf(m))),
    { what: `the session card in thread ${threadTs}`, timeoutMs: WAIT_MS },
  );
  return { card, sessionId: SESSION_ID.exec(textOf(card))?.[1] as string };
}

/**
 * The first message in the thread matching `pattern`, the session card left out: it sits in the same thread
 * and its "now" line quotes the agent's latest words, often before the thread post that says them.
 */
const inThread = (channel: string, threadTs: string, pattern: RegExp, what: string) =>
  ws().waitFor(
    () =>
      ws()
        .replies(channel, threadTs)
        .find((m) => !SESSION_ID.test(textOf(m)) && pattern.test(textOf(m))),
    { what, timeoutMs: WAIT_MS },
  );

const reactionsOn = (channel: string, ts: string): string[] =>
  (ws().findMessage(channel, ts)?.reactions ?? []).map((r) => r.name);

describe('starting from a mention', () => {
  it('in a channel: the card is the first reply in the mention’s thread, the work follows there, once', async () => {
    const said = await h.driver.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'scenario:complete write the release notes --budget 5 --max-iterations 30',
    });
    // Slack brings the mention twice (message.channels and app_mention): one session, one card.
    expect(said.events.map((e) => e.type)).toEqual(['message', 'app_mention']);
    await h.driver.waitForReaction({ channel: CHANNEL, ts: said.message.ts, name: 'eyes' });
    const { card, sessionId } = await cardIn(CHANNEL, said.message.ts);
    expect(ws().replies(CHANNEL, said.message.ts)[0]?.ts).toBe(card.ts);
    const session = await h.emulator.admin.session(sessionId);
    expect(session?.goal).toBe('scenario:complete write the release notes');
    expect(session?.maxCostPerSession).toBe(5);
    expect(session?.maxIterations).toBe(30);
    await inThread(
      CHANNEL,
      said.message.ts,
      /Completed: scenario:complete/,
      'the final report in the thread',
    );
    const started = (await h.emulator.admin.sessions()).filter((s) => s.goal === session?.goal);
    expect(started).toHaveLength(1);
  });

  it('inside a discussion: the thread’s earlier messages become context.slack, and the card says so', async () => {
    const root = await h.driver.say({ user: BOB, channel: CHANNEL, text: 'The nightly deploy failed again' });
    await h.driver.replyInThread({
      user: CAROL,
      channel: CHANNEL,
      threadTs: root.message.ts,
      text: 'It is the migration step, see the log',
    });
    const mention = await h.driver.mention({
      user: ALICE,
      channel: CHANNEL,
      threadTs: root.message.ts,
      text: 'scenario:complete',
    });
    const { sessionId } = await cardIn(CHANNEL, root.message.ts);
    const card = await ws().waitFor(
      () => {
        const c = ws()
          .replies(CHANNEL, root.message.ts)
          .find((m) => SESSION_ID.test(textOf(m)));
        return c && /Started from this thread, with 2 earlier messages/.test(textOf(c)) ? c : undefined;
      },
      { what: 'the card saying where it came from' },
    );
    expect(card.thread_ts).toBe(root.message.ts);
    const session = await h.emulator.admin.session(sessionId);
    const slack = (session?.context as { slack?: Record<string, unknown> } | undefined)?.slack ?? {};
    expect(slack).toMatchObject({
      channelId: CHANNEL,
      threadTs: root.message.ts,
      permalink: expect.stringContaining(CHANNEL),
      messages: [
        { userId: BOB, text: 'The nightly deploy failed again', ts: root.message.ts, files: [] },
        { userId: CAROL, text: 'It is the migration step, see the log', files: [] },
      ],
    });
    expect(slack).not.toHaveProperty('cut');
    expect((slack.messages as Array<{ name: string }>).every((m) => m.name.length > 0)).toBe(true);
    expect(session?.goal).toBe('scenario:complete');
    await h.driver.waitForReaction({ channel: CHANNEL, ts: mention.message.ts, name: 'eyes' });
  });

  it('a bare mention in a thread means “help with this thread”', async () => {
    const root = await h.driver.say({ user: ALICE, channel: CHANNEL, text: 'Who owns the billing cron?' });
    await h.driver.mention({ user: ALICE, channel: CHANNEL, threadTs: root.message.ts, text: '' });
    const { sessionId } = await cardIn(CHANNEL, root.message.ts);
    expect((await h.emulator.admin.session(sessionId))?.goal).toBe('Help with this thread');
  });

  it('in a DM: a message starts a session there, and a reply in its thread answers its question', async () => {
    const said = await h.driver.dm({ user: ALICE, text: 'scenario:free_text prepare the release' });
    const dm = said.message.channel;
    const { sessionId } = await cardIn(dm, said.message.ts);
    await ws().waitFor(() => ws().replies(dm, said.message.ts).find(isPrompt), { what: 'the question' });
    const reply = await h.driver.dm({ user: ALICE, threadTs: said.message.ts, text: 'Aurora' });
    await h.driver.waitForReaction({ channel: dm, ts: reply.message.ts, name: 'white_check_mark' });
    await inThread(dm, said.message.ts, /Naming the release "Aurora"/, 'the agent using the answer');
    // The reply reached the service as the answer to the question, exactly as typed.
    const session = await h.emulator.admin.session(sessionId);
    expect(session?.goal).toBe('scenario:free_text prepare the release');
    expect(session?.humanInputs).toEqual([
      expect.objectContaining({ kind: 'free_text', status: 'responded', answer: { freeText: 'Aurora' } }),
    ]);
  });
});

describe('steering by replying', () => {
  it('a reply answers a single-choice question by its number; the question shows who answered', async () => {
    const said = await h.driver.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'scenario:single_select ship',
    });
    const { sessionId } = await cardIn(CHANNEL, said.message.ts);
    const prompt = await ws().waitFor(() => ws().replies(CHANNEL, said.message.ts).find(isPrompt), {
      what: 'the question',
    });
    const wrong = await h.driver.replyInThread({
      user: ALICE,
      channel: CHANNEL,
      threadTs: said.message.ts,
      text: 'the big one',
    });
    await h.driver.waitForReaction({ channel: CHANNEL, ts: wrong.message.ts, name: 'warning' });
    await h.waitForEphemeral(ALICE, /reply with its name or number/);
    const reply = await h.driver.replyInThread({
      user: ALICE,
      channel: CHANNEL,
      threadTs: said.message.ts,
      text: '2',
    });
    await h.driver.waitForReaction({ channel: CHANNEL, ts: reply.message.ts, name: 'eyes' });
    await h.driver.waitForReaction({ channel: CHANNEL, ts: reply.message.ts, name: 'white_check_mark' });
    await inThread(CHANNEL, said.message.ts, /Deployed to Production/, 'the agent using the choice');
    // The second option was sent (the unreadable reply was not), and the question names who chose it.
    expect((await h.emulator.admin.session(sessionId))?.humanInputs).toEqual([
      expect.objectContaining({
        kind: 'single_select',
        status: 'responded',
        answer: { choiceId: 'production' },
      }),
    ]);
    const answered = await ws().waitFor(
      () => {
        const question = ws().findMessage(CHANNEL, prompt.ts);
        return question && / answered: /.test(textOf(question)) ? question : undefined;
      },
      { what: 'the question, answered', timeoutMs: WAIT_MS },
    );
    expect(textOf(answered)).toContain('<@U0ALICE> answered: Production');
  });

  it('with no question waiting a reply redirects; !aside, edits, the bot’s own posts and an outsider’s replies are left alone', async () => {
    const said = await h.driver.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'scenario:long index the wiki --max-iterations 100000',
    });
    const { card } = await cardIn(CHANNEL, said.message.ts);
    await ws().waitFor(
      () => (/Running/.test(textOf(ws().findMessage(CHANNEL, card.ts))) ? true : undefined),
      {
        what: 'running',
      },
    );
    // Slack also sends the bot its own posts and edits: they must never steer anything.
    const stopEcho = h.driver.echoBotMessages();
    const before = await signals();
    const reply = (text: string, user = ALICE) =>
      h.driver.replyInThread({ user, channel: CHANNEL, threadTs: said.message.ts, text });

    const aside = await reply('!aside lunch after this?');
    const outsider = await reply('stop indexing, do the docs', CAROL);
    await h.waitForEphemeral(CAROL, /don't reach the agent/);
    const outsiderAgain = await reply('really, the docs', CAROL);
    const edited = await reply('!aside typo');
    await h.driver.edit({
      user: ALICE,
      channel: CHANNEL,
      ts: edited.message.ts,
      text: 'Go back to the wiki',
    });
    const redirect = await reply('Only the docs folder, please');
    await h.driver.waitForReaction({ channel: CHANNEL, ts: redirect.message.ts, name: 'white_check_mark' });
    await inThread(
      CHANNEL,
      said.message.ts,
      /<@U0ALICE> redirected the agent: Only the docs folder, please/,
      'the redirect said in the thread',
    );
    // Handled in order, so by now the earlier replies were too: exactly one signal reached the service.
    expect(await signals()).toBe(before + 1);
    stopEcho();
    for (const m of [aside, outsider, outsiderAgain, edited])
      expect(reactionsOn(CHANNEL, m.message.ts)).toEqual([]);
    expect(h.ephemeralsFor(CAROL).filter((t) => /don't reach the agent/.test(t))).toHaveLength(1);
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: card.ts, actionId: 'session_cancel' });
  });

  it('a retried event (same event_id, X-Slack-Retry-Num) acts once', async () => {
    const said = await h.driver.mention({ user: ALICE, channel: CHANNEL, text: 'scenario:long retry me' });
    const { card } = await cardIn(CHANNEL, said.message.ts);
    const before = await signals();
    // Slack re-sends an event it thinks went unanswered: the very same body, marked as a retry.
    const message = ws().post({
      channel: CHANNEL,
      user: ALICE,
      text: 'Skip the archive',
      thread_ts: said.message.ts,
    });
    const { seed } = ws();
    const body = JSON.stringify({
      token: 'sandbox-verification-token',
      team_id: seed.teamId,
      api_app_id: seed.appId,
      type: 'event_callback',
      event_id: `EvRETRY${Date.now()}`,
      event_time: Math.floor(Date.now() / 1000),
      event: h.driver.messageEvent(message),
      authorizations: [{ team_id: seed.teamId, user_id: seed.botUserId, is_bot: true }],
    });
    expect((await h.driver.send(body, 'application/json')).status).toBe(200);
    expect((await h.driver.send(body, 'application/json', { retryNum: 1 })).status).toBe(200);
    expect((await h.driver.send(body, 'application/json', { retryNum: 2 })).status).toBe(200);
    await h.driver.waitForReaction({ channel: CHANNEL, ts: message.ts, name: 'white_check_mark' });
    // A later reply, handled after the retries: only then is it safe to count.
    const later = await h.driver.replyInThread({
      user: ALICE,
      channel: CHANNEL,
      threadTs: said.message.ts,
      text: 'And the tmp folder',
    });
    await h.driver.waitForReaction({ channel: CHANNEL, ts: later.message.ts, name: 'white_check_mark' });
    expect(await signals()).toBe(before + 2);
    const notes = ws()
      .replies(CHANNEL, said.message.ts)
      .filter((m) => /redirected the agent: Skip the archive/.test(textOf(m)));
    expect(notes).toHaveLength(1);
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: card.ts, actionId: 'session_cancel' });
  });
});

/** Every text of a message Slack reads for mentions: its `text`, mrkdwn objects and markdown blocks (plain_text never pings). */
function mentionableTexts(m: SandboxMessage | undefined): string[] {
  const out = [m?.text ?? ''];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if ((o.type === 'mrkdwn' || o.type === 'markdown') && typeof o.text === 'string') out.push(o.text);
      Object.values(o).forEach(walk);
    }
  };
  walk(m?.blocks);
  return out;
}

describe('the agent surfaces', () => {
  const PINGS = /<!(channel|here|everyone|subteam)|<@U0BOB>|(^|[^\w\u2060])@(channel|here|everyone)\b/;

  it('the agent’s words go out as markdown blocks that ping nobody; 👍 on the report is recorded and acknowledged', async () => {
    // The scenario repeats its goal back ("I'll work on: …"): the agent writes these pings.
    const said = await h.driver.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'scenario:complete tell <!channel> and @here, <!subteam^S0APPROVERS|@approvers> and <@U0BOB>',
    });
    const { card, sessionId } = await cardIn(CHANNEL, said.message.ts);
    const echoed = await inThread(CHANNEL, said.message.ts, /I'll work on/, 'the agent repeating its goal');
    // One markdown block per agent message (a thread that is behind gets several messages in one post).
    const types = (echoed.blocks ?? []).map((b) => (b as { type: string }).type);
    expect(types.length).toBeGreaterThan(0);
    expect(new Set(types)).toEqual(new Set(['markdown']));
    const report = await ws().waitFor(
      () =>
        ws()
          .replies(CHANNEL, said.message.ts)
          .find((m) => (m.blocks ?? []).some((b) => (b as { type: string }).type === 'context_actions')),
      { what: 'the report with feedback buttons', timeoutMs: patient(20_000) },
    );
    for (const m of ws().replies(CHANNEL, said.message.ts)) {
      if (m.bot_id === undefined) continue;
      for (const text of mentionableTexts(m)) expect(text, 'a bot message').not.toMatch(PINGS);
    }
    for (const text of mentionableTexts(h.card(card.ts))) expect(text).not.toMatch(PINGS);

    await h.driver.act({
      user: BOB,
      channel: CHANNEL,
      ts: report.ts,
      actionId: 'session_feedback',
      value: 'good',
    });
    await h.waitForEphemeral(BOB, /Thanks — noted 👍/);
    expect(await h.store.feedback.counts(sessionId)).toEqual({ good: 1, bad: 0 });
    const metrics = await (await fetch(`${h.bot.url}/metrics`)).text();
    expect(metrics).toMatch(/agent_report_feedback_total\{value="good"\} 1/);
  });

  it('the card’s “now” line shows the current step while the session works', async () => {
    const said = await h.driver.mention({ user: ALICE, channel: CHANNEL, text: 'scenario:long keep going' });
    const { card } = await cardIn(CHANNEL, said.message.ts);
    await ws().waitFor(
      () =>
        /Now:\*? (🔧 process_batch|Step \d+)/.test(textOf(ws().findMessage(CHANNEL, card.ts)))
          ? true
          : undefined,
      { what: 'the now line', timeoutMs: patient(15_000) },
    );
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: card.ts, actionId: 'session_cancel' });
    await ws().waitFor(
      () => (/Cancelled/.test(textOf(ws().findMessage(CHANNEL, card.ts))) ? true : undefined),
      { what: 'cancelled' },
    );
    expect(textOf(h.card(card.ts))).not.toMatch(/Now:/);
  });
});
