import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { CONTEXT_ACTIONS, contextBar } from '../../src/blocks/code-channel.js';
import { parseAgentCommand } from '../../src/command-parser.js';
import { createLogger } from '../../src/logger.js';
import { ChannelSteering } from '../../src/services/code-channels/channel-steering.js';
import { CodeChannels } from '../../src/services/code-channels/code-channels.js';
import type { Outcome } from '../../src/services/outcome.js';
import type { CodeChannelRecord, CodeChannelRepository } from '../../src/store/code-channels.js';
import type { SessionRecord } from '../../src/store/records.js';
import { session as sessionOf } from '../fakes.js';

/** The code channels' records, in memory, with the same rules as the store's (each step once). */
class MemoryChannels implements CodeChannelRepository {
  readonly rows = new Map<string, CodeChannelRecord>();
  constructor(private readonly sessions: Map<string, SessionRecord>) {}
  async want(sessionId: string, atEnd: 'archive' | 'keep') {
    if (!this.rows.has(sessionId))
      this.rows.set(sessionId, {
        sessionId,
        workspace: null,
        channelId: null,
        state: 'wanted',
        atEnd,
        reason: null,
        canvasId: null,
      });
  }
  async get(sessionId: string) {
    const row = this.rows.get(sessionId);
    return row && { ...row };
  }
  async opened(sessionId: string, channelId: string) {
    const row = this.rows.get(sessionId);
    if (row?.state === 'wanted') Object.assign(row, { state: 'open', channelId });
    const s = this.sessions.get(sessionId);
    if (s) s.homeChannelId = channelId;
  }
  async refused(sessionId: string, reason: string) {
    const row = this.rows.get(sessionId);
    if (row?.state === 'wanted') Object.assign(row, { state: 'thread', reason });
  }
  async canvas(sessionId: string, canvasId: string) {
    const row = this.rows.get(sessionId);
    if (row) row.canvasId = canvasId;
  }
  async close(sessionId: string) {
    const row = this.rows.get(sessionId);
    if (row?.state !== 'open') return false;
    row.state = 'closed';
    return true;
  }
  async questions() {
    return [];
  }
}

const slackError = (error: string) => Object.assign(new Error(error), { data: { ok: false, error } });

function setup(answers: { create?: () => Promise<unknown>; archive?: () => Promise<unknown> } = {}) {
  const sessions = new Map<string, SessionRecord>();
  const repo = new MemoryChannels(sessions);
  const calls: string[] = [];
  const posts: Array<[string, string | null, string]> = [];
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const call = (name: string, answer: () => Promise<unknown> = async () => ({ ok: true })) =>
    vi.fn(async () => {
      calls.push(name);
      return answer();
    });
  const slack = {
    agents: {
      conversations: {
        create: call('create', answers.create ?? (async () => ({ ok: true, channel_id: 'C0CODE' }))),
        setProperties: call('setProperties'),
        setView: call('setView'),
        setCommands: call('setCommands'),
        setCanvasContent: call('setCanvasContent'),
        archive: call('archive', answers.archive),
      },
      sessions: { setStatus: call('setStatus') },
    },
    conversations: { invite: call('invite') },
    canvases: { create: call('canvases.create', async () => ({ ok: true, canvas_id: 'F0CANVAS' })) },
    users: { info: call('users.info', async () => ({ ok: true, user: { name: 'alice' } })) },
  };
  const channels = new CodeChannels({
    store: { sessions: { get: async (id: string) => sessions.get(id) }, codeChannels: repo },
    slack: slack as never,
    outbound: { run: (c) => c.run() },
    poster: {
      post: async (place, key) => {
        posts.push([place.channelId, place.cardTs, key]);
        return `ts-${key}`;
      },
    },
    logger: createLogger({ secrets: [], level: 'info', destination: sink }),
  });
  const add = (extra: Partial<SessionRecord> = {}) => {
    const s = sessionOf({ workspace: 'T0A', ...extra });
    sessions.set(s.sessionId, s);
    return s;
  };
  return { channels, repo, calls, posts, lines, add, sessions };
}

describe('a session in a channel of its own', () => {
  it('made once, linked to the card; the starter invited, the commands set, one line on each side', async () => {
    const t = setup();
    const s = t.add();
    await t.channels.open(s.sessionId, 'archive');
    await t.channels.ensure(s.sessionId);
    expect(t.calls.filter((c) => c === 'create')).toHaveLength(1);
    expect(t.repo.rows.get(s.sessionId)).toMatchObject({ state: 'open', channelId: 'C0CODE' });
    expect(t.sessions.get(s.sessionId)?.homeChannelId).toBe('C0CODE');
    expect(t.calls).toEqual(expect.arrayContaining(['invite', 'setCommands']));
    expect(t.posts).toEqual([
      ['C0CODE', null, 'code-channel:intro'],
      ['C0AGENTS', s.cardTs, 'code-channel:link'],
    ]);
  });

  it('where Slack refuses the feature: the thread, the reason logged; the next session there does not ask', async () => {
    const t = setup({
      create: async () => {
        throw slackError('missing_scope');
      },
    });
    const first = t.add({ sessionId: 's1' });
    const second = t.add({ sessionId: 's2' });
    await t.channels.open(first.sessionId, 'archive');
    await t.channels.open(second.sessionId, 'archive');
    expect(t.calls.filter((c) => c === 'create')).toHaveLength(1);
    expect(t.repo.rows.get('s1')).toMatchObject({ state: 'thread', reason: 'missing_scope' });
    expect(t.repo.rows.get('s2')).toMatchObject({ state: 'thread', reason: 'missing_scope' });
    expect(t.sessions.get('s1')?.homeChannelId).toBeUndefined();
    const refusals = t.lines.filter((l) => /Slack refused a channel of its own/.test(l));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain('missing_scope');
  });

  it('a start and a take-over asking at once: one create, one refusal logged', async () => {
    let refuse = () => {};
    const t = setup({
      create: () =>
        new Promise((_, reject) => {
          refuse = () => reject(slackError('missing_scope'));
        }),
    });
    const s = t.add({ sessionId: 's1' });
    await t.repo.want(s.sessionId, 'archive');
    const both = Promise.all([t.channels.ensure(s.sessionId), t.channels.ensure(s.sessionId)]);
    await vi.waitFor(() => expect(t.calls).toContain('create'));
    refuse();
    expect(await both).toEqual([undefined, undefined]);
    expect(t.calls.filter((c) => c === 'create')).toHaveLength(1);
    expect(t.lines.filter((l) => /Slack refused a channel of its own/.test(l))).toHaveLength(1);
  });

  it('a failure that is no refusal leaves it wanted, made when the session is next taken up', async () => {
    let fail = true;
    const t = setup({
      create: async () => {
        if (fail) throw slackError('internal_error');
        return { ok: true, channel_id: 'C0LATER' };
      },
    });
    const s = t.add();
    await t.channels.open(s.sessionId, 'archive');
    expect(t.repo.rows.get(s.sessionId)?.state).toBe('wanted');
    fail = false;
    expect(await t.channels.ensure(s.sessionId)).toBe('C0LATER');
  });

  it('at the end: the report as a canvas, then archived with the report as summary; already_archived is done', async () => {
    const t = setup({
      archive: async () => {
        throw slackError('already_archived');
      },
    });
    const s = t.add();
    await t.channels.open(s.sessionId, 'archive');
    const opened = t.sessions.get(s.sessionId) as SessionRecord;
    await t.channels.finished(opened, 'ts-report', { sessionId: s.sessionId, status: 'completed' });
    expect(t.calls).toEqual(expect.arrayContaining(['canvases.create', 'setCanvasContent', 'archive']));
    expect(t.repo.rows.get(s.sessionId)).toMatchObject({ state: 'closed', canvasId: 'F0CANVAS' });
    // A second end (a restart before it was recorded) does nothing more.
    const before = t.calls.length;
    await t.channels.finished(opened, 'ts-report', { sessionId: s.sessionId, status: 'completed' });
    expect(t.calls.length).toBe(before);
  });

  it('kept open: not archived, the summary posted back to the origin thread by its key', async () => {
    const t = setup();
    const s = t.add({ threadTs: '1700000000.000001' });
    await t.channels.open(s.sessionId, 'keep');
    await t.channels.finished(t.sessions.get(s.sessionId) as SessionRecord, 'ts-report', {
      sessionId: s.sessionId,
      status: 'completed',
    });
    expect(t.calls).not.toContain('archive');
    expect(t.posts).toContainEqual(['C0AGENTS', '1700000000.000001', 'code-channel:summary']);
  });
});

describe('the context bar', () => {
  it('at most 5 items: status, cost against budget, rounds, then Pause or Resume and Cancel while it runs', () => {
    const base = { sessionId: 's', goal: 'g', startedBy: 'U0ALICE', startedByName: 'alice', budget: 5 };
    const running = contextBar({
      ...base,
      status: 'running',
      snapshot: { cost: { totalCost: 1.25 }, rounds: [{}, {}] },
    });
    expect(running.map((i) => i.label)).toEqual([
      '⚙️ Running',
      'Cost $1.25 of $5.00',
      '2 rounds',
      '⏸ Pause',
      '🛑 Cancel',
    ]);
    expect(running.filter((i) => i.item_type === 'action').map((i) => i.key)).toEqual([
      CONTEXT_ACTIONS.pauseOrResume,
      CONTEXT_ACTIONS.cancel,
    ]);
    expect(contextBar({ ...base, status: 'paused', snapshot: undefined })[3]?.label).toBe('▶ Resume');
    const ended = contextBar({ ...base, status: 'completed', snapshot: undefined });
    expect(ended.map((i) => i.key)).toEqual(['status', 'cost', 'rounds', 'started_by']);
    expect(ended.every((i) => i.item_type === 'info')).toBe(true);
  });
});

describe('steering from the channel', () => {
  function steer(status = 'running') {
    const s = sessionOf({ status, homeChannelId: 'C0CODE' });
    const signals: unknown[][] = [];
    const told: string[] = [];
    const claimed = new Set<string>();
    const ok: Outcome = { ok: true };
    const steering = new ChannelSteering({
      sessions: { findByHome: async (id) => (id === 'C0CODE' ? s : undefined) },
      steering: {
        signal: vi.fn(async (...args: unknown[]) => {
          signals.push(args);
          return ok;
        }),
        resume: vi.fn(async (...args: unknown[]) => {
          signals.push(['resume', ...args]);
          return ok;
        }),
      },
      directory: { status: async () => 'Running' },
      notifier: { tell: async (_c, _u, text) => void told.push(text) },
      claim: async (key) => !claimed.has(key) && Boolean(claimed.add(key)),
    });
    return { steering, signals, told, s };
  }

  it('the commands as /agent has them, each problem named; elsewhere the channel is no session’s', async () => {
    const t = steer();
    expect(await t.steering.command('C0CODE', 'U0ALICE', 'pause', '')).toEqual({ say: '⏸️ Paused.' });
    expect(await t.steering.command('C0CODE', 'U0ALICE', 'redirect', 'docs first')).toEqual({
      say: '↪️ Redirected.',
    });
    expect(await t.steering.command('C0CODE', 'U0ALICE', 'redirect', ' ')).toEqual({
      say: expect.stringContaining('the direction is missing'),
    });
    expect(await t.steering.command('C0CODE', 'U0ALICE', 'budget', 'lots')).toEqual({
      say: expect.stringContaining('must be a positive number of USD, like 10 or 2.50, got "lots"'),
    });
    expect(await t.steering.command('C0CODE', 'U0ALICE', 'budget', '$12')).toEqual({
      say: '▶️ Budget raised to $12.00.',
    });
    expect(t.signals).toEqual([
      [t.s.sessionId, 'U0ALICE', 'pause'],
      [t.s.sessionId, 'U0ALICE', 'redirect', { message: 'docs first' }],
      [t.s.sessionId, 'U0ALICE', 'resume', { newBudget: 12 }],
    ]);
    expect(await t.steering.command('C0AGENTS', 'U0ALICE', 'pause', '')).toEqual({
      say: '⚠️ This channel is no agent session’s.',
    });
  });

  it('a context bar click acts once per event: Pause while running, Resume once paused', async () => {
    const running = steer('running');
    await running.steering.action('Ev1', 'C0CODE', 'U0BOB', CONTEXT_ACTIONS.pauseOrResume);
    await running.steering.action('Ev1', 'C0CODE', 'U0BOB', CONTEXT_ACTIONS.pauseOrResume);
    expect(running.signals).toEqual([[running.s.sessionId, 'U0BOB', 'pause']]);
    const paused = steer('paused');
    await paused.steering.action('Ev2', 'C0CODE', 'U0BOB', CONTEXT_ACTIONS.pauseOrResume);
    await paused.steering.action('Ev3', 'C0CODE', 'U0BOB', CONTEXT_ACTIONS.cancel);
    expect(paused.signals).toEqual([
      ['resume', paused.s.sessionId, 'U0BOB'],
      [paused.s.sessionId, 'U0BOB', 'cancel'],
    ]);
  });
});

describe('/agent start --channel', () => {
  it('asks for a channel of its own; the flag takes no value and leaves the goal alone', () => {
    expect(parseAgentCommand('start --channel fix the build --budget 5')).toEqual({
      kind: 'start',
      goal: 'fix the build',
      budget: 5,
      codeChannel: true,
    });
    expect(parseAgentCommand('start fix the --channels')).toEqual({
      kind: 'error',
      message: 'unknown flag --channels; flags are --budget, --max-iterations and --channel',
    });
  });
});
