import { expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { ALICE, CHANNEL, textOf } from './harness.js';
import { duplicates, isPrompt, postKeys } from './helpers.js';

const world = useBotProcesses({ emulatorSpeed: 5, store: { dataDirPrefix: 'bot-code-channel-' } });
const start = () => world.spawn(world.env());

it(
  '/agent start --channel: the session works in its own channel through a question answered there, a SIGKILL and its end; the summary comes back to the origin thread once',
  async () => {
    const { sandbox } = world;
    const ws = sandbox.workspace;
    let bot = await start();
    let driver = sandbox.driver(bot.eventsUrl);
    const started = await driver.command({
      user: ALICE,
      channel: CHANNEL,
      text: 'start --channel scenario:free_text prepare the release',
    });
    expect(started.status).toBe(200);
    const card = await ws.waitFor(
      () =>
        (ws.messages.get(CHANNEL) ?? []).find(
          (m) => !m.thread_ts && /prepare the release/.test(textOf(m)) && /session `/.test(textOf(m)),
        ),
      { what: 'the card, with its session' },
    );
    const sessionId = /session `([^`]+)`/.exec(textOf(card))?.[1] as string;
    const home = await ws.waitFor(() => ws.codeChannels.bySession(sessionId), {
      what: "the session's own channel",
    });
    const channel = home.channelId;
    // Named in Slack's channel-name characters; public, as the channel it was started in is.
    expect(ws.channels.get(channel)).toMatchObject({ is_private: false });
    expect(ws.channels.get(channel)?.name).toMatch(/^agent-[a-z0-9_-]{1,74}$/);
    // Linked to the card, the starter invited, the agent's commands registered (each its own call, after
    // the channel is made).
    expect(home.origin).toEqual({ channel_id: CHANNEL, ts: card.ts });
    await ws.waitFor(() => (ws.members(channel) ?? []).includes(ALICE) && home.commands.length > 0, {
      what: 'the starter invited and the commands registered',
    });
    expect(home.commands.map((c) => c.name)).toEqual([
      'pause',
      'resume',
      'cancel',
      'redirect',
      'budget',
      'agent-status',
    ]);
    // The agent posts in the channel, not in a thread; the question comes there too.
    const prompt = await ws.waitFor(() => (ws.messages.get(channel) ?? []).find(isPrompt), {
      what: 'the question in the channel',
      timeoutMs: patient(30_000),
    });
    expect(prompt.thread_ts).toBeUndefined();
    await ws.waitFor(() => home.contextBar.find((i) => i.key === 'status'), { what: 'the context bar' });
    expect(home.contextBar.map((i) => i.key)).toEqual(['status', 'cost', 'rounds', 'pause_resume', 'cancel']);
    expect(home.contextBar.filter((i) => i.icon !== undefined)).toEqual([]);
    // The agent's tool call, as the thread's stream shows one: a card, done, with what it returned.
    const cards = (ws.messages.get(channel) ?? []).flatMap((m) =>
      (m.blocks ?? []).filter((b) => (b as { type?: string }).type === 'task_card'),
    );
    expect(cards).toContainEqual(
      expect.objectContaining({
        type: 'task_card',
        title: 'search_docs',
        status: 'complete',
        details: expect.anything(),
      }),
    );
    expect(cards.filter((c) => (c as { status?: string }).status === 'in_progress')).toEqual([]);
    expect(JSON.stringify((ws.messages.get(channel) ?? []).map((m) => m.blocks ?? []))).not.toMatch(/🔧|↳/);

    await bot.kill('SIGKILL');
    bot = await start();
    driver = sandbox.driver(bot.eventsUrl);
    const reply = await driver.say({ user: ALICE, channel, text: 'Aurora' });
    await driver.waitForReaction({ channel, ts: reply.message.ts, name: 'white_check_mark' });
    // An aside stays out of the agent's way.
    const aside = await driver.say({ user: ALICE, channel, text: '!aside lunch at noon?' });

    await ws.waitFor(() => home.archived || undefined, {
      what: 'the channel archived at the end',
      timeoutMs: patient(60_000),
    });
    const posts = ws.messages.get(channel) ?? [];
    expect(posts.some((m) => /Naming the release "Aurora"/.test(textOf(m)))).toBe(true);
    const report = posts.find((m) => /Release "Aurora" prepared/.test(textOf(m)));
    expect(report?.thread_ts).toBeUndefined();
    expect(duplicates(postKeys(posts))).toEqual([]);
    expect(ws.findMessage(channel, aside.message.ts)?.reactions ?? []).toEqual([]);
    // The report is the channel's summary, shared back as a reply on the card, once.
    expect(home.summaryMessage).toEqual({ message_ts: report?.ts });
    const origin = ws.replies(CHANNEL, card.ts);
    expect(origin.filter((m) => /Release "Aurora" prepared/.test(textOf(m)))).toHaveLength(1);
    expect(origin.filter((m) => /The agent works on this in/.test(textOf(m)))).toHaveLength(1);
    // Nothing of the agent's work went to the origin thread.
    expect(origin.some((m) => /Naming the release/.test(textOf(m)))).toBe(false);
    // Ended: the bar says how long it ran, names who started it, and offers no Pause or Cancel.
    expect(home.contextBar.map((i) => i.label)).toEqual([
      'Ended · Completed',
      expect.stringMatching(/^Cost \$/),
      expect.stringMatching(/rounds?$/),
      expect.stringMatching(/^Ran \d/),
      `Started by <@${ALICE}>`,
    ]);
    // Its tabs: the plan (statuses in words), the questions (answered by Alice), the report as a canvas.
    expect(JSON.stringify(home.views.find((v) => v.view_key === 'plan')?.blocks)).not.toMatch(
      /waiting_human|· completed/,
    );
    expect(home.views.map((v) => v.view_key).sort()).toEqual(['plan', 'questions', 'report']);
    const questions = home.views.find((v) => v.view_key === 'questions');
    expect(JSON.stringify(questions?.blocks)).toContain('answered by <@U0ALICE>');
    const canvasId = home.views.find((v) => v.view_key === 'report')?.canvas_id as string;
    expect(ws.codeChannels.canvases.get(canvasId)?.content).toMatch(/Release "Aurora" prepared/);
    expect(ws.findMessage(CHANNEL, card.ts)?.text ?? '').toMatch(/Completed|completed/);
  },
  patient(150_000),
);

it(
  'where the workspace refuses code channels: the session runs in its thread, the reason logged once',
  async () => {
    const { sandbox, output } = world;
    const ws = sandbox.workspace;
    ws.codeChannels.configure('off');
    const bot = await start();
    const driver = sandbox.driver(bot.eventsUrl);
    const before = ws.codeChannels.all().length;
    await driver.command({
      user: ALICE,
      channel: CHANNEL,
      text: 'start --channel scenario:complete tidy the docs',
    });
    const card = await ws.waitFor(
      () =>
        (ws.messages.get(CHANNEL) ?? []).find(
          (m) => !m.thread_ts && /tidy the docs/.test(textOf(m)) && /session `/.test(textOf(m)),
        ),
      { what: 'the card' },
    );
    await ws.waitFor(() => ws.replies(CHANNEL, card.ts).find((m) => /Completed/.test(textOf(m))), {
      what: 'the report in the thread',
      timeoutMs: patient(30_000),
    });
    expect(ws.codeChannels.all()).toHaveLength(before);
    const refusals = output.filter((l) => /Slack refused a channel of its own/.test(l));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain('missing_scope');
    ws.codeChannels.configure('on');
  },
  patient(90_000),
);
