import { describe, expect, it } from 'vitest';
import { Approvers, ApproversOnly, StarterOrApprovers } from '../../../src/services/people/policy.js';
import { SteeringService } from '../../../src/services/people/steering.js';
import { STOP_REASON, StopService } from '../../../src/services/people/stopping.js';
import type { SlackClient } from '../../../src/services/slack-out/outbound/index.js';
import { fakeWorld, logger, request, serverError, session } from '../../fakes.js';

/** Alice starts sessions, Bob approves, Carol is neither; approvers named by id, so Slack is never asked. */
function setup(policyName: 'starter-or-approvers' | 'approvers-only' = 'starter-or-approvers') {
  const world = fakeWorld();
  const approvers = new Approvers(undefined as unknown as SlackClient, ['U0BOB'], logger);
  const audited: Array<Record<string, unknown>> = [];
  const steering = new SteeringService({
    client: world.service,
    sessions: world.sessions,
    policy:
      policyName === 'approvers-only' ? new ApproversOnly(approvers) : new StarterOrApprovers(approvers),
    visibility: world.visibility,
    notifier: world.notifier,
    metrics: world.metrics,
    snapshot: () => undefined,
    prompts: world.prompts,
    audit: { record: async (entry) => void audited.push({ ...entry }) },
  });
  const processed = new Set<string>();
  const events = {
    markProcessed: async (key: string) => !processed.has(key) && Boolean(processed.add(key)),
    unmark: async (key: string) => void processed.delete(key),
  };
  const statuses: Array<[string, string, boolean]> = [];
  /** A replica: its own StopService (its own memory), the store's marks shared with the others. */
  const replica = () =>
    new StopService({
      events,
      sessions: world.sessions,
      steering,
      agentSessions: { status: (id, status, o) => void statuses.push([id, status, o?.force === true]) },
      notifier: world.notifier,
      logger,
    });
  const stop = replica();
  world.sessions.add(session({ status: 'running' }));
  const click = (userId: string, eventId = `Ev-${userId}`) =>
    stop.stop({ eventId, channelId: 'C0AGENTS', threadTs: '1700000000.000100', userId });
  const cancels = () => world.calls.filter(([m]) => m === 'service.cancel');
  return { ...world, stop, click, statuses, audited, cancels, replica, processed };
}

describe("Slack's Stop button (agent_session_stopped)", () => {
  it('the starter’s Stop cancels as the card’s Cancel does: the service, the audit, "⏹ stopped by", closed', async () => {
    const w = setup();
    await w.click('U0ALICE');
    expect(w.cancels()).toEqual([['service.cancel', 'sess_1', { reason: STOP_REASON }]]);
    expect(w.audited).toEqual([
      expect.objectContaining({
        sessionId: 'sess_1',
        action: 'cancel',
        userId: 'U0ALICE',
        detail: { reason: STOP_REASON, via: 'stop' },
      }),
    ]);
    expect(w.slack.of('chat.postMessage')).toEqual([
      { channel: 'C0AGENTS', thread_ts: '1700000000.000100', text: '⏹ stopped by <@U0ALICE>' },
    ]);
    expect(w.statuses).toEqual([['sess_1', 'cancelled', true]]);
    expect(w.slack.of('chat.postEphemeral')).toEqual([]);
  });

  it('an outsider’s Stop: nothing reaches the service, the session goes on (status back), they are told privately', async () => {
    const w = setup();
    await w.click('U0CAROL');
    expect(w.cancels()).toEqual([]);
    expect(w.statuses).toEqual([['sess_1', 'running', true]]);
    expect(w.slack.of('chat.postEphemeral')).toEqual([
      expect.objectContaining({
        channel: 'C0AGENTS',
        user: 'U0CAROL',
        text: expect.stringMatching(/^⚠️ Only <@U0ALICE> .* can do that\. The session goes on\.$/),
      }),
    ]);
    expect(w.slack.of('chat.postMessage')).toEqual([]);
  });

  it('a cancel the service refuses: the session is shown as it is, the clicker told why', async () => {
    const w = setup();
    w.service.signalError = serverError();
    await w.click('U0ALICE');
    expect(w.statuses).toEqual([['sess_1', 'running', true]]);
    expect(String(w.slack.of('chat.postEphemeral')[0]?.text)).toMatch(/^⚠️ Could not cancel the session/);
  });

  it('two Stop clicks (two events) cancel once: a double click, or a click after the cancel', async () => {
    const w = setup();
    await Promise.all([w.click('U0ALICE', 'Ev1'), w.click('U0ALICE', 'Ev2')]);
    await w.click('U0BOB', 'Ev3');
    expect(w.cancels()).toHaveLength(1);
    expect(w.slack.of('chat.postMessage')).toHaveLength(1);
    // Slack is told each time that the session is over.
    expect(w.statuses).toEqual([
      ['sess_1', 'cancelled', true],
      ['sess_1', 'cancelled', true],
    ]);
  });

  it('two people’s Stops on two replicas cancel once: the store’s claim decides, the loser sends nothing', async () => {
    const w = setup();
    const other = w.replica();
    const at = { channelId: 'C0AGENTS', threadTs: '1700000000.000100' };
    await Promise.all([
      w.stop.stop({ ...at, eventId: 'EvA', userId: 'U0ALICE' }),
      other.stop({ ...at, eventId: 'EvB', userId: 'U0BOB' }),
    ]);
    expect(w.cancels()).toHaveLength(1);
    expect(w.audited).toHaveLength(1);
    expect(w.slack.of('chat.postMessage')).toHaveLength(1);
    expect(w.statuses).toEqual([['sess_1', 'cancelled', true]]);
    expect(w.slack.of('chat.postEphemeral')).toEqual([]);
  });

  it('an outsider’s Stop takes no claim; a cancel the service refused releases it, so the next Stop works', async () => {
    const w = setup();
    await w.click('U0CAROL');
    expect(w.processed.has('stop:sess_1')).toBe(false);
    w.service.signalError = serverError();
    await w.click('U0ALICE', 'Ev1');
    expect(w.processed.has('stop:sess_1')).toBe(false);
    w.service.signalError = undefined;
    await w.replica().stop({
      eventId: 'Ev2',
      channelId: 'C0AGENTS',
      threadTs: '1700000000.000100',
      userId: 'U0BOB',
    });
    expect(w.cancels()).toHaveLength(2);
    expect(w.slack.of('chat.postMessage')).toEqual([
      expect.objectContaining({ text: '⏹ stopped by <@U0BOB>' }),
    ]);
    expect(w.statuses.at(-1)).toEqual(['sess_1', 'cancelled', true]);
  });

  it('Slack’s retries (the same event_id) are handled once', async () => {
    const w = setup();
    await w.click('U0ALICE', 'Ev1');
    await w.click('U0ALICE', 'Ev1');
    expect(w.cancels()).toHaveLength(1);
  });

  it('a Stop in a thread with no session of ours does nothing; on a finished one, Slack is told it is closed', async () => {
    const w = setup();
    await w.stop.stop({ eventId: 'E1', channelId: 'C0AGENTS', threadTs: '1.2', userId: 'U0ALICE' });
    expect(w.cancels()).toEqual([]);
    expect(w.statuses).toEqual([]);
    w.sessions.add(session({ status: 'completed', finished: true }));
    await w.click('U0ALICE');
    expect(w.cancels()).toEqual([]);
    expect(w.statuses).toEqual([['sess_1', 'completed', true]]);
  });

  it('under approvers-only, Stop is a cancel, not an answer: the starter stops a session whose approval waits', async () => {
    const w = setup('approvers-only');
    w.sessions.add(session({ status: 'waiting_human' }));
    w.prompts.add('sess_1', request('approval'));
    await w.click('U0ALICE');
    expect(w.cancels()).toHaveLength(1);
    // The approval was not answered by it.
    expect(w.calls.filter(([m]) => m === 'service.respond')).toEqual([]);
    // An outsider still can't.
    const o = setup('approvers-only');
    await o.click('U0CAROL');
    expect(o.cancels()).toEqual([]);
  });
});
