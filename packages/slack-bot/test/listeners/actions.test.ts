import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/ids.js';
import { acknowledgeOnly } from '../../src/listeners/actions/acknowledge-only.js';
import { answerClick } from '../../src/listeners/actions/answer-click.js';
import { answerFormButton } from '../../src/listeners/actions/answer-form-button.js';
import { feedbackButton } from '../../src/listeners/actions/feedback-button.js';
import { signalButton } from '../../src/listeners/actions/signal-button.js';
import { steerFormButton } from '../../src/listeners/actions/steer-form-button.js';
import { encodeRef } from '../../src/refs.js';
import { args, asContext, blockAction, fakeContext, recorder } from './fake-args.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

function setup(action: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const r = recorder();
  const ctx = fakeContext(r.rec);
  const body = blockAction(action, extra);
  const a = args<Args>({ ack: r.ack, respond: r.respond, client: r.client, body, action, logger: r.logger });
  return { ...r, ctx, a };
}

const ref = encodeRef({ sessionId: 'sess_1', inputId: 'in_1' });
const sessionRef = encodeRef({ sessionId: 'sess_1' });
const button = (actionId: string, value: string) => ({
  type: 'button',
  action_id: actionId,
  block_id: 'answer',
  value,
});

describe('signalButton', () => {
  it('acks first, then sends the signal for the session on the card', async () => {
    const s = setup(button(ACTIONS.pause, sessionRef));
    await signalButton(asContext(s.ctx), 'pause')(s.a);
    expect(s.rec.order).toEqual(['ack', 'steering.signal']);
    expect(s.ctx.steering.signal).toHaveBeenCalledWith(
      'sess_1',
      'U0ALICE',
      'pause',
      {},
      { seenIn: 'C0AGENTS' },
    );
  });

  it('tells only the clicker why it failed', async () => {
    const s = setup(button(ACTIONS.cancel, sessionRef));
    s.ctx.steering.signal.mockResolvedValueOnce({ ok: false, message: 'Nope.' });
    await signalButton(asContext(s.ctx), 'cancel')(s.a);
    expect(s.rec.responses).toEqual([
      { response_type: 'ephemeral', replace_original: false, text: '⚠️ Nope.' },
    ]);
  });

  it('says where the click was: a message’s channel, and none from App Home (a view)', async () => {
    const s = setup(button(ACTIONS.pause, sessionRef), {
      channel: { id: 'C0OTHER', name: 'other' },
    });
    await signalButton(asContext(s.ctx), 'pause')(s.a);
    expect(s.ctx.steering.signal).toHaveBeenCalledWith(
      'sess_1',
      'U0ALICE',
      'pause',
      {},
      { seenIn: 'C0OTHER' },
    );
    const home = setup(button(ACTIONS.pause, sessionRef), { container: { type: 'view', view_id: 'V1' } });
    await signalButton(asContext(home.ctx), 'pause')(home.a);
    expect(home.ctx.steering.signal).toHaveBeenCalledWith('sess_1', 'U0ALICE', 'pause', {}, {});
  });

  it('ignores a button without a session', async () => {
    const s = setup(button(ACTIONS.pause, 'garbage'));
    await signalButton(asContext(s.ctx), 'pause')(s.a);
    expect(s.rec.order).toEqual(['ack']);
  });
});

describe('steerFormButton', () => {
  it('opens the form the service built', async () => {
    const s = setup(button(ACTIONS.redirect, sessionRef));
    await steerFormButton(asContext(s.ctx), 'redirect')(s.a);
    expect(s.rec.order).toEqual(['ack', 'steering.openForm', 'views.open']);
    expect(s.ctx.steering.openForm).toHaveBeenCalledWith(sessionRef, 'U0ALICE', 'redirect', 'C0AGENTS');
    expect(s.client.views.open).toHaveBeenCalledWith({ trigger_id: 'trigger-1', view: s.rec.opened[0] });
  });

  it('refuses privately, and opens nothing', async () => {
    const s = setup(button(ACTIONS.raiseBudget, sessionRef));
    s.ctx.steering.openForm.mockResolvedValueOnce({ ok: false, message: '🚫 Only <@U0ALICE>.' });
    await steerFormButton(asContext(s.ctx), 'raise_budget')(s.a);
    expect(s.rec.opened).toEqual([]);
    expect(s.rec.responses).toMatchObject([{ text: '🚫 Only <@U0ALICE>.' }]);
  });
});

describe('answerClick', () => {
  it.each([
    ['Approve', button(ACTIONS.approve, ref), {}, { kind: 'approve' }],
    ['a choice button', button(`${ACTIONS.choose}_1`, ref), {}, { kind: 'option' }],
    [
      'a select (its ref in the block_id)',
      { type: 'static_select', action_id: ACTIONS.select, block_id: ref, selected_option: { value: '3' } },
      {},
      { kind: 'option', index: 3 },
    ],
    [
      'Submit under checkboxes',
      button(ACTIONS.submitChoices, ref),
      {
        state: {
          values: {
            choices: {
              [ACTIONS.multiChoice]: {
                type: 'checkboxes',
                selected_options: [{ value: '0' }, { value: '2' }],
              },
            },
          },
        },
      },
      { kind: 'options', indexes: [0, 2] },
    ],
  ])('%s: acks, then hands the raw answer to the answering service', async (_name, action, extra, answer) => {
    const s = setup(action, extra);
    await answerClick(asContext(s.ctx))(s.a);
    expect(s.rec.order).toEqual(['ack', 'answering.answer']);
    expect(s.ctx.answering.answer).toHaveBeenCalledWith({
      ref,
      userId: 'U0ALICE',
      answer,
      clickedTs: '1700000000.000200',
      seenIn: 'C0AGENTS',
    });
  });

  it('tells the clicker privately what went wrong; an ephemeral copy is not passed as the prompt', async () => {
    const s = setup(button(ACTIONS.approve, ref), {
      container: { type: 'message', message_ts: '9.9', channel_id: 'C0AGENTS', is_ephemeral: true },
    });
    s.ctx.answering.answer.mockResolvedValueOnce({
      ok: false,
      message: 'Already answered by <@U0BOB>.',
    });
    await answerClick(asContext(s.ctx))(s.a);
    expect(s.ctx.answering.answer).toHaveBeenCalledWith({
      ref,
      userId: 'U0ALICE',
      answer: { kind: 'approve' },
      seenIn: 'C0AGENTS',
    });
    expect(s.rec.responses).toMatchObject([
      { response_type: 'ephemeral', text: '⚠️ Already answered by <@U0BOB>.' },
    ]);
  });
});

describe('answerFormButton', () => {
  it('opens the form for the question', async () => {
    const s = setup(button(ACTIONS.reject, ref));
    await answerFormButton(asContext(s.ctx))(s.a);
    expect(s.rec.order).toEqual(['ack', 'answering.openForm', 'views.open']);
    expect(s.ctx.answering.openForm).toHaveBeenCalledWith(ref, 'U0ALICE', 'C0AGENTS');
  });

  it('says why no form opens', async () => {
    const s = setup(button(ACTIONS.answer, ref));
    s.ctx.answering.openForm.mockResolvedValueOnce({ ok: false, message: 'Already answered.' });
    await answerFormButton(asContext(s.ctx))(s.a);
    expect(s.rec.opened).toEqual([]);
    expect(s.rec.responses).toMatchObject([{ text: 'Already answered.' }]);
  });
});

describe('acknowledgeOnly', () => {
  it('acks a ticked checkbox and does nothing else', async () => {
    const s = setup({ type: 'checkboxes', action_id: ACTIONS.multiChoice, block_id: 'choices' });
    await acknowledgeOnly(s.a);
    expect(s.rec.order).toEqual(['ack']);
  });
});

describe('feedback buttons', () => {
  it('hand the pressed value and the report’s thread to the service, and answer privately', async () => {
    const r = recorder();
    const ctx = fakeContext(r.rec);
    const respond = async (message: unknown) => void r.rec.order.push(`respond:${JSON.stringify(message)}`);
    await feedbackButton(asContext(ctx))(
      args<Parameters<ReturnType<typeof feedbackButton>>[0]>({
        ack: async () => void r.rec.order.push('ack'),
        respond,
        body: {
          user: { id: 'U0BOB' },
          actions: [{ type: 'feedback_buttons', action_id: 'session_feedback', value: 'good' }],
          container: { type: 'message', channel_id: 'C0AGENTS', message_ts: '2.2', thread_ts: '1.1' },
        },
      }),
    );
    expect(ctx.feedback.record).toHaveBeenCalledWith({
      channelId: 'C0AGENTS',
      threadTs: '1.1',
      userId: 'U0BOB',
      value: 'good',
    });
    expect(r.rec.order[0]).toBe('ack');
    expect(r.rec.order.at(-1)).toMatch(/respond:.*"response_type":"ephemeral".*Thanks — noted 👍/);
  });
});
