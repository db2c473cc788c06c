import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { agentCommand } from '../../src/listeners/commands/agent.js';
import { args, asContext, fakeContext, modal, recorder } from './fake-args.js';

type Args = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

function run(text: string) {
  const r = recorder();
  const ctx = fakeContext(r.rec);
  const command = {
    text,
    user_id: 'U0ALICE',
    channel_id: 'C0AGENTS',
    trigger_id: 'trigger-1',
    command: '/agent',
  };
  const go = () =>
    agentCommand(asContext(ctx))(args<Args>({ command, ack: r.ack, respond: r.respond, client: r.client }));
  return { ...r, ctx, go };
}

describe('/agent', () => {
  it('help and usage errors answer in the ack itself', async () => {
    const help = run('help');
    await help.go();
    expect(help.rec.order).toEqual(['ack']);
    expect(help.rec.acks[0]).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('/agent start'),
    });
    const wrong = run('frobnicate');
    await wrong.go();
    expect(wrong.rec.acks[0]).toMatchObject({
      text: expect.stringMatching(/^⚠️ unknown subcommand "frobnicate"/),
    });
    // A near miss is told what was meant, not the whole help again.
    const typo = run('strat ship it');
    await typo.go();
    expect(typo.rec.acks[0]).toEqual({
      response_type: 'ephemeral',
      text: '⚠️ `strat` is not a subcommand. Did you mean `/agent start`? `/agent help` lists them all.',
    });
  });

  it('settings: an approver gets the channel’s form after the ack; anyone else a private refusal', async () => {
    const r = run('settings');
    await r.go();
    expect(r.ctx.channelSettings.open).toHaveBeenCalledWith('C0AGENTS', 'U0ALICE');
    expect(r.rec.order).toEqual(['ack', 'channelSettings.open', 'views.open']);
    expect(r.rec.opened[0]?.callback_id).toBe('channel_settings');
    const refused = run('settings');
    refused.ctx.channelSettings.open.mockResolvedValueOnce({ ok: false, message: 'Only the approvers.' });
    await refused.go();
    expect(refused.rec.opened).toEqual([]);
    expect(refused.rec.responses).toEqual([{ response_type: 'ephemeral', text: '🚫 Only the approvers.' }]);
  });

  it('start without a goal opens the form right after the ack (the trigger lasts 3 s)', async () => {
    const r = run('start');
    await r.go();
    expect(r.rec.order).toEqual(['ack', 'views.open']);
    expect(r.rec.opened[0]?.callback_id).toBe('start_session');
  });

  it('start with a goal starts it, and says only why it could not', async () => {
    const r = run('start Write notes --budget 5');
    await r.go();
    expect(r.ctx.starting.start).toHaveBeenCalledWith({
      channelId: 'C0AGENTS',
      userId: 'U0ALICE',
      goal: 'Write notes',
      budget: 5,
    });
    expect(r.rec.responses).toEqual([]);
    const refused = run('start Write notes');
    refused.ctx.starting.start.mockResolvedValueOnce({ ok: false, message: 'invite me first' });
    await refused.go();
    expect(refused.rec.responses).toEqual([{ response_type: 'ephemeral', text: '⚠️ invite me first' }]);
  });

  it('status, list and history answer privately with what the directory lets this person see', async () => {
    const status = run('status sess_1');
    status.ctx.directory.status.mockResolvedValueOnce({ text: 'card', blocks: [{ type: 'divider' }] });
    await status.go();
    expect(status.ctx.directory.status).toHaveBeenCalledWith('U0ALICE', 'C0AGENTS', 'sess_1');
    expect(status.rec.responses).toEqual([
      { response_type: 'ephemeral', text: 'card', blocks: [{ type: 'divider' }] },
    ]);
    const list = run('list');
    await list.go();
    expect(list.rec.responses).toEqual([{ response_type: 'ephemeral', text: 'No active agent sessions' }]);
    expect(list.ctx.directory.list).toHaveBeenCalledWith('U0ALICE', 'C0AGENTS');
    const history = run('history sess_1');
    await history.go();
    expect(history.ctx.directory.history).toHaveBeenCalledWith('U0ALICE', 'sess_1');
    expect(history.rec.responses).toEqual([
      { response_type: 'ephemeral', text: 'There is no session `s` that you can see.' },
    ]);
  });

  it.each([
    ['pause sess_1', ['sess_1', 'U0ALICE', 'pause', {}], '⏸️ Paused.'],
    ['cancel sess_1', ['sess_1', 'U0ALICE', 'cancel', {}], '🛑 Cancelled.'],
    [
      'redirect sess_1 Go\nnorth',
      ['sess_1', 'U0ALICE', 'redirect', { message: 'Go\nnorth' }],
      '↪️ Redirected.',
    ],
  ])('%s', async (text, call, said) => {
    const r = run(text);
    await r.go();
    expect(r.ctx.steering.signal).toHaveBeenCalledWith(...call);
    expect(r.rec.responses).toEqual([{ response_type: 'ephemeral', text: said }]);
  });

  it('resume: resumed, refused, or the budget form when the budget stopped it', async () => {
    const resumed = run('resume sess_1');
    await resumed.go();
    expect(resumed.rec.responses).toMatchObject([{ text: '▶️ Resumed.' }]);
    const form = run('resume sess_1');
    form.ctx.steering.resume.mockResolvedValueOnce({ ok: true, view: modal('raise_budget') });
    await form.go();
    expect(form.rec.order).toEqual(['ack', 'views.open']);
    expect(form.rec.opened[0]?.callback_id).toBe('raise_budget');
    const refused = run('resume sess_1');
    refused.ctx.steering.resume.mockResolvedValueOnce({ ok: false, message: 'Only <@U0BOB>.' });
    await refused.go();
    expect(refused.rec.responses).toMatchObject([{ text: '⚠️ Only <@U0BOB>.' }]);
  });

  it('a failure on our side is logged and said, never silent', async () => {
    const r = run('list');
    r.ctx.directory.list.mockRejectedValueOnce(new Error('store down'));
    await r.go();
    expect(r.rec.responses).toMatchObject([
      { text: expect.stringMatching(/Something went wrong on our side/) },
    ]);
  });
});
