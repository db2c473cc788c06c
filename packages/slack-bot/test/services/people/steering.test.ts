import { describe, expect, it } from 'vitest';
import { encodeRef } from '../../../src/refs.js';
import { BudgetCeiling } from '../../../src/services/people/budget-ceiling.js';
import { Approvers, ApproversOnly } from '../../../src/services/people/policy.js';
import { SteeringService } from '../../../src/services/people/steering.js';
import type { SlackClient } from '../../../src/services/slack-out/outbound/index.js';
import { fakeWorld, logger, request, serverError, session } from '../../fakes.js';

function setup(snapshotCost?: number) {
  const world = fakeWorld();
  const steering = new SteeringService({
    client: world.service,
    sessions: world.sessions,
    policy: world.policy,
    visibility: world.visibility,
    notifier: world.notifier,
    metrics: world.metrics,
    snapshot: (sessionId) =>
      snapshotCost === undefined
        ? undefined
        : { sessionId, status: 'cost_limit', cost: { totalCost: snapshotCost } },
  });
  world.sessions.add(session());
  return { ...world, steering };
}

describe('SteeringService', () => {
  it('sends a signal, notes who did it in the thread and polls the session at once', async () => {
    const w = setup();
    expect(await w.steering.signal('sess_1', 'U0ALICE', 'redirect', { message: 'Use <the> docs' })).toEqual({
      ok: true,
    });
    expect(w.calls.find(([m]) => m === 'service.redirect')).toEqual([
      'service.redirect',
      'sess_1',
      { message: 'Use <the> docs' },
    ]);
    expect(w.slack.of('chat.postMessage')[0]).toMatchObject({
      thread_ts: '1700000000.000100',
      text: '↪️ <@U0ALICE> redirected the agent: Use &lt;the&gt; docs',
    });
    expect(w.pokes).toEqual(['sess_1']);
  });

  it('refuses an unknown session, someone not allowed, and an ended session; nothing is sent', async () => {
    const w = setup();
    expect(await w.steering.signal('nope', 'U0ALICE', 'pause')).toEqual({
      ok: false,
      message: 'There is no session `nope` that you can see.',
      unseen: true,
    });
    w.policy.verdict = { allowed: false, reason: 'Only <@U0ALICE>.' };
    expect(await w.steering.signal('sess_1', 'U0CAROL', 'pause')).toEqual({
      ok: false,
      message: 'Only <@U0ALICE>.',
    });
    w.policy.verdict = { allowed: true };
    w.sessions.add(session({ sessionId: 'done', finished: true }));
    expect(await w.steering.signal('done', 'U0ALICE', 'cancel')).toEqual({
      ok: false,
      message: 'This session has already ended.',
    });
    expect(w.calls.some(([m]) => m.startsWith('service.'))).toBe(false);
  });

  describe('someone who may not see the session hears what an unknown id gets; nothing is sent', () => {
    const notFound = (id: string) => ({
      ok: false,
      message: `There is no session \`${id}\` that you can see.`,
    });
    function outsider() {
      const w = setup(1);
      w.visibility.hidden.add('U0CAROL');
      w.policy.verdict = {
        allowed: false,
        reason: 'Only <@U0ALICE> (who started this session) can do that.',
      };
      return w;
    }
    const nothingSent = (w: ReturnType<typeof setup>) => {
      expect(w.calls.filter(([m]) => m.startsWith('service.'))).toEqual([]);
      expect(w.policy.asked).toEqual([]);
    };

    it('by command: pause, cancel, redirect, resume and a raised budget', async () => {
      const w = outsider();
      for (const id of ['sess_1', 'nope']) {
        for (const kind of ['pause', 'resume', 'cancel'] as const)
          expect(await w.steering.signal(id, 'U0CAROL', kind)).toMatchObject(notFound(id));
        expect(await w.steering.signal(id, 'U0CAROL', 'redirect', { message: 'x' })).toMatchObject(
          notFound(id),
        );
        expect(await w.steering.signal(id, 'U0CAROL', 'resume', { newBudget: 50 })).toMatchObject(
          notFound(id),
        );
        expect(await w.steering.resume(id, 'U0CAROL')).toMatchObject(notFound(id));
      }
      // Stopped by its budget, /agent resume asks for a form: not for an outsider, and no spend is read.
      w.sessions.add(session({ status: 'cost_limit' }));
      expect(await w.steering.resume('sess_1', 'U0CAROL')).toMatchObject(notFound('sess_1'));
      nothingSent(w);
      expect(w.slack.of('chat.postMessage')).toEqual([]);
    });

    it('by the buttons, from anywhere but the session’s channel, and by their forms', async () => {
      const w = outsider();
      for (const id of ['sess_1', 'nope']) {
        const ref = encodeRef({ sessionId: id });
        expect(await w.steering.openForm(ref, 'U0CAROL', 'redirect')).toEqual(notFound(id));
        expect(await w.steering.openForm(ref, 'U0CAROL', 'raise_budget', 'D0CAROL')).toEqual(notFound(id));
        for (const form of [
          w.steering.submitRedirect(ref, 'U0CAROL', 'Go north'),
          w.steering.submitBudget(ref, 'U0CAROL', '20', 1),
        ]) {
          if (!form.ok) throw new Error('refused inline');
          await form.run();
        }
      }
      nothingSent(w);
      // Told in her DM (not the session's channel), the same words for the real id as for the unknown one.
      const told = w.slack.of('chat.postEphemeral').map((m) => [m.channel, m.text]);
      expect(told).toEqual([
        ['U0CAROL', '⚠️ There is no session `sess_1` that you can see.\nWhat you wrote:\n> Go north'],
        ['U0CAROL', '⚠️ There is no session `sess_1` that you can see.'],
        ['U0CAROL', '⚠️ There is no session `nope` that you can see.\nWhat you wrote:\n> Go north'],
        ['U0CAROL', '⚠️ There is no session `nope` that you can see.'],
      ]);
    });

    it('someone who may see it but not act is told why; so is a click in the session’s own channel', async () => {
      const w = outsider();
      const why = { ok: false, message: 'Only <@U0ALICE> (who started this session) can do that.' };
      // A Slack Connect guest clicking the card in #agents is looking at it: the precise refusal.
      expect(await w.steering.signal('sess_1', 'U0CAROL', 'pause', {}, { seenIn: 'C0AGENTS' })).toEqual(why);
      const ref = encodeRef({ sessionId: 'sess_1' });
      expect(await w.steering.openForm(ref, 'U0CAROL', 'redirect', 'C0AGENTS')).toEqual({
        ok: false,
        message: `🚫 ${why.message}`,
      });
      w.visibility.hidden.clear();
      expect(await w.steering.signal('sess_1', 'U0CAROL', 'cancel')).toEqual(why);
      expect(w.calls.filter(([m]) => m.startsWith('service.'))).toEqual([]);
    });
  });

  it('says why the service refused', async () => {
    const w = setup();
    w.service.signalError = serverError();
    expect(await w.steering.signal('sess_1', 'U0ALICE', 'pause')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Could not pause the session: the service answered 500/),
    });
  });

  it('opens the budget form with the spend seen last; a budget under it is refused inline', async () => {
    const w = setup(4.2);
    const form = await w.steering.openForm(encodeRef({ sessionId: 'sess_1' }), 'U0ALICE', 'raise_budget');
    if (!form.ok) throw new Error(form.message);
    expect(JSON.parse(form.view.private_metadata ?? '')).toMatchObject({ spend: 4.2 });
    const ref = encodeRef({ sessionId: 'sess_1' });
    expect(w.steering.submitBudget(ref, 'U0ALICE', '$4', 4.2)).toEqual({
      ok: false,
      errors: { budget: 'The new budget must be more than the $4.20 already spent' },
    });
    expect(w.steering.submitBudget(ref, 'U0ALICE', 'lots', 4.2)).toMatchObject({ ok: false });
    const ok = w.steering.submitBudget(ref, 'U0ALICE', '$10', 4.2);
    if (!ok.ok) throw new Error('refused');
    await ok.run();
    expect(w.calls.find(([m]) => m === 'service.resume')).toEqual([
      'service.resume',
      'sess_1',
      { newBudget: 10 },
    ]);
    expect(w.sessions.records.get('sess_1')?.budget).toBe(10);
  });

  it('/agent resume of a session stopped by its budget asks for a new one instead', async () => {
    const w = setup();
    w.sessions.add(session({ status: 'cost_limit', budget: 1 }));
    const result = await w.steering.resume('sess_1', 'U0ALICE');
    expect(result.ok && result.view?.callback_id).toBe('raise_budget');
    // The spend came from the service (no snapshot here).
    expect(w.calls.some(([m]) => m === 'service.get')).toBe(true);
  });

  it('a redirect that failed after its form closed is told privately, with what was written', async () => {
    const w = setup();
    w.service.signalError = serverError();
    expect(w.steering.submitRedirect(encodeRef({ sessionId: 'sess_1' }), 'U0ALICE', undefined)).toMatchObject(
      {
        ok: false,
        errors: { message: expect.any(String) },
      },
    );
    const form = w.steering.submitRedirect(encodeRef({ sessionId: 'sess_1' }), 'U0ALICE', 'Go north');
    if (!form.ok) throw new Error('refused');
    await form.run();
    expect(String(w.slack.of('chat.postEphemeral')[0]?.text)).toMatch(/Could not redirect[\s\S]*> Go north/);
  });

  describe('under approvers-only (four eyes), with AGENT_MAX_BUDGET=10', () => {
    /** Bob approves; Alice started the session. Approvers named by user id: Slack is never asked. */
    function fourEyes() {
      const world = fakeWorld();
      const approvers = new Approvers(undefined as unknown as SlackClient, ['U0BOB'], logger);
      const steering = new SteeringService({
        client: world.service,
        sessions: world.sessions,
        policy: new BudgetCeiling(new ApproversOnly(approvers), approvers, 10, true),
        visibility: world.visibility,
        notifier: world.notifier,
        metrics: world.metrics,
        snapshot: () => undefined,
        prompts: world.prompts,
      });
      world.sessions.add(session({ status: 'waiting_human' }));
      world.prompts.add('sess_1', request('approval'));
      return { ...world, steering };
    }
    const ref = encodeRef({ sessionId: 'sess_1' });
    const sent = (w: ReturnType<typeof fourEyes>) => w.calls.filter(([m]) => m.startsWith('service.'));

    it('the starter can’t redirect past a waiting approval — by command, by the button’s form, or its submission', async () => {
      const w = fourEyes();
      const byCommand = await w.steering.signal('sess_1', 'U0ALICE', 'redirect', { message: 'skip it' });
      expect(byCommand).toMatchObject({
        ok: false,
        message: expect.stringMatching(/^An approval is waiting/),
      });
      const byButton = await w.steering.openForm(ref, 'U0ALICE', 'redirect');
      expect(byButton).toMatchObject({
        ok: false,
        message: expect.stringMatching(/^🚫 An approval is waiting/),
      });
      const form = w.steering.submitRedirect(ref, 'U0ALICE', 'skip it');
      if (!form.ok) throw new Error('the form was refused inline');
      await form.run();
      // Told privately, with the reason and what was written.
      expect(String(w.slack.of('chat.postEphemeral')[0]?.text)).toMatch(
        /^⚠️ An approval is waiting[\s\S]*<@U0BOB> must approve or reject it[\s\S]*> skip it$/,
      );
      expect(sent(w)).toEqual([]);
      // The starter may still pause or cancel; an approver may redirect.
      expect(await w.steering.signal('sess_1', 'U0ALICE', 'pause')).toEqual({ ok: true });
      expect(await w.steering.signal('sess_1', 'U0BOB', 'redirect', { message: 'go on' })).toEqual({
        ok: true,
      });
    });

    it('once no approval waits, the starter redirects again', async () => {
      const w = fourEyes();
      w.prompts.records.clear();
      expect(await w.steering.signal('sess_1', 'U0ALICE', 'redirect', { message: 'north' })).toEqual({
        ok: true,
      });
    });

    it('the starter raises the budget up to the ceiling; above it only an approver', async () => {
      const w = fourEyes();
      const above = w.steering.submitBudget(ref, 'U0ALICE', '25', 4);
      if (!above.ok) throw new Error('refused inline');
      await above.run();
      expect(String(w.slack.of('chat.postEphemeral')[0]?.text)).toMatch(
        /^⚠️ A budget above \$10\.00 \(AGENT_MAX_BUDGET\) needs a second person/,
      );
      expect(sent(w)).toEqual([]);
      expect(await w.steering.signal('sess_1', 'U0ALICE', 'resume', { newBudget: 10 })).toEqual({ ok: true });
      expect(await w.steering.signal('sess_1', 'U0BOB', 'resume', { newBudget: 25 })).toEqual({ ok: true });
      expect(sent(w).map(([, , body]) => body)).toEqual([{ newBudget: 10 }, { newBudget: 25 }]);
    });
  });
});
