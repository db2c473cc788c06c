import { describe, expect, it } from 'vitest';
import {
  AgentSessions,
  MISSING_STOP_SUBSCRIPTION,
} from '../../../../src/services/slack-out/agent-surface/agent-sessions.js';
import {
  agentStatusOf,
  sessionTitle,
} from '../../../../src/services/slack-out/agent-surface/agent-status.js';
import { SurfaceSwitch } from '../../../../src/services/slack-out/agent-surface/surface.js';
import {
  type OutboundCall,
  rateLimitedRetryAfterMs,
} from '../../../../src/services/slack-out/outbound/index.js';
import { FakeSessions, session } from '../../../fakes.js';

describe('the service’s statuses as Slack’s agent session statuses', () => {
  it('maps every status the contract lists, both spellings of the ends, and the bot’s own ends', () => {
    const table: Record<string, string> = {
      running: 'processing',
      orchestrating: 'processing',
      queued: 'processing',
      waiting_human: 'suspended',
      paused: 'suspended',
      cost_limit: 'suspended',
      completed: 'closed',
      complete: 'closed',
      failed: 'closed',
      error: 'closed',
      cancelled: 'closed',
      cant_post_here: 'closed',
      unreachable: 'closed',
    };
    for (const [status, expected] of Object.entries(table))
      expect(agentStatusOf(status), status).toBe(expected);
  });

  it('a status the contract doesn’t list is the service working: processing (Stop shown)', () => {
    expect(agentStatusOf('thinking')).toBe('processing');
    expect(agentStatusOf('')).toBe('processing');
  });

  it('titles: one line, at most 200 characters, never empty', () => {
    expect(sessionTitle('  Ship\n the   release ')).toBe('Ship the release');
    expect(sessionTitle('x'.repeat(500))).toHaveLength(200);
    expect(sessionTitle(' \n ')).toBe('Agent session');
  });
});

type Sent = [method: string, args: Record<string, unknown>];

/** A Slack that records agents.sessions calls, answers as told, and lets a test hold a call in flight. */
function setup(setting: 'auto' | 'agent' | 'classic' = 'auto', now?: () => Date) {
  const sent: Sent[] = [];
  const fail = new Map<string, string[]>();
  let answer: Record<string, unknown> = { ok: true };
  let hold: Promise<void> | undefined;
  const call = (method: string) => async (args: Record<string, unknown>) => {
    sent.push([method, args]);
    if (hold) await hold;
    const code = fail.get(method)?.shift();
    if (code) throw Object.assign(new Error(code), { data: { ok: false, error: code } });
    return answer;
  };
  const slack = {
    agents: { sessions: { setStatus: call('setStatus'), rename: call('rename') } },
  };
  const queued: OutboundCall<unknown>[] = [];
  const requeued: OutboundCall<unknown>[] = [];
  // As the real queue: a 429 keeps the call waiting (to go again after Retry-After), unsettled.
  const outbound = {
    run: <T>(c: OutboundCall<T>): Promise<T> => {
      queued.push(c as OutboundCall<unknown>);
      return c.run().catch((error: unknown) => {
        if (rateLimitedRetryAfterMs(error) === undefined) throw error;
        requeued.push(c as OutboundCall<unknown>);
        return new Promise<T>(() => {});
      });
    },
  };
  const logs: Array<[string, unknown, string]> = [];
  const log = (level: string) => (obj: unknown, msg?: string) => void logs.push([level, obj, msg ?? '']);
  const logger = { warn: log('warn'), info: log('info'), debug: log('debug'), error: log('error') };
  const surface = new SurfaceSwitch(setting, logger, now, 60_000);
  const sessions = new FakeSessions();
  sessions.add(session({ goal: 'Ship the release' }));
  /** The follower's saved state: the service's status at its last poll. */
  const polled = new Map<string, string>();
  const agent = new AgentSessions({
    slack: slack as never,
    outbound,
    surface,
    sessions,
    logger,
    lastPolled: async (id) => polled.get(id),
  });
  const settle = () => new Promise((r) => setTimeout(r, 0)).then(() => new Promise((r) => setTimeout(r, 0)));
  let release: () => void = () => {};
  return {
    agent,
    sent,
    fail,
    logs,
    surface,
    queued,
    requeued,
    sessions,
    polled,
    settle,
    answerWith: (a: Record<string, unknown>) => {
      answer = a;
    },
    holdCalls: () => {
      hold = new Promise<void>((r) => {
        release = r;
      });
    },
    releaseCalls: () => {
      hold = undefined;
      release();
    },
    statuses: () => sent.filter(([m]) => m === 'setStatus').map(([, a]) => a.status),
  };
}

describe('AgentSessions', () => {
  it('a store that fails (closed, or down) is asked again later, not in a loop', async () => {
    const t = setup('agent');
    let reads = 0;
    t.sessions.get = async () => {
      reads++;
      throw new Error('PGlite is closed');
    };
    t.agent.status('sess_1', 'running');
    for (let i = 0; i < 20; i++) await t.settle();
    // One read, one warning: the next try waits for the retry delay (seconds), not for the next tick.
    expect(reads).toBe(1);
    expect(t.logs.filter(([level]) => level === 'warn')).toHaveLength(1);
  });

  it('a new session: processing, titled with the goal, started by its starter, in its thread', async () => {
    const t = setup();
    t.agent.status('sess_1', 'queued');
    await t.settle();
    expect(t.sent).toEqual([
      [
        'setStatus',
        {
          channel_id: 'C0AGENTS',
          thread_ts: '1700000000.000100',
          status: 'processing',
          title: 'Ship the release',
          initiator_user_id: 'U0ALICE',
        },
      ],
    ]);
    // In the outbound queue's own limit, never a post's.
    expect(t.queued.map((c) => [c.method, c.channel, c.tag])).toEqual([
      ['agents.sessions.setStatus', 'C0AGENTS', 'sess_1'],
    ]);
  });

  it('a mention’s or DM’s session lives in that thread, not under its card', async () => {
    const t = setup();
    t.sessions.add(session({ channelId: 'D0ALICE', cardTs: '5.6', threadTs: '5.0' }));
    t.agent.status('sess_1', 'running');
    await t.settle();
    expect(t.sent[0]?.[1]).toMatchObject({ channel_id: 'D0ALICE', thread_ts: '5.0' });
  });

  it('a session in its own channel (a code channel) is that channel’s session: no thread_ts, one call', async () => {
    const t = setup();
    t.sessions.add(session({ codeChannelId: 'C0CODE' }));
    t.agent.status('sess_1', 'running');
    await t.settle();
    expect(t.sent).toHaveLength(1);
    expect(t.sent[0]?.[1]).toMatchObject({ channel_id: 'C0CODE', status: 'processing' });
    expect(t.sent[0]?.[1]).not.toHaveProperty('thread_ts');
    expect(t.agent.shown('sess_1')).toBe('processing');
  });

  it('changes while a call is out fold into one more call: the latest status, none in between', async () => {
    const t = setup();
    t.holdCalls();
    t.agent.status('sess_1', 'running');
    await t.settle();
    t.agent.status('sess_1', 'waiting_human');
    t.agent.status('sess_1', 'running');
    t.agent.status('sess_1', 'paused');
    expect(t.statuses()).toEqual(['processing']);
    t.releaseCalls();
    await t.settle();
    await t.settle();
    expect(t.statuses()).toEqual(['processing', 'suspended']);
    // The same status again sends nothing; forced (after a Stop) it does.
    t.agent.status('sess_1', 'cost_limit');
    await t.settle();
    expect(t.statuses()).toEqual(['processing', 'suspended']);
    t.agent.status('sess_1', 'paused', { force: true });
    await t.settle();
    expect(t.statuses()).toEqual(['processing', 'suspended', 'suspended']);
  });

  it('followed anew (a restart, a take-over): the store’s status is sent once, even one Slack was told', async () => {
    const t = setup();
    t.sessions.add(session({ goal: 'Ship the release', status: 'waiting_human' }));
    t.agent.status('sess_1', 'waiting_human');
    await t.settle();
    t.agent.resync('sess_1');
    await t.settle();
    await t.settle();
    expect(t.statuses()).toEqual(['suspended', 'suspended']);
    // A finished session, or the classic surface: nothing.
    t.sessions.add(session({ status: 'completed', finished: true }));
    t.agent.resync('sess_1');
    await t.settle();
    expect(t.statuses()).toHaveLength(2);
    // The record had not caught up when the bot died: the last poll's status is the service's.
    const lag = setup();
    lag.sessions.add(session({ status: 'running' }));
    lag.polled.set('sess_1', 'waiting_human');
    lag.agent.resync('sess_1');
    await lag.settle();
    expect(lag.statuses()).toEqual(['suspended']);
    const classic = setup('classic');
    classic.agent.resync('sess_1');
    await classic.settle();
    expect(classic.sent).toEqual([]);
  });

  it('a resync and the first poll’s news fold into one call with the news; a lost lease forgets', async () => {
    const t = setup();
    t.sessions.add(session({ status: 'waiting_human' }));
    t.holdCalls();
    t.agent.status('sess_1', 'waiting_human');
    await t.settle();
    t.agent.forget('sess_1'); // in flight: kept, its call settles first
    t.agent.status('sess_1', 'cancelled');
    t.agent.resync('sess_1');
    await t.settle();
    t.releaseCalls();
    await t.settle();
    await t.settle();
    expect(t.statuses()).toEqual(['suspended', 'closed']);
    // After a lost lease, this replica's memory goes: taken back later, the store's status is sent.
    const u = setup();
    u.sessions.add(session({ status: 'running' }));
    u.agent.status('sess_1', 'paused');
    await u.settle();
    u.agent.forget('sess_1');
    u.agent.resync('sess_1');
    await u.settle();
    await u.settle();
    expect(u.statuses()).toEqual(['suspended', 'processing']);
  });

  it('auto tries agent again after a fallback: each session followed meanwhile gets its status once', async () => {
    let now = new Date('2026-11-25T16:00:00Z');
    const t = setup('auto', () => now);
    t.surface.onAgain(() => t.agent.resyncAll());
    t.sessions.add(session({ status: 'waiting_human' }));
    t.fail.set('setStatus', ['not_agent_app']);
    t.agent.resync('sess_1');
    await t.settle();
    expect(t.surface.current()).toBe('classic');
    t.agent.status('sess_1', 'waiting_human'); // on the card alone meanwhile
    await t.settle();
    expect(t.statuses()).toEqual(['suspended']);
    now = new Date('2026-11-25T16:01:00Z');
    expect(t.surface.current()).toBe('agent');
    await t.settle();
    await t.settle();
    expect(t.statuses()).toEqual(['suspended', 'suspended']);
    // A session over is not followed any more: not resynced at the next return.
    t.agent.status('sess_1', 'completed');
    await t.settle();
    t.agent.resyncAll();
    await t.settle();
    expect(t.statuses()).toEqual(['suspended', 'suspended', 'closed']);
  });

  it('Slack busy or down (fatal_error, internal_error): the session is not given up, the surface stays agent', async () => {
    const t = setup();
    t.sessions.add(session({ status: 'waiting_human' }));
    t.fail.set('setStatus', ['fatal_error', 'internal_error']);
    t.agent.status('sess_1', 'waiting_human');
    await t.settle();
    t.agent.status('sess_1', 'waiting_human'); // the same status: sent again, it never got through
    await t.settle();
    t.agent.status('sess_1', 'waiting_human');
    await t.settle();
    expect(t.statuses()).toEqual(['suspended', 'suspended', 'suspended']);
    expect(t.agent.shown('sess_1')).toBe('suspended');
    expect(t.surface.current()).toBe('agent');
    expect(t.logs.filter(([, , m]) => /refused this session/.test(m))).toEqual([]);
  });

  it('a redirect renames the session after its new direction', async () => {
    const t = setup();
    t.agent.status('sess_1', 'running');
    await t.settle();
    t.agent.rename('sess_1', 'Focus on\nthe docs');
    await t.settle();
    expect(t.sent.at(-1)).toEqual([
      'rename',
      { channel_id: 'C0AGENTS', thread_ts: '1700000000.000100', title: 'Focus on the docs' },
    ]);
  });

  it('classic: nothing is ever sent', async () => {
    const t = setup('classic');
    t.agent.status('sess_1', 'running');
    t.agent.rename('sess_1', 'x');
    await t.settle();
    expect(t.sent).toEqual([]);
  });

  it('auto: a feature-missing answer turns the bot classic (logged once); nothing more is sent', async () => {
    const t = setup();
    t.fail.set('setStatus', ['unknown_method']);
    t.agent.status('sess_1', 'running');
    await t.settle();
    expect(t.surface.current()).toBe('classic');
    expect(t.surface.report()).toMatchObject({
      setting: 'auto',
      current: 'classic',
      refused: { method: 'agents.sessions.setStatus', error: 'unknown_method' },
    });
    t.agent.status('sess_1', 'completed');
    await t.settle();
    expect(t.sent).toHaveLength(1);
    expect(t.logs.filter(([level]) => level === 'warn')).toHaveLength(1);
  });

  it('agent: Slack’s refusal is said once per method and error (naming the fix); the bot keeps trying', async () => {
    const t = setup('agent');
    t.fail.set('setStatus', ['missing_scope', 'missing_scope']);
    t.agent.status('sess_1', 'running');
    await t.settle();
    t.agent.status('sess_1', 'waiting_human');
    await t.settle();
    expect(t.surface.current()).toBe('agent');
    const errors = t.logs.filter(([level]) => level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.[2]).toMatch(/Declare the app an agent/);
    t.agent.status('sess_1', 'running');
    await t.settle();
    expect(t.statuses()).toEqual(['processing', 'suspended', 'processing']);
  });

  it('an initiator Slack refuses (not in the channel): sent again without it', async () => {
    const t = setup();
    t.fail.set('setStatus', ['user_not_in_channel']);
    t.agent.status('sess_1', 'running');
    await t.settle();
    await t.settle();
    expect(t.sent.map(([, a]) => a.initiator_user_id)).toEqual(['U0ALICE', undefined]);
    expect(t.agent.shown('sess_1')).toBe('processing');
  });

  it('a channel Slack refuses: that session only is left to its card and thread', async () => {
    const t = setup();
    t.fail.set('setStatus', ['channel_not_found']);
    t.agent.status('sess_1', 'running');
    await t.settle();
    t.agent.status('sess_1', 'completed');
    await t.settle();
    expect(t.sent).toHaveLength(1);
    expect(t.surface.current()).toBe('agent');
  });

  it('a 429 goes back to the queue, and the status goes out when the queue sends it again', async () => {
    const t = setup();
    t.fail.set('setStatus', ['ratelimited']);
    t.agent.status('sess_1', 'running');
    await t.settle();
    expect(t.statuses()).toEqual(['processing']);
    expect(t.agent.shown('sess_1')).toBeUndefined();
    // The queue runs the same call again after Retry-After.
    expect(t.requeued).toHaveLength(1);
    await t.requeued[0]?.run();
    expect(t.statuses()).toEqual(['processing', 'processing']);
    expect(t.agent.shown('sess_1')).toBe('processing');
  });

  it('Slack’s warning that the Stop event is not subscribed is logged once', async () => {
    const t = setup();
    t.answerWith({ ok: true, response_metadata: { warnings: [MISSING_STOP_SUBSCRIPTION] } });
    t.agent.status('sess_1', 'running');
    await t.settle();
    t.agent.status('sess_1', 'paused');
    await t.settle();
    const warned = t.logs.filter(([, , msg]) => msg.includes('agent_session_stopped'));
    expect(warned).toHaveLength(1);
  });
});
