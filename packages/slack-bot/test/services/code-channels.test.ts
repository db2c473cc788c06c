import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { patient } from '../../../../test/support/patience.js';
import { layoutText, RENDER_MAX } from '../../src/blocks/agent-message.js';
import {
  CONTEXT_ACTIONS,
  channelMessageText,
  channelName,
  contextBar,
  planView,
} from '../../src/blocks/code-channel.js';
import {
  costText,
  elapsedText,
  roundsText,
  summaryLine,
  summaryOf,
} from '../../src/blocks/session-summary.js';
import { parseAgentCommand } from '../../src/command-parser.js';
import { createLogger } from '../../src/logger.js';
import { ChannelSteering } from '../../src/services/code-channels/channel-steering.js';
import { CodeChannels } from '../../src/services/code-channels/code-channels.js';
import type { Outcome } from '../../src/services/outcome.js';
import type { CodeChannelRecord, CodeChannelRepository } from '../../src/store/code-channels.js';
import type { SessionRecord } from '../../src/store/records.js';
import { isHonest, linksIn } from '../blocks/link-check.js';
import { unexpectedPings } from '../blocks/ping-check.js';
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
    if (s) s.codeChannelId = channelId;
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

function setup(
  answers: {
    create?: () => Promise<unknown>;
    archive?: () => Promise<unknown>;
    info?: () => Promise<unknown>;
  } = {},
  now?: () => number,
) {
  const sessions = new Map<string, SessionRecord>();
  const repo = new MemoryChannels(sessions);
  const calls: string[] = [];
  const posts: Array<[string, string | null, string]> = [];
  /** What each post would send Slack: its message, or its text as the thread poster lays it out. */
  const sent = new Map<string, unknown>();
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
    conversations: {
      invite: call('invite'),
      info: call('info', answers.info ?? (async () => ({ ok: true, channel: { is_private: false } }))),
    },
    canvases: { create: call('canvases.create', async () => ({ ok: true, canvas_id: 'F0CANVAS' })) },
  };
  const channels = new CodeChannels({
    store: { sessions: { get: async (id: string) => sessions.get(id) }, codeChannels: repo },
    slack: slack as never,
    outbound: { run: (c) => c.run() },
    poster: {
      post: async (place, key, message) => {
        posts.push([place.channelId, place.cardTs, key]);
        sent.set(key, message);
        return `ts-${key}`;
      },
      postText: async (place, key, text) => {
        posts.push([place.channelId, place.cardTs, key]);
        sent.set(key, layoutText(text, key));
        return [`ts-${key}`];
      },
    },
    logger: createLogger({ secrets: [], level: 'info', destination: sink }),
    ...(now ? { now } : {}),
  });
  const add = (extra: Partial<SessionRecord> = {}) => {
    const s = sessionOf({ workspace: 'T0A', ...extra });
    sessions.set(s.sessionId, s);
    return s;
  };
  return { channels, repo, calls, posts, sent, lines, add, sessions, slack };
}

describe('a session in a channel of its own', () => {
  it('made once, linked to the card; the starter invited, the commands set, one line on each side', async () => {
    const t = setup();
    const s = t.add();
    await t.channels.open(s.sessionId, 'archive');
    await t.channels.ensure(s.sessionId);
    expect(t.calls.filter((c) => c === 'create')).toHaveLength(1);
    expect(t.repo.rows.get(s.sessionId)).toMatchObject({ state: 'open', channelId: 'C0CODE' });
    expect(t.sessions.get(s.sessionId)?.codeChannelId).toBe('C0CODE');
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
    expect(t.sessions.get('s1')?.codeChannelId).toBeUndefined();
    const refusals = t.lines.filter((l) => /Slack refused a channel of its own/.test(l));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain('missing_scope');
  });

  it('a refusal is remembered an hour: a session after that asks Slack again', async () => {
    let now = Date.parse('2026-11-22T12:00:00.000Z');
    const t = setup({ create: async () => Promise.reject(slackError('missing_scope')) }, () => now);
    await t.channels.open(t.add({ sessionId: 's1' }).sessionId, 'archive');
    now += 59 * 60_000;
    await t.channels.open(t.add({ sessionId: 's2' }).sessionId, 'archive');
    expect(t.calls.filter((c) => c === 'create')).toHaveLength(1);
    now += 2 * 60_000;
    await t.channels.open(t.add({ sessionId: 's3' }).sessionId, 'archive');
    expect(t.calls.filter((c) => c === 'create')).toHaveLength(2);
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
    await vi.waitFor(() => expect(t.calls).toContain('create'), { timeout: patient(10_000) });
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

/** A report that pings the whole origin channel and shows one address while opening another. */
const HOSTILE =
  '<!channel> <https://evil.example|https://sso.corp.example> [Open the SSO page](https://evil.example) ![](@U0CFO) ![](#C0GENERAL) @here\n';
const dishonest = (value: unknown) => linksIn(value).filter((l) => !isHonest(l));

describe("the end's words go through the same rules as every message", () => {
  /** Ends a session kept open whose report summary is `summary`; what was posted back and the canvas. */
  async function endWith(summary: string) {
    const t = setup();
    const s = t.add({ threadTs: '1700000000.000001', goal: HOSTILE });
    await t.channels.open(s.sessionId, 'keep');
    await t.channels.finished(t.sessions.get(s.sessionId) as SessionRecord, 'ts-report', {
      sessionId: s.sessionId,
      status: 'completed',
      completionReport: { summary },
    });
    const canvas = (t.slack.canvases.create.mock.calls[0] as unknown[])[0] as {
      document_content: { markdown: string };
    };
    const content = (t.slack.agents.conversations.setCanvasContent.mock.calls[0] as unknown[])[0] as {
      content: string;
    };
    expect(content.content).toBe(canvas.document_content.markdown);
    return { summary: t.sent.get('code-channel:summary'), canvas: content.content };
  }

  // Each of Slack's limits a report crosses: a section, a markdown block, four parts, the render cap.
  it.each([100, 3_100, 11_100, 45_000, RENDER_MAX + 10, 200_000])(
    'a report of %i characters: the summary back in the origin thread pings nobody and links honestly',
    async (size) => {
      const { summary } = await endWith(HOSTILE.repeat(Math.ceil(size / HOSTILE.length)));
      expect(summary).toBeDefined();
      expect(unexpectedPings(summary)).toEqual([]);
      expect(dishonest(summary)).toEqual([]);
    },
  );

  it.each([100, RENDER_MAX + 10])(
    'a report of %i characters: its canvas has no ping, no mention or image syntax, no disguised link',
    async (size) => {
      const { canvas } = await endWith(HOSTILE.repeat(Math.ceil(size / HOSTILE.length)));
      const asMarkdown = { type: 'markdown', text: canvas };
      expect(unexpectedPings(asMarkdown)).toEqual([]);
      expect(dishonest(asMarkdown)).toEqual([]);
      expect(canvas).not.toMatch(/!\[[^\]]*\]\((?:@|#)/);
      expect(canvas).toContain('Open the SSO page ([evil.example](https://evil.example/))');
    },
  );
});

describe('the context bar', () => {
  const CREATED = '2026-11-22T12:00:00.000Z';
  const base = {
    sessionId: 's',
    goal: 'g',
    startedBy: 'U0ALICE',
    budget: 5,
    createdAt: CREATED,
    now: Date.parse('2026-11-22T12:05:00.000Z'),
  };

  it('at most 5 items: status, cost against budget, rounds, then Pause or Resume and Cancel while it runs', () => {
    const running = contextBar({
      ...base,
      status: 'running',
      snapshot: { cost: { totalCost: 1.25 }, rounds: [{}, {}] },
    });
    expect(running.map((i) => i.label)).toEqual([
      'Running',
      'Cost $1.25 of $5.00',
      '2 rounds',
      'Pause',
      'Cancel',
    ]);
    // Words, not Slack's fixed icons (none of them says a status, a cost or rounds).
    expect(running.some((i) => 'icon' in i)).toBe(false);
    expect(running.filter((i) => i.item_type === 'action').map((i) => i.key)).toEqual([
      CONTEXT_ACTIONS.pauseOrResume,
      CONTEXT_ACTIONS.cancel,
    ]);
    expect(contextBar({ ...base, status: 'paused', snapshot: undefined })[3]?.label).toBe('Resume');
  });

  it.each(['completed', 'complete', 'failed', 'error', 'cancelled'])(
    'ended (%s, a status as core knows it): no actions, how long it ran, the starter mentioned',
    (status) => {
      const ended = contextBar({ ...base, status, snapshot: undefined });
      expect(ended.map((i) => i.key)).toEqual(['status', 'cost', 'rounds', 'elapsed', 'started_by']);
      expect(ended.every((i) => i.item_type === 'info')).toBe(true);
      expect(ended[4]?.label).toBe('Started by <@U0ALICE>');
    },
  );
});

describe('the channel shows the summary every other view of the session reads', () => {
  const CREATED = '2026-11-22T12:00:00.000Z';
  const session = { goal: 'Rotate the keys scenario:happy_path', budget: 2, createdAt: CREATED };
  const running = { status: 'running', cost: { totalCost: 0.032 }, rounds: [{}, {}], createdAt: CREATED };
  const ended = { ...running, status: 'cancelled', completedAt: '2026-11-22T12:00:29.000Z' };
  const display = (status: string, snapshot: typeof running, now: number) => ({
    ...session,
    sessionId: 's',
    status,
    startedBy: 'U0ALICE',
    snapshot,
    now,
  });
  const later = Date.parse('2026-11-22T13:00:00.000Z');

  it.each([
    ['running', running],
    ['ended', ended],
  ] as const)('%s: the bar and the plan say summaryOf’s status, cost, rounds and elapsed time', (_, snap) => {
    for (const now of [Date.parse('2026-11-22T12:01:00.000Z'), later]) {
      const summary = summaryOf({ ...session, status: 'running' }, snap, now);
      const bar = contextBar(display('running', snap, now));
      expect(bar.slice(0, 3).map((i) => i.label)).toEqual([
        summary.label.replace(/^\S+\s/, ''),
        `Cost ${costText(summary)}`,
        roundsText(summary),
      ]);
      if (summary.ended) expect(bar[3]?.label).toBe(`Ran ${elapsedText(summary)}`);
      expect(JSON.stringify(planView(display('running', snap, now)))).toContain(
        `${summaryLine(summary)} · started by <@U0ALICE>`,
      );
    }
  });

  it('an ended session’s elapsed time stops at its end: the bar and the plan say the same an hour on', () => {
    const atEnd = contextBar(display('running', ended, Date.parse('2026-11-22T12:00:30.000Z')));
    const hourOn = contextBar(display('running', ended, later));
    expect(hourOn).toEqual(atEnd);
    expect(hourOn[3]?.label).toBe('Ran 29s');
    expect(JSON.stringify(planView(display('running', ended, later)))).toContain(
      '🛑 Ended · Cancelled · $0.032 of $2.00 · 2 rounds · 29s · started by <@U0ALICE>',
    );
  });
});

describe('what the channel shows', () => {
  it('the plan tab says each round’s status in words, as the card does', () => {
    const blocks = planView({
      sessionId: 's',
      goal: 'g',
      status: 'waiting_human',
      startedBy: 'U0ALICE',
      budget: null,
      createdAt: '2026-11-22T12:00:00.000Z',
      now: Date.parse('2026-11-22T12:05:00.000Z'),
      snapshot: { rounds: [{ roundNumber: 1, status: 'waiting_human' }] },
    });
    const words = JSON.stringify(blocks);
    expect(words).toContain('*Round 1* · 🙋 Waiting for an answer');
    expect(words).not.toContain('waiting_human');
  });

  it('a tool call as the thread’s stream shows it once done: one task card, not 🔧 and ↳ lines', () => {
    const options = { showReasoning: false, fallbackId: 'msg:1' };
    const calls = new Map();
    const call = channelMessageText(
      {
        role: 'assistant',
        content: 'Looking it up.',
        toolCalls: [{ id: 'call_1', name: 'search_docs', arguments: { q: 'rotation' } }],
      },
      options,
      calls,
    );
    const asked = layoutText(call as NonNullable<typeof call>, 'stem');
    expect(asked.kind === 'text' && asked.parts[0]?.blocks).toEqual([
      { type: 'markdown', text: 'Looking it up.' },
    ]);
    const result = channelMessageText(
      { role: 'tool', name: 'search_docs', toolCallId: 'call_1', content: 'Rotate every 90 days.' },
      options,
      calls,
    );
    const done = layoutText(result as NonNullable<typeof result>, 'stem');
    const text = (words: string) => ({
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: words }] }],
    });
    expect(done.kind === 'text' && done.parts[0]?.blocks).toEqual([
      {
        type: 'task_card',
        task_id: 'call_1',
        title: 'search_docs',
        status: 'complete',
        details: text('{"q":"rotation"}'),
        output: text('Rotate every 90 days.'),
      },
    ]);
    expect(calls.size).toBe(0);
    // A message of tool calls only shows nothing until its results come.
    const bare = { role: 'assistant', content: null, toolCalls: [{ id: 'call_2', name: 'deploy' }] };
    expect(channelMessageText(bare, options, calls)).toBeUndefined();
    const failed = channelMessageText(
      { role: 'tool', name: 'deploy', toolCallId: 'call_2', content: 'Error: refused' },
      options,
      calls,
    );
    expect(failed?.trailer).toEqual([expect.objectContaining({ title: 'deploy', status: 'error' })]);
  });
});

describe("the channel's name and privacy", () => {
  it("is the goal in Slack's channel-name characters, at most 80, cut at a word", () => {
    expect(channelName('Fix the BUILD: café <!channel> & ünïcode!')).toBe(
      'agent-fix-the-build-cafe-channel-unicode',
    );
    expect(channelName('   ')).toBe('agent');
    const long = channelName('word '.repeat(40));
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long).toMatch(/^[a-z0-9_-]+$/);
    expect(long.endsWith('-word')).toBe(true);
    expect(channelName('x'.repeat(200))).toHaveLength(80);
  });

  const createdWith = (t: ReturnType<typeof setup>) =>
    (t.slack.agents.conversations.create.mock.calls[0] as unknown[] | undefined)?.[0];

  it('public only when the origin is a public channel; a DM, a private channel or an unknown one: private', async () => {
    const open = setup();
    const s = open.add({ goal: 'Ship it!' });
    await open.channels.open(s.sessionId, 'archive');
    expect(createdWith(open)).toMatchObject({ is_private: false, name: 'agent-ship-it' });

    const closed = setup({ info: async () => ({ ok: true, channel: { is_private: true } }) });
    await closed.channels.open(closed.add().sessionId, 'archive');
    expect(createdWith(closed)).toMatchObject({ is_private: true });

    const dm = setup();
    await dm.channels.open(dm.add({ channelId: 'D0ALICE' }).sessionId, 'archive');
    expect(createdWith(dm)).toMatchObject({ is_private: true });
    expect(dm.calls).not.toContain('info');

    const unknown = setup({
      info: async () => {
        throw slackError('channel_not_found');
      },
    });
    await unknown.channels.open(unknown.add().sessionId, 'archive');
    expect(createdWith(unknown)).toMatchObject({ is_private: true });
  });
});

describe('steering from the channel', () => {
  function steer(status = 'running') {
    const s = sessionOf({ status, codeChannelId: 'C0CODE' });
    const signals: unknown[][] = [];
    const told: string[] = [];
    const claimed = new Set<string>();
    const ok: Outcome = { ok: true };
    const steering = new ChannelSteering({
      sessions: { findByCodeChannel: async (id) => (id === 'C0CODE' ? s : undefined) },
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
