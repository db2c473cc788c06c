import { describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, CHANNEL, textOf, useHarness, WAIT_MS } from './harness.js';
import { SIGNAL_ROUTE } from './helpers.js';

// Slack's agent surfaces (#23), bot side: the Stop button, channel defaults, and the fallback to the card
// and thread when the workspace answers as one without agent sessions.
const h = useHarness();

const statusOf = async (sessionId: string) => (await h.emulator.admin.session(sessionId))?.status;
const signals = async () => (await h.emulator.admin.stats()).requests[SIGNAL_ROUTE] ?? 0;

/** Slack's `agent_session_stopped`, as Slack signs and delivers it (retried when not acked in time). */
const stop = (user: string, threadTs: string) =>
  h.driver.deliverEvent({
    type: 'agent_session_stopped',
    channel: CHANNEL,
    thread_ts: threadTs,
    user,
    streaming_message_ts: [],
    event_ts: `${Math.floor(Date.now() / 1000)}.000100`,
  });

async function health(): Promise<Record<string, unknown>> {
  const response = await fetch(`${h.bot.url}/healthz`);
  return (await response.json()) as Record<string, unknown>;
}

describe("Slack's Stop button", () => {
  it('an outsider’s Stop is refused privately, nothing reaches the service, and the session goes on', async () => {
    const { sessionId, cardTs } = await h.start('scenario:long index the wiki');
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    const before = await signals();
    const { deliveries } = await stop(CAROL, cardTs);
    expect(deliveries.at(-1)?.status).toBe(200);
    await h.waitForEphemeral(CAROL, /Only <@U0ALICE> .* The session goes on\./);
    expect(await signals()).toBe(before);
    expect(await statusOf(sessionId)).toBe('running');
    expect(h.thread(cardTs).some((m) => /stopped by/.test(textOf(m)))).toBe(false);
    // Still followed: Alice cancels it as usual.
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `cancel ${sessionId}` });
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'cancelled by command');
  });

  it('the starter’s Stop cancels: the emulator records the cancel, the thread says who stopped it', async () => {
    const { sessionId, cardTs } = await h.start('scenario:long crawl the docs');
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    await stop(ALICE, cardTs);
    await h.waitInThread(cardTs, (m) => /⏹ stopped by <@U0ALICE>/.test(textOf(m)), 'the stop note');
    await h.sandbox.workspace.waitFor(async () => (await statusOf(sessionId)) === 'cancelled', {
      what: 'the emulator to record the cancel',
      timeoutMs: WAIT_MS,
    });
    await h.waitForCard(cardTs, (t) => /Cancelled/.test(t), 'the card to show Cancelled');
    const audit = await h.store.audit.list({ sessionId });
    expect(audit.filter((r) => r.action === 'cancel')).toEqual([
      expect.objectContaining({ userId: ALICE, detail: expect.objectContaining({ via: 'stop' }) }),
    ]);
  });
});

describe('/agent settings: a channel’s defaults for new sessions', () => {
  it('approvers only; every field checked; new sessions get the defaults and the card says so', async () => {
    await h.driver.command({ user: CAROL, channel: CHANNEL, text: 'settings' });
    await h.waitForEphemeral(CAROL, /Only the approvers .* can change this channel’s defaults/);
    expect(h.driver.openModal(CAROL)).toBeUndefined();

    await h.driver.command({ user: BOB, channel: CHANNEL, text: 'settings' });
    const modal = await h.sandbox.workspace.waitFor(() => h.driver.openModal(BOB), {
      what: 'the settings modal',
      timeoutMs: WAIT_MS,
    });
    const bad = await h.driver.submitView({
      user: BOB,
      viewId: modal.id,
      values: {
        budget: { value: 'five' },
        max_iterations: { value: '0' },
        context: { value: '{"repo":' },
      },
    });
    expect(bad.body).toMatchObject({
      response_action: 'errors',
      errors: {
        budget: expect.stringMatching(/positive number of USD/),
        max_iterations: expect.stringMatching(/whole number above 0/),
        context: expect.stringMatching(/^Not valid JSON/),
      },
    });
    await h.driver.submitView({
      user: BOB,
      viewId: modal.id,
      values: {
        budget: { value: '4' },
        max_iterations: { value: '12' },
        context: { value: '{"repo":"acme/api"}' },
      },
    });
    await h.waitForEphemeral(BOB, /New sessions in <#C0AGENTS> start with: a budget of \$4\.00/);

    const { sessionId, cardTs } = await h.start('scenario:complete tidy the changelog');
    await h.waitForCard(
      cardTs,
      (t) => /Channel defaults: budget \$4\.00, 12 max iterations, context \(repo\)/.test(t),
      'the defaults on the card',
    );
    const created = await h.emulator.admin.session(sessionId);
    expect(created).toMatchObject({ maxCostPerSession: 4, maxIterations: 12, context: { repo: 'acme/api' } });

    // A session's own flags win.
    const own = await h.start('scenario:complete tidy the readme --budget 2');
    expect((await h.emulator.admin.session(own.sessionId))?.maxCostPerSession).toBe(2);
    await h.waitForCard(
      own.cardTs,
      (t) => /Channel defaults: 12 max iterations, context \(repo\)/.test(t),
      'only the defaults it took',
    );
  });
});

describe('the surface choice', () => {
  it('a workspace without agent sessions: the bot falls back to the card and thread, says so on /healthz', async () => {
    const { cardTs } = await h.start('scenario:complete write the summary');
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'completed, on the card');
    const body = await health();
    expect(body.surface).toMatchObject({
      setting: 'auto',
      current: 'classic',
      refused: {
        method: expect.stringMatching(/^agents\.sessions\.|^assistant\.threads\./),
        error: expect.any(String),
      },
    });
  });
});
