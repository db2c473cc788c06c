import { describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, CHANNEL, textOf, useHarness } from './harness.js';
import { actionIds, duplicates, HUMAN_INPUT_ROUTE, isPrompt, postKeys } from './helpers.js';

// One emulator (10× speed), one sandbox Slack and one bot process-in-test for the whole file; every
// interaction goes over HTTP exactly as Slack sends it, signed.
const h = useHarness();

const humanInputPosts = async () => (await h.emulator.admin.stats()).requests[HUMAN_INPUT_ROUTE] ?? 0;

describe('a session from start to finish', () => {
  it('complete: card edited to the final state, every message once in the thread, then the report', async () => {
    const { sessionId, cardTs } = await h.start('scenario:complete summarize the release notes');
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'the card to show Completed');
    const report = await h.waitInThread(
      cardTs,
      (m) => /Completed/.test(textOf(m)) && /cost \$/.test(textOf(m)),
      'the report',
    );
    const thread = h.thread(cardTs);
    expect(duplicates(postKeys(thread))).toEqual([]);
    const emulated = await h.emulator.admin.session(sessionId);
    // Every message the agent wrote is in the thread (tool call + result pairs are two messages, two posts).
    const agentPosts = postKeys(thread).filter((k) => k.startsWith('msg:'));
    expect(agentPosts.length).toBe(emulated?.messageCount);
    expect(textOf(report)).toMatch(/summary|Summary|release notes/i);
    const card = h.card(cardTs);
    expect(actionIds(card)).toEqual([]); // no controls on a finished card
    expect(textOf(card)).toContain(`<@${ALICE}>`);
  });
});

describe('approval', () => {
  it('Approve by the starter: one answer sent, prompt edited to who approved and when, session completes', async () => {
    const before = await humanInputPosts();
    const { cardTs } = await h.start('scenario:approval deploy the docs');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    expect(textOf(prompt)).toContain(`<@${ALICE}>`);
    expect(actionIds(prompt)).toEqual(['input_approve', 'input_reject']);
    const click = await h.driver.act({
      user: ALICE,
      channel: CHANNEL,
      ts: prompt.ts,
      actionId: 'input_approve',
    });
    expect(click.status).toBe(200);
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /Approved by <@U0ALICE>/.test(textOf(m)),
      'the answered prompt',
    );
    expect(actionIds(h.thread(cardTs).find((m) => m.ts === prompt.ts))).toEqual([]);
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'completion');
    expect((await humanInputPosts()) - before).toBe(1);
  });

  it('someone not allowed gets an ephemeral refusal and nothing reaches the service', async () => {
    const { cardTs } = await h.start('scenario:approval publish the post');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    const before = await humanInputPosts();
    await h.driver.act({ user: CAROL, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitForEphemeral(CAROL, /Only <@U0ALICE>/);
    expect(await humanInputPosts()).toBe(before);
    expect(actionIds(h.thread(cardTs).find((m) => m.ts === prompt.ts))).toContain('input_approve');
    // An approver by user group may answer.
    await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /Approved by <@U0BOB>/.test(textOf(m)),
      'approved by Bob',
    );
  });

  it('clicked twice and by two people at once: exactly one answer, the others told who answered', async () => {
    const { cardTs } = await h.start('scenario:approval rotate the keys');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    const before = await humanInputPosts();
    const click = (user: string) =>
      h.driver.act({ user, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await Promise.all([click(ALICE), click(BOB), click(ALICE), click(BOB)]);
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /Approved by/.test(textOf(m)),
      'the answered prompt',
    );
    await h.sandbox.workspace.waitFor(
      () =>
        h
          .ephemeralsFor(ALICE)
          .concat(h.ephemeralsFor(BOB))
          .filter((t) => /Already (being )?answered by/.test(t)).length >= 3,
      { what: 'three "already answered" ephemerals' },
    );
    expect((await humanInputPosts()) - before).toBe(1);
  });

  it('a service error on answering is shown privately and the prompt stays answerable', async () => {
    const { cardTs } = await h.start('scenario:approval migrate the database');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    await h.emulator.admin.setFaults({
      burst5xx: 1,
      status5xx: 500,
      pathPattern: '^POST /v1/sessions/[^/]+/human-input/',
    });
    try {
      await h.driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
      await h.waitForEphemeral(ALICE, /not accepted: the service answered 500.*still open/s);
    } finally {
      await h.emulator.admin.clearFaults();
    }
    expect(actionIds(h.thread(cardTs).find((m) => m.ts === prompt.ts))).toContain('input_approve');
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /Approved by <@U0ALICE>/.test(textOf(m)),
      'approved on the second try',
    );
  });

  it('Reject opens a form; the reason goes with approved: false', async () => {
    const { sessionId, cardTs } = await h.start('scenario:approval drop the table');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    const modal = await h.pressForModal(ALICE, prompt.ts, 'input_reject', 'the reject modal');
    const submitted = await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { reason: { value: 'Not on a Friday' } },
    });
    expect(submitted.status).toBe(200);
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /Rejected by <@U0ALICE>: Not on a Friday/.test(textOf(m)),
      'rejected',
    );
    // The agent got approved: false with the reason as freeText: it says so in the thread.
    await h.waitInThread(
      cardTs,
      (m) => /Reason noted: Not on a Friday/.test(textOf(m)),
      'the agent quoting the reason',
    );
    expect(await h.emulator.admin.session(sessionId)).toBeDefined();
  });
});

describe('choices and forms', () => {
  it('single choice: one button per option; the click answers with that option', async () => {
    const { cardTs } = await h.start('scenario:single_select ship it');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the choice prompt');
    expect(actionIds(prompt)).toEqual(['input_choose_0', 'input_choose_1', 'input_choose_2']);
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_choose_2' });
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /answered: Canary/.test(textOf(m)),
      'answered Canary',
    );
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'completion');
  });

  it('multi choice: too many picks is refused with the rule (prompt stays), a valid pick answers', async () => {
    const { cardTs } = await h.start('scenario:multi_select roll out');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the multi-choice prompt');
    expect(actionIds(prompt)).toEqual(['input_multi_choice', 'input_submit_choices']);
    const before = await humanInputPosts();
    h.driver.choose({
      user: ALICE,
      channel: CHANNEL,
      ts: prompt.ts,
      actionId: 'input_multi_choice',
      value: ['0', '1', '2'],
    });
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_submit_choices' });
    await h.waitForEphemeral(ALICE, /Choose at most 2 options/);
    expect(await humanInputPosts()).toBe(before);
    h.driver.choose({
      user: ALICE,
      channel: CHANNEL,
      ts: prompt.ts,
      actionId: 'input_multi_choice',
      value: ['0', '2'],
    });
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_submit_choices' });
    await h.waitInThread(
      cardTs,
      (m) => m.ts === prompt.ts && /Europe, Asia Pacific/.test(textOf(m)),
      'answered two regions',
    );
    await h.waitInThread(cardTs, (m) => /Deployed to eu, ap/.test(textOf(m)), 'the agent using the answer');
  });

  it('free text: the Answer form refuses an empty answer inline, then sends the text', async () => {
    const { cardTs } = await h.start('scenario:free_text name the release');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the free-text prompt');
    const modal = await h.pressForModal(ALICE, prompt.ts, 'input_answer', 'the answer modal');
    const empty = await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { answer: { value: '   ' } },
    });
    expect(empty.body).toMatchObject({
      response_action: 'errors',
      errors: { answer: expect.stringMatching(/type an answer/i) },
    });
    const sent = await h.driver.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { answer: { value: 'Aurora <3 & co' } },
    });
    expect(sent.status).toBe(200);
    await h.waitInThread(
      cardTs,
      (m) => /Naming the release "Aurora &lt;3 &amp; co"/.test(textOf(m)),
      'the agent using the name',
    );
  });

  it('multi-question: one input per question; the required one is enforced inline', async () => {
    const { cardTs } = await h.start('scenario:multi_question publish');
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the multi-question prompt');
    const modal = await h.pressForModal(BOB, prompt.ts, 'input_answer', 'the answer modal');
    const missing = await h.driver.submitView({
      user: BOB,
      viewId: modal.id,
      values: { q_1: { value: '1' } },
    });
    expect(missing.body).toMatchObject({
      response_action: 'errors',
      errors: { q_0: expect.stringMatching(/Release name\?/) },
    });
    await h.driver.submitView({
      user: BOB,
      viewId: modal.id,
      values: { q_0: { value: 'Borealis' }, q_1: { value: '1' } },
    });
    await h.waitInThread(
      cardTs,
      (m) => /Publishing "Borealis" to beta/.test(textOf(m)),
      'the agent using both answers',
    );
  });
});
