import { AgentSessionsClient } from '@agent-sessions/core';
import { agentMessageText } from '@agent-sessions/slack-bot';
import { expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { ALICE, API_KEY, CHANNEL, textOf } from './harness.js';
import { actionIds, duplicates, isPrompt, postKeys } from './helpers.js';
import { expectNoSecrets, secretsOf } from './secrets.js';

const world = useBotProcesses({ emulatorSpeed: 5, store: { dataDirPrefix: 'bot-restart-' } });
const start = () => world.spawn(world.env());

it(
  'SIGKILLed twice (mid-work and with a question pending): nothing lost, nothing twice, the question answerable',
  async () => {
    const { emulator, sandbox, output } = world;
    const ws = sandbox.workspace;
    let bot = await start();
    let driver = sandbox.driver(bot.eventsUrl);
    await driver.command({ user: ALICE, channel: CHANNEL, text: 'start' });
    const modal = await ws.waitFor(() => driver.openModal(ALICE), { what: 'the start modal' });
    await driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: {
        goal: { value: 'scenario:approval release after a warm-up' },
        context: { value: '{"workSteps": 20}' },
      },
    });
    const card = await ws.waitFor(
      () =>
        (ws.messages.get(CHANNEL) ?? []).find(
          (m) => !m.thread_ts && /release after a warm-up/.test(textOf(m)) && /session `/.test(textOf(m)),
        ),
      { what: 'the card, with its session' },
    );
    const sessionId = /session `([^`]+)`/.exec(textOf(card))?.[1] as string;
    // Killed well before the question (20 steps of about 3 s each): the work after the restart is posted.
    await ws.waitFor(() => ws.replies(CHANNEL, card.ts).length >= 3, {
      what: 'some work in the thread',
      timeoutMs: patient(20_000),
    });

    await bot.kill('SIGKILL');
    const postedWhileDown = ws.replies(CHANNEL, card.ts).length;
    bot = await start();
    driver = sandbox.driver(bot.eventsUrl);
    const prompt = await ws.waitFor(() => ws.replies(CHANNEL, card.ts).find(isPrompt), {
      what: 'the approval prompt after the restart',
      timeoutMs: patient(60_000),
    });
    expect(ws.replies(CHANNEL, card.ts).length).toBeGreaterThan(postedWhileDown);

    await bot.kill('SIGKILL');
    bot = await start();
    driver = sandbox.driver(bot.eventsUrl);
    const click = await driver.act({
      user: ALICE,
      channel: CHANNEL,
      ts: prompt.ts,
      actionId: 'input_approve',
    });
    expect(click.status).toBe(200);
    await ws.waitFor(() => /Approved by <@U0ALICE>/.test(textOf(ws.findMessage(CHANNEL, prompt.ts))), {
      what: 'the answered prompt',
    });
    await ws.waitFor(() => /Completed/.test(textOf(ws.findMessage(CHANNEL, card.ts))), {
      what: 'completion',
      timeoutMs: patient(30_000),
    });
    await ws.waitFor(
      () =>
        ws
          .replies(CHANNEL, card.ts)
          .find((m) => /Deployed v2\.3\.1 to production after approval/.test(textOf(m))),
      {
        what: 'the final report',
      },
    );

    const thread = ws.replies(CHANNEL, card.ts);
    expect(duplicates(postKeys(thread))).toEqual([]);
    // Every message the agent wrote that is shown as text is in the thread exactly once.
    const client = new AgentSessionsClient({ baseUrl: emulator.url, apiKey: API_KEY });
    const shown: string[] = [];
    for await (const m of client.sessions.listMessages(sessionId)) {
      if (agentMessageText(m.message, { showReasoning: false })) shown.push(m.key);
    }
    const messageKeys = postKeys(thread).filter((k) => k.startsWith('msg:'));
    expect(messageKeys).toHaveLength(shown.length);
    expect(thread.filter((m) => /The agent ask/.test(textOf(m)))).toHaveLength(1);
    expect(actionIds(ws.findMessage(CHANNEL, prompt.ts))).toEqual([]);
    expectNoSecrets(output, secretsOf(sandbox));
  },
  patient(150_000),
);
