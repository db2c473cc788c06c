/**
 * A question the client can't read, end to end: the emulator's agent asks in a shape our client doesn't read
 * (an MCP-style elicitation), so the session waits on a person with no question anyone could parse. The bot
 * must still say so in the thread, with the raw data and something to click, and the click must reach the
 * service.
 */
import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { ALICE, CHANNEL, textOf, useHarness } from './harness.js';
import { actionIds, HUMAN_INPUT_ROUTE, SIGNAL_ROUTE } from './helpers.js';

const h = useHarness();

const requests = async (route: string) => (await h.emulator.admin.stats()).requests[route] ?? 0;
const isUnreadableNotice = (m: SandboxMessage) =>
  /could not be read/.test(textOf(m)) && actionIds(m).length > 0;

/** The mrkdwn of the message's sections, as a person reads them (not JSON-escaped). */
const sectionTexts = (m: SandboxMessage | undefined): string[] =>
  ((m?.blocks ?? []) as Array<{ type?: string; text?: { text?: string } }>)
    .filter((b) => b.type === 'section')
    .map((b) => b.text?.text ?? '');

/** Starts the scenario and waits for the notice; returns it with the id the emulator asked under. */
async function startUnreadable(goal: string) {
  const { sessionId, cardTs } = await h.start(`scenario:unreadable_question ${goal}`);
  const notice = await h.waitInThread(cardTs, isUnreadableNotice, 'the "could not be read" notice');
  const asked = (await h.emulator.admin.session(sessionId))?.humanInputs ?? [];
  expect(asked).toHaveLength(1);
  return { sessionId, cardTs, notice, inputId: String(asked[0]?.inputId) };
}

describe('a question that can’t be read is still a question', () => {
  it('is said in the thread with the raw JSON; Answer as text sends exactly the text as freeText, and the session completes', async () => {
    const answersBefore = await requests(HUMAN_INPUT_ROUTE);
    const { sessionId, cardTs, notice, inputId } = await startUnreadable('migrate the orders table');

    const [said, excerpt] = sectionTexts(notice);
    expect(said).toContain(`<@${ALICE}>`);
    expect(said).toMatch(/The agent is waiting for an answer that could not be read/);
    // An excerpt of what the service sent, as JSON in a code block: the foreign question and its id in it.
    expect(excerpt).toMatch(/^```\{\n\s+"rounds": \[/);
    expect(excerpt).toContain(`"requestId": "${inputId}"`);
    expect(actionIds(notice)).toEqual(['input_answer', 'session_cancel']);
    expect(textOf(notice)).toMatch(/"text":"Answer as text"/);
    expect(textOf(notice)).toMatch(/"text":"Cancel"/);

    const modal = await h.pressForModal(ALICE, notice.ts, 'input_answer', 'the answer modal');
    const text = 'Sunday 02:00 UTC — after the "nightly" backup';
    const sent = await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { answer: { value: text } },
    });
    expect(sent.status).toBe(200);

    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'the card to show Completed');
    await h.waitInThread(
      cardTs,
      (m) => textOf(m).includes('Got it: Sunday 02:00 UTC'),
      'the agent quoting it',
    );
    // The emulator got one answer, to the id it asked under, with exactly the text as freeText.
    const emulated = await h.emulator.admin.session(sessionId);
    expect(emulated?.status).toBe('completed');
    expect(emulated?.humanInputs).toEqual([
      { inputId, kind: 'free_text', status: 'responded', answer: { freeText: text } },
    ]);
    expect((await requests(HUMAN_INPUT_ROUTE)) - answersBefore).toBe(1);
    // The notice now says who answered what, its buttons gone; it was posted once.
    const answered = h.thread(cardTs).find((m) => m.ts === notice.ts);
    expect(textOf(answered)).toContain(`<@${ALICE}> answered: Sunday 02:00 UTC`);
    expect(actionIds(answered)).toEqual([]);
    expect(h.thread(cardTs).filter((m) => /could not be read/.test(textOf(m)))).toHaveLength(1);
    expect(actionIds(h.card(cardTs))).toEqual([]);
  });

  it('Cancel on the notice cancels the session, and nothing is answered', async () => {
    const answersBefore = await requests(HUMAN_INPUT_ROUTE);
    const signalsBefore = await requests(SIGNAL_ROUTE);
    const { sessionId, cardTs, notice, inputId } = await startUnreadable('rename the column');

    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: notice.ts, actionId: 'session_cancel' });
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'the card to show Cancelled');
    await h.waitInThread(cardTs, (m) => /<@U0ALICE> cancelled the session/.test(textOf(m)), 'who cancelled');
    const emulated = await h.emulator.admin.session(sessionId);
    expect(emulated?.status).toBe('cancelled');
    expect(emulated?.humanInputs).toEqual([{ inputId, kind: 'free_text', status: 'superseded' }]);
    expect((await requests(SIGNAL_ROUTE)) - signalsBefore).toBe(1);
    expect(await requests(HUMAN_INPUT_ROUTE)).toBe(answersBefore);
    expect(actionIds(h.card(cardTs))).toEqual([]);
  });
});
