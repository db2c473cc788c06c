import { describe, expect, it } from 'vitest';
import { channelPolicy } from '../../../src/services/people/policy.js';
import { StartingService } from '../../../src/services/people/starting.js';
import { fakeWorld } from '../../fakes.js';

function setup(
  allowed: string[] = [],
  maxBudget?: number,
  inChannel?: (userId: string, channelId: string) => Promise<boolean | undefined>,
) {
  const world = fakeWorld();
  const started: string[] = [];
  const starting = new StartingService({
    client: world.service,
    sessions: world.sessions,
    slack: world.slack,
    channelAllowed: channelPolicy(allowed),
    notifier: world.notifier,
    metrics: world.metrics,
    logger: world.logger,
    started: async (sessionId) => void started.push(sessionId),
    ...(maxBudget === undefined ? {} : { maxBudget }),
    ...(inChannel ? { inChannel } : {}),
  });
  return { ...world, starting, started };
}

const input = { channelId: 'C0AGENTS', userId: 'U0ALICE', goal: 'Write <notes>', budget: 5 };

describe('StartingService', () => {
  it('a workflow run nobody ran starts on the workspace’s own key, and its record names the workflow', async () => {
    const world = fakeWorld();
    const keysAsked: string[] = [];
    const audited: Array<{ userId: string; detail?: Record<string, unknown> | null }> = [];
    const starting = new StartingService({
      client: world.service,
      sessions: world.sessions,
      slack: world.slack,
      channelAllowed: channelPolicy([]),
      notifier: world.notifier,
      metrics: world.metrics,
      logger: world.logger,
      started: async () => {},
      audit: { record: async (entry) => void audited.push(entry) },
      keys: {
        forStart: async (userId) => {
          keysAsked.push(`person:${userId}`);
          return { ok: true, ref: `person:T1:${userId}`, client: world.service };
        },
        forWorkspace: async () => {
          keysAsked.push('workspace');
          return { ok: true, ref: 'team:T1', client: world.service };
        },
      },
    });
    const workflow = { executionId: 'Wx0NIGHTLY', step: 'Run an agent session' };
    await starting.start({ ...input, userId: 'U0AGENTBOT', runsAs: 'workspace', workflow });
    await starting.start({ ...input, workflow });
    expect(keysAsked).toEqual(['workspace', 'person:U0ALICE']);
    expect(audited.map((a) => [a.userId, a.detail?.workflow])).toEqual([
      ['workflow:Wx0NIGHTLY', workflow],
      ['U0ALICE', workflow],
    ]);
  });

  it('posts the card first, then creates the session and records where it lives', async () => {
    const w = setup();
    expect(await w.starting.start(input)).toEqual({ ok: true, sessionId: 'sess_new' });
    expect(w.calls.map(([m]) => m)).toEqual(['chat.postMessage', 'service.create', 'sessions.create']);
    expect(w.calls[1]?.[1]).toEqual({ goal: 'Write <notes>', guardrails: { maxCostPerSession: 5 } });
    expect(w.sessions.records.get('sess_new')).toMatchObject({
      channelId: 'C0AGENTS',
      startedBy: 'U0ALICE',
      budget: 5,
    });
    expect(w.started).toEqual(['sess_new']);
  });

  it('where the bot may not post, starts nothing and says how to fix it, with the goal typed', async () => {
    const w = setup();
    w.slack.fail.set('chat.postMessage', 'not_in_channel');
    const result = await w.starting.start(input);
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringMatching(/invite me first[\s\S]*Write &lt;notes&gt;/),
    });
    expect(w.calls.some(([m]) => m === 'service.create')).toBe(false);
  });

  it('nobody starts a session in a channel they are not in: refused before anything is posted', async () => {
    const asked: string[] = [];
    const w = setup([], undefined, async (userId, channelId) => {
      asked.push(`${userId}@${channelId}`);
      return userId !== 'U0CAROL';
    });
    expect(await w.starting.start({ ...input, userId: 'U0CAROL' })).toEqual({
      ok: false,
      message:
        'You’re not in <#C0AGENTS>, so you can’t start a session there: join the channel first, or start it in a channel you’re in.',
    });
    expect(w.calls).toEqual([]);
    expect(await w.starting.start(input)).toMatchObject({ ok: true });
    expect(asked).toEqual(['U0CAROL@C0AGENTS', 'U0ALICE@C0AGENTS']);
  });

  it('where Slack can’t say who is in the channel, posting the card decides', async () => {
    const w = setup([], undefined, async () => undefined);
    expect(await w.starting.start(input)).toMatchObject({ ok: true });
  });

  it('outside the allowed channels, refuses before anything is posted', async () => {
    const w = setup(['C0OTHER']);
    expect(await w.starting.start(input)).toMatchObject({
      ok: false,
      message: expect.stringContaining('<#C0OTHER>'),
    });
    expect(w.calls).toEqual([]);
  });

  it('holds AGENT_ALLOWED_CHANNELS in a DM as anywhere: a DM starts a session only when the list says dm', async () => {
    const dm = { ...input, channelId: 'D0ALICE', threadTs: '1700000000.000100' };
    const limited = setup(['C0AGENTS']);
    expect(await limited.starting.start(dm)).toEqual({
      ok: false,
      message: "Agent sessions can't be started in direct messages. Allowed: <#C0AGENTS>.",
    });
    expect(limited.calls).toEqual([]);
    const withDms = setup(['C0AGENTS', 'dm']);
    expect(await withDms.starting.start(dm)).toMatchObject({ ok: true });
  });

  it('AGENT_MAX_BUDGET: no session starts with more; nothing is posted or started', async () => {
    const w = setup([], 5);
    expect(await w.starting.start({ ...input, budget: 6 })).toEqual({
      ok: false,
      message:
        'A session starts with at most $5.00 (AGENT_MAX_BUDGET): start it with less, and an approver can raise it later.\nYour goal was:\n> Write &lt;notes&gt;',
    });
    expect(w.calls).toEqual([]);
    expect(await w.starting.start({ ...input, budget: 5 })).toMatchObject({ ok: true });
  });

  it('checks every field of the form at once; a good one starts after the form closed', async () => {
    const w = setup();
    expect(
      w.starting.submitForm('C0AGENTS', 'U0ALICE', {
        goal: undefined,
        budget: '-1',
        max_iterations: '2.5',
        context: '[1]',
      }),
    ).toEqual({
      ok: false,
      errors: {
        goal: 'Tell the agent what to do',
        budget: expect.any(String),
        max_iterations: expect.any(String),
        context: expect.stringContaining('JSON object'),
      },
    });
    const ok = w.starting.submitForm('C0AGENTS', 'U0ALICE', {
      goal: 'Go',
      budget: '$2.50',
      context: '{"repo":"a/b"}',
    });
    if (!ok.ok) throw new Error(JSON.stringify(ok.errors));
    expect(w.calls).toEqual([]);
    await ok.run();
    expect(w.calls.find(([m]) => m === 'service.create')?.[1]).toEqual({
      goal: 'Go',
      context: { repo: 'a/b' },
      guardrails: { maxCostPerSession: 2.5 },
    });
  });
});
