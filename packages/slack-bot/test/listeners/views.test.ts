import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it, vi } from 'vitest';
import { answerSubmitted } from '../../src/listeners/views/answer-submitted.js';
import { channelSettingsSubmitted } from '../../src/listeners/views/channel-settings-submitted.js';
import { FORM_ACK_BUDGET_MS } from '../../src/listeners/views/form-result.js';
import { raiseBudgetSubmitted } from '../../src/listeners/views/raise-budget-submitted.js';
import { redirectSubmitted } from '../../src/listeners/views/redirect-submitted.js';
import { rejectSubmitted } from '../../src/listeners/views/reject-submitted.js';
import { startSubmitted } from '../../src/listeners/views/start-submitted.js';
import { encodeRef } from '../../src/refs.js';
import type { FormResult } from '../../src/services/outcome.js';
import { args, asContext, fakeContext, recorder, viewSubmission } from './fake-args.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;

function submit(callbackId: string, metadata: object, values: Record<string, unknown>) {
  const r = recorder();
  const ctx = fakeContext(r.rec);
  const { view, body } = viewSubmission(callbackId, metadata, values);
  return { ...r, ctx, a: args<Args>({ ack: r.ack, view, body, client: r.client }) };
}

const ref = encodeRef({ sessionId: 'sess_1', inputId: 'in_1' });
const sessionRef = encodeRef({ sessionId: 'sess_1' });

describe('view submissions', () => {
  it('start: hands the trimmed values over; closes the form, then starts', async () => {
    const s = submit('start_session', { channelId: 'C0AGENTS' }, { goal: '  Write notes ', budget: '' });
    await startSubmitted(asContext(s.ctx))(s.a);
    expect(s.ctx.starting.submitForm).toHaveBeenCalledWith('C0AGENTS', 'U0ALICE', {
      goal: 'Write notes',
      budget: undefined,
    });
    expect(s.rec.order).toEqual(['ack', 'run']);
    expect(s.rec.acks).toEqual([undefined]);
  });

  it('channel settings: the channel from the form, the values as typed (trimmed), then saved', async () => {
    const s = submit('channel_settings', { channelId: 'C0AGENTS' }, { budget: ' 5 ', context: '{"a":1}' });
    await channelSettingsSubmitted(asContext(s.ctx))(s.a);
    expect(s.ctx.channelSettings.submitForm).toHaveBeenCalledWith('C0AGENTS', 'U0ALICE', {
      budget: '5',
      context: '{"a":1}',
    });
    expect(s.rec.order).toEqual(['ack', 'run']);
  });

  it('a form with problems stays open with them under their inputs, and nothing runs', async () => {
    const s = submit('start_session', { channelId: 'C0AGENTS' }, { goal: '' });
    s.ctx.starting.submitForm.mockReturnValueOnce({
      ok: false,
      errors: { goal: 'Tell the agent what to do' },
    });
    await startSubmitted(asContext(s.ctx))(s.a);
    expect(s.rec.acks).toEqual([
      { response_action: 'errors', errors: { goal: 'Tell the agent what to do' } },
    ]);
    expect(s.rec.order).toEqual(['ack']);
  });

  it('redirect and raise budget: the ref and what was typed go to steering', async () => {
    const redirect = submit('redirect_session', { ref: sessionRef }, { message: 'Go north' });
    await redirectSubmitted(asContext(redirect.ctx))(redirect.a);
    expect(redirect.ctx.steering.submitRedirect).toHaveBeenCalledWith(sessionRef, 'U0ALICE', 'Go north');
    expect(redirect.rec.order).toEqual(['ack', 'run']);
    const budget = submit('raise_budget', { ref: sessionRef, spend: 4.2 }, { budget: '$10' });
    await raiseBudgetSubmitted(asContext(budget.ctx))(budget.a);
    expect(budget.ctx.steering.submitBudget).toHaveBeenCalledWith(sessionRef, 'U0ALICE', '$10', 4.2);
  });

  it('a form opened before the upgrade (ids in its metadata) still finds its session', async () => {
    const s = submit('redirect_session', { sessionId: 'sess_1' }, { message: 'Go' });
    await redirectSubmitted(asContext(s.ctx))(s.a);
    expect(s.ctx.steering.submitRedirect).toHaveBeenCalledWith(sessionRef, 'U0ALICE', 'Go');
  });

  it('answer: every value by block id goes to the answering service; sent after the form closed', async () => {
    const s = submit('answer_input', { ref }, { q_0: 'v2', q_1: ['0', '2'] });
    await answerSubmitted(asContext(s.ctx))(s.a);
    expect(s.ctx.answering.submitForm).toHaveBeenCalledWith({
      ref,
      userId: 'U0ALICE',
      answer: { kind: 'form', values: { q_0: 'v2', q_1: ['0', '2'] } },
    });
    expect(s.rec.order).toEqual(['answering.submitForm', 'ack', 'run']);
  });

  it('reject: the reason, when one was given', async () => {
    const s = submit('reject_input', { ref }, { reason: 'too risky' });
    await rejectSubmitted(asContext(s.ctx))(s.a);
    expect(s.ctx.answering.submitForm).toHaveBeenCalledWith({
      ref,
      userId: 'U0ALICE',
      answer: { kind: 'reject', reason: 'too risky' },
    });
    const bare = submit('reject_input', { ref }, { reason: '' });
    await rejectSubmitted(asContext(bare.ctx))(bare.a);
    expect(bare.ctx.answering.submitForm).toHaveBeenCalledWith({
      ref,
      userId: 'U0ALICE',
      answer: { kind: 'reject' },
    });
  });

  it('checks slower than the ack budget: the form closes first; a late refusal goes to the DM, typed text kept', async () => {
    vi.useFakeTimers();
    try {
      const s = submit('answer_input', { ref }, { q_0: 'ship on Friday' });
      let settle: (result: FormResult) => void = () => {};
      s.ctx.answering.submitForm.mockReturnValueOnce(new Promise<FormResult>((r) => (settle = r)));
      const done = answerSubmitted(asContext(s.ctx))(s.a);
      await vi.advanceTimersByTimeAsync(FORM_ACK_BUDGET_MS);
      expect(s.rec.order).toEqual(['ack']);
      expect(s.rec.acks).toEqual([undefined]);
      settle({ ok: false, errors: { q_0: 'Already answered by <@U0BOB>.' } });
      await done;
      expect(s.rec.order).toEqual(['ack', 'chat.postMessage']);
      expect(s.rec.responses).toEqual([
        {
          channel: 'U0ALICE',
          text: '⚠️ Your form was not used:\n• Already answered by <@U0BOB>.\nWhat you typed:\n> ship on Friday',
        },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
