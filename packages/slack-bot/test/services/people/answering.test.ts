import { describe, expect, it } from 'vitest';
import { encodeRef, REF_LIMITS } from '../../../src/refs.js';
import { AnsweringService, type RawAnswer } from '../../../src/services/people/answering.js';
import { alreadyAnswered, fakeWorld, request, serverError, session, storeTouches } from '../../fakes.js';

function setup() {
  const world = fakeWorld();
  const answering = new AnsweringService({
    client: world.service,
    prompts: world.prompts,
    slack: world.slack,
    policy: world.policy,
    visibility: world.visibility,
    notifier: world.notifier,
    metrics: world.metrics,
    logger: world.logger,
  });
  world.sessions.add(session());
  return { ...world, answering };
}

const ref = (extra: { option?: number } = {}) =>
  encodeRef({ sessionId: 'sess_1', inputId: 'in_1', ...extra });
const click = (answer: RawAnswer, extra: { ref?: string; userId?: string } = {}) => ({
  ref: extra.ref ?? ref(),
  userId: extra.userId ?? 'U0ALICE',
  answer,
});
const options = [
  { id: 'eu-west-with-a-very-long-id', label: 'Europe' },
  { id: 'us-east', label: 'US East' },
  { id: 'ap', label: 'Asia' },
];

describe('AnsweringService', () => {
  it('answers a click: one read, a claim and a completion in the store, one call to the service', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('approval'));
    expect(await w.answering.answer(click({ kind: 'approve' }))).toEqual({ ok: true });
    expect(storeTouches(w.calls)).toEqual(['prompts.find', 'prompts.claim', 'prompts.complete']);
    expect(w.calls.filter(([m]) => m === 'service.respond')).toEqual([
      ['service.respond', 'sess_1', 'in_1', { approved: true }],
    ]);
    // The prompt now says who approved, and its buttons are gone.
    const [edit] = w.slack.of('chat.update');
    expect(edit).toMatchObject({ channel: 'C0AGENTS', ts: '1700000000.000200' });
    expect(JSON.stringify(edit?.blocks)).toContain('Approved by <@U0ALICE>');
    expect(JSON.stringify(edit?.blocks)).not.toContain('input_approve');
    expect(w.pokes).toEqual(['sess_1']);
  });

  it.each<[string, RawAnswer, string | undefined, object]>([
    ['a choice button (index in the ref)', { kind: 'option' }, ref({ option: 1 }), { choiceId: 'us-east' }],
    ['a select (index as its value)', { kind: 'option', index: 0 }, undefined, { choiceId: options[0]?.id }],
  ])('maps %s to the option id', async (_name, answer, withRef, sent) => {
    const w = setup();
    w.prompts.add('sess_1', request('single_select', { options }));
    expect(await w.answering.answer(click(answer, withRef ? { ref: withRef } : {}))).toEqual({ ok: true });
    expect(w.calls.find(([m]) => m === 'service.respond')?.[3]).toEqual(sent);
  });

  it('maps picked checkboxes to ids and refuses too many with the rule; the question stays open', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('multi_select', { options, minSelections: 1, maxSelections: 2 }));
    const tooMany = await w.answering.answer(click({ kind: 'options', indexes: [0, 1, 2] }));
    expect(tooMany).toMatchObject({ ok: false, message: expect.stringMatching(/at most 2/) });
    expect(w.calls.some(([m]) => m === 'prompts.claim' || m === 'service.respond')).toBe(false);
    expect(await w.answering.answer(click({ kind: 'options', indexes: [2, 0] }))).toEqual({ ok: true });
    expect(w.calls.find(([m]) => m === 'service.respond')?.[3]).toEqual({
      choiceIds: ['ap', options[0]?.id],
    });
  });

  it('finds a prompt by its short key when the ref was too long for a block_id', async () => {
    const w = setup();
    const longId = `in_${'x'.repeat(300)}`;
    w.prompts.add('sess_1', request('single_select', { inputId: longId, options }));
    const keyed = encodeRef({ sessionId: 'sess_1', inputId: longId }, REF_LIMITS.blockId);
    expect(keyed.length).toBeLessThanOrEqual(255);
    expect(await w.answering.answer(click({ kind: 'option', index: 2 }, { ref: keyed }))).toEqual({
      ok: true,
    });
    expect(w.calls.find(([m]) => m === 'service.respond')).toEqual([
      'service.respond',
      'sess_1',
      longId,
      { choiceId: 'ap' },
    ]);
  });

  it('refuses whom the policy refuses, before anything is claimed or sent', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('approval'));
    w.policy.verdict = { allowed: false, reason: 'Only <@U0ALICE> can do that.' };
    expect(await w.answering.answer(click({ kind: 'approve' }, { userId: 'U0CAROL' }))).toEqual({
      ok: false,
      message: 'Only <@U0ALICE> can do that.',
    });
    expect(w.policy.asked).toEqual(['U0CAROL']);
    expect(storeTouches(w.calls)).toEqual(['prompts.find']);
  });

  it('to someone who may not see the session, a question is as unknown as one that never was; nothing is claimed or sent', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('approval'));
    w.prompts.add('sess_1', request('approval', { inputId: 'in_2' }), {
      state: 'answered',
      answeredBy: 'U0BOB',
    });
    w.visibility.hidden.add('U0CAROL');
    w.policy.verdict = { allowed: false, reason: 'Only <@U0ALICE> can do that.' };
    const unknown = await w.answering.answer(
      click({ kind: 'approve' }, { ref: encodeRef({ sessionId: 'nope', inputId: 'x' }), userId: 'U0CAROL' }),
    );
    expect(unknown).toEqual({ ok: false, message: 'This question is not known here any more.' });
    // Open or answered, from a DM or App Home: the same words — not who started it, not who answered.
    for (const inputId of ['in_1', 'in_2']) {
      const carol = click(
        { kind: 'approve' },
        { ref: encodeRef({ sessionId: 'sess_1', inputId }), userId: 'U0CAROL' },
      );
      expect(await w.answering.answer(carol)).toEqual(unknown);
      expect(await w.answering.answer({ ...carol, seenIn: 'D0CAROL' })).toEqual(unknown);
      expect(await w.answering.openForm(carol.ref, 'U0CAROL')).toEqual(unknown);
    }
    expect(w.policy.asked).toEqual([]);
    expect(w.calls.some(([m]) => m === 'prompts.claim' || m.startsWith('service.'))).toBe(false);
    // Clicking in the session's own channel (a Slack Connect guest looking at the prompt): told why.
    expect(
      await w.answering.answer({ ...click({ kind: 'approve' }, { userId: 'U0CAROL' }), seenIn: 'C0AGENTS' }),
    ).toEqual({
      ok: false,
      message: 'Only <@U0ALICE> can do that.',
    });
    expect(await w.answering.openForm(ref(), 'U0CAROL', 'C0AGENTS')).toEqual({
      ok: false,
      message: '🚫 Only <@U0ALICE> can do that.',
    });
  });

  it('says who answered when the question was answered, and that it is unknown when it is', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('approval'), { state: 'answered', answeredBy: 'U0BOB' });
    expect(await w.answering.answer(click({ kind: 'approve' }))).toEqual({
      ok: false,
      message: 'Already answered by <@U0BOB>.',
    });
    expect(
      await w.answering.answer(click({ kind: 'approve' }, { ref: '{"sessionId":"nope","inputId":"x"}' })),
    ).toEqual({
      ok: false,
      message: 'This question is not known here any more.',
    });
    expect(await w.answering.answer(click({ kind: 'approve' }, { ref: 'garbage' }))).toMatchObject({
      ok: false,
    });
    expect(w.calls.some(([m]) => m === 'service.respond')).toBe(false);
  });

  it('lets the first of two answers win; the second is told who is answering', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('approval'));
    const first = await w.answering.claim(click({ kind: 'approve' }));
    const second = await w.answering.answer(click({ kind: 'approve' }, { userId: 'U0BOB' }));
    expect(first.ok).toBe(true);
    expect(second).toEqual({ ok: false, message: 'Already being answered by <@U0ALICE>.' });
  });

  it('opens the question again when the service fails, and says so', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('approval'));
    w.service.respondError = serverError();
    const result = await w.answering.answer(click({ kind: 'approve' }));
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringMatching(/not accepted.*500.*still open/),
    });
    expect(w.prompts.records.get('sess_1|in_1')?.state).toBe('pending');
    expect(w.slack.of('chat.update')).toEqual([]);
  });

  it('closes a question answered outside Slack and shows it so', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('approval'));
    w.service.respondError = alreadyAnswered();
    expect(await w.answering.answer(click({ kind: 'approve' }))).toEqual({
      ok: false,
      message: 'This question was already answered outside Slack.',
    });
    expect(w.prompts.records.get('sess_1|in_1')?.state).toBe('answered');
    expect(JSON.stringify(w.slack.of('chat.update')[0]?.blocks)).toContain('Answered outside Slack');
  });

  it('uses the clicked message when the prompt’s ts was never recorded', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('approval'), { messageTs: null });
    await w.answering.answer({ ...click({ kind: 'approve' }), clickedTs: '1700000000.000777' });
    expect(w.slack.of('chat.update')[0]).toMatchObject({ ts: '1700000000.000777' });
  });

  it('takes typed text as a free-text answer (thread replies, Answer as text)', async () => {
    const w = setup();
    w.prompts.add('sess_1', request('free_text'));
    expect(await w.answering.answer(click({ kind: 'text', text: 'ship it on Friday' }))).toEqual({
      ok: true,
    });
    expect(w.calls.find(([m]) => m === 'service.respond')?.[3]).toEqual({ freeText: 'ship it on Friday' });
  });

  describe('forms', () => {
    it('opens Reject for an approval and Answer for free text, only while open and allowed', async () => {
      const w = setup();
      w.prompts.add('sess_1', request('approval'));
      w.prompts.add('sess_1', request('free_text', { inputId: 'in_2' }));
      const reject = await w.answering.openForm(ref(), 'U0ALICE');
      expect(reject.ok && reject.view.callback_id).toBe('reject_input');
      const answer = await w.answering.openForm(
        encodeRef({ sessionId: 'sess_1', inputId: 'in_2' }),
        'U0ALICE',
      );
      expect(answer.ok && answer.view.callback_id).toBe('answer_input');
      w.policy.verdict = { allowed: false, reason: 'Only <@U0ALICE>.' };
      expect(await w.answering.openForm(ref(), 'U0CAROL')).toEqual({
        ok: false,
        message: '🚫 Only <@U0ALICE>.',
      });
    });

    it('maps a multi-question form to answers, shows problems under their inputs, sends after close', async () => {
      const w = setup();
      w.prompts.add(
        'sess_1',
        request('multi_question', {
          questions: [
            { id: 'name', prompt: 'Name?', kind: 'free_text', required: true },
            { id: 'region', prompt: 'Region?', kind: 'single_select', required: true, options },
            { id: 'extra', prompt: 'More?', kind: 'multi_select', required: false, options },
          ],
        }),
      );
      const form = (values: Record<string, string | string[] | undefined>) =>
        w.answering.submitForm(click({ kind: 'form', values }));
      const missing = await form({ q_0: undefined, q_1: '1' });
      expect(missing).toMatchObject({ ok: false, errors: { q_0: expect.any(String) } });
      const ok = await form({ q_0: 'v2.3.1', q_1: '1', q_2: ['2'] });
      if (!ok.ok) throw new Error(JSON.stringify(ok.errors));
      expect(w.calls.some(([m]) => m === 'service.respond')).toBe(false);
      await ok.run();
      expect(w.calls.find(([m]) => m === 'service.respond')?.[3]).toEqual({
        answers: { name: 'v2.3.1', region: 'us-east', extra: ['ap'] },
      });
    });

    it('after the form closed, a failure is told privately with the answer typed', async () => {
      const w = setup();
      w.prompts.add('sess_1', request('approval'));
      w.service.respondError = serverError();
      const form = await w.answering.submitForm(click({ kind: 'reject', reason: 'too <risky>' }));
      if (!form.ok) throw new Error('the reject form was refused');
      await form.run();
      const [told] = w.slack.of('chat.postEphemeral');
      expect(told).toMatchObject({ channel: 'C0AGENTS', user: 'U0ALICE' });
      expect(String(told?.text)).toMatch(/not accepted[\s\S]*Rejected: too &lt;risky&gt;/);
    });

    it('keeps the form open with the reason when the question is gone', async () => {
      const w = setup();
      expect(await w.answering.submitForm(click({ kind: 'reject' }))).toEqual({
        ok: false,
        errors: { reason: 'This question is not known here any more.' },
      });
    });
  });
});
