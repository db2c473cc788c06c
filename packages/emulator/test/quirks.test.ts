import { describe, expect, it } from 'vitest';
import { parseQuirks } from '../src/quirks.js';
import type { EmulatorOptions } from '../src/server.js';
import { inProcessEmulator, type Json } from './in-process.js';

interface WireMessage extends Json {
  roundId: string;
  content: unknown;
}
interface WirePage {
  messages: WireMessage[];
  pagination: { count: number; hasMore: boolean; lastRoundId: string | null };
}
interface WireRound extends Json {
  roundId: string;
  index: number;
  trigger: string;
  status: string;
  completedAt: unknown;
  humanInput?: { inputId: string; status: string } | null;
}

function setup(quirks: string, options: EmulatorOptions = {}) {
  const { deps, call } = inProcessEmulator(quirks, options);
  const create = async (goal: string, extra: object = {}) => {
    const res = await call('POST', '/v1/sessions', { goal, ...extra });
    expect(res.status).toBe(201);
    return res.body.sessionId as string;
  };
  const status = async (id: string) => (await call('GET', `/v1/sessions/${id}`)).body;
  const rounds = async (id: string) => (await status(id)).rounds as WireRound[];
  const page = async (id: string, query: { after?: string; limit?: number } = {}) => {
    const params = new URLSearchParams({ limit: String(query.limit ?? 200) });
    if (query.after !== undefined) params.set('after', query.after);
    const res = await call('GET', `/v1/sessions/${id}/messages?${params}`);
    expect(res.status).toBe(200);
    return res.body as unknown as WirePage;
  };
  /** Steps virtual time in small slices, as a caller polling would see it, until `done` or `ms` is spent. */
  const runUntil = async (id: string, done: (s: Json) => boolean, ms = 120_000) => {
    for (let t = 0; t < ms; t += 250) {
      if (done(await status(id))) return;
      deps.scheduler.advance(250);
    }
    throw new Error(`session ${id} never got there: ${JSON.stringify(await status(id))}`);
  };
  return { deps, call, create, status, rounds, page, runUntil };
}

const isWaiting = (s: Json) => s.status === 'waiting_human';
const isTerminal = (s: Json) =>
  ['completed', 'cancelled', 'error', 'complete', 'failed'].includes(String(s.status));

describe('EMULATOR_QUIRKS names', () => {
  it('reads all, a comma list, and the two readings of after', () => {
    expect(parseQuirks(undefined)).toMatchObject({ concurrentRounds: false, after: 'round-created' });
    expect(parseQuirks('all')).toEqual({
      concurrentRounds: true,
      after: 'message-position',
      nulls: true,
      firestoreTimestamps: true,
      unknownStatus: true,
      completeSpelling: true,
      hiddenEntries: true,
      extraFields: true,
      toolCallContentNull: true,
    });
    expect(parseQuirks('all, after=round-created').after).toBe('round-created');
    expect(parseQuirks('nulls,after=message-position')).toMatchObject({
      nulls: true,
      after: 'message-position',
    });
  });

  it('refuses an unknown name, naming it and the valid ones, and two readings of after', () => {
    expect(() => parseQuirks('nulls,sideways')).toThrow(
      /unknown quirk "sideways"; valid quirks: all, concurrent-rounds/,
    );
    expect(() => parseQuirks('after=round-created,after=message-position')).toThrow(/can't both be on/);
  });

  it('can be read and switched through /_emulator/quirks', async () => {
    const { call, deps } = setup('');
    expect((await call('GET', '/_emulator/quirks')).body).toEqual({ quirks: ['after=round-created'] });
    const set = await call('POST', '/_emulator/quirks', { quirks: 'nulls,extra-fields' });
    expect(set.body).toEqual({ quirks: ['nulls', 'extra-fields', 'after=round-created'] });
    expect(deps.present.quirks.nulls).toBe(true);
    const bad = await call('POST', '/_emulator/quirks', { quirks: 'loud' });
    expect(bad).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/unknown quirk "loud"/) },
    });
    expect(deps.present.quirks.extraFields).toBe(true);
  });
});

describe('concurrent-rounds', () => {
  it('interleaves subagent rounds with the main one; an older round grows after a newer one exists', async () => {
    const { create, runUntil, page, rounds } = setup('concurrent-rounds');
    const id = await create('scenario:approval ship it');
    await runUntil(id, isWaiting);
    const list = await rounds(id);
    const order = (await page(id)).messages.map((m) => list.findIndex((r) => r.roundId === m.roundId));
    // Some message of a round comes after a message of a newer round.
    const olderGrewLater = order.some((r, i) => order.slice(0, i).some((earlier) => earlier > r));
    expect(olderGrewLater, order.join(',')).toBe(true);
    expect(list.map((r) => r.trigger)).toEqual(['create', 'subagent', 'subagent', 'subagent']);
    // Each round carries its own status: finished subagents are completed, with completedAt.
    expect(list.filter((r) => r.status === 'completed').every((r) => r.completedAt !== null)).toBe(true);
    expect(list.filter((r) => r.status === 'running' || r.status === 'waiting_human').length).toBeGreaterThan(
      0,
    );
  });

  it('asks from a subagent round older than the newest round; the answer works and the outcome holds', async () => {
    const { create, runUntil, rounds, call, status, page } = setup('concurrent-rounds');
    const id = await create('scenario:approval ship it');
    await runUntil(id, isWaiting);
    const before = await rounds(id);
    const asking = before.findIndex((r) => r.humanInput?.status === 'pending');
    expect(before[asking]?.trigger).toBe('subagent');
    expect(asking).toBeLessThan(before.length - 1);
    // The question is announced in the messages of that round too.
    const question = (await page(id)).messages.find((m) => m.name === 'human_input_needed');
    expect(question?.roundId).toBe(before[asking]?.roundId);

    const inputId = before[asking]?.humanInput?.inputId;
    const ack = await call('POST', `/v1/sessions/${id}/human-input/${inputId}`, { approved: true });
    expect(ack).toMatchObject({ status: 200, body: { status: 'responded', roundId: expect.any(String) } });
    await runUntil(id, isTerminal);
    const done = await status(id);
    expect(done).toMatchObject({
      status: 'completed',
      completionReport: { summary: expect.stringMatching(/Deployed/) },
    });
    // The asking subagent said one more thing on the answer, and every round ended.
    const after = done.rounds as WireRound[];
    expect(after[asking]?.messageCount).toBe(Number(before[asking]?.messageCount) + 1);
    expect((done.rounds as WireRound[]).every((r) => r.completedAt !== null)).toBe(true);
  });

  it('asks from the main round while a newer subagent round is open', async () => {
    const { create, runUntil, rounds, call, status } = setup('concurrent-rounds');
    const id = await create('scenario:free_text name it');
    await runUntil(id, isWaiting);
    const list = await rounds(id);
    const asking = list.findIndex((r) => r.humanInput?.status === 'pending');
    expect(list[asking]?.trigger).toBe('create');
    expect(asking).toBeLessThan(list.length - 1);
    const inputId = list[asking]?.humanInput?.inputId;
    await call('POST', `/v1/sessions/${id}/human-input/${inputId}`, { freeText: 'Aurora' });
    await runUntil(id, isTerminal);
    expect(await status(id)).toMatchObject({
      status: 'completed',
      completionReport: { summary: 'Release "Aurora" prepared.' },
    });
  });

  it.each([
    ['complete', {}, 'completed'],
    ['single_select', { choiceId: 'canary' }, 'completed'],
    ['multi_select', { choiceIds: ['eu', 'ap'] }, 'completed'],
    ['multi_question', { answers: { name: 'R1', channel: 'beta' } }, 'completed'],
    ['error', {}, 'error'],
    ['growing_round', {}, 'completed'],
    ['chatty', {}, 'completed'],
  ])('runs scenario %s to its outcome', async (scenario, answer, outcome) => {
    const { create, runUntil, rounds, call, status } = setup('concurrent-rounds');
    const id = await create(`scenario:${scenario} go`);
    await runUntil(id, (s) => isWaiting(s) || isTerminal(s));
    const pending = (await rounds(id)).find((r) => r.humanInput?.status === 'pending');
    if (pending) {
      const res = await call('POST', `/v1/sessions/${id}/human-input/${pending.humanInput?.inputId}`, answer);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await runUntil(id, isTerminal);
    }
    const done = await status(id);
    expect(done.status).toBe(outcome);
    expect((done.rounds as WireRound[]).every((r) => r.completedAt !== null)).toBe(true);
  });

  it('keeps signals working: pause closes subagents, resume and redirect open new rounds, cancel ends all', async () => {
    const { create, runUntil, rounds, call, status, deps } = setup('concurrent-rounds');
    const id = await create('scenario:long x');
    await runUntil(id, (s) => (s.rounds as WireRound[]).length >= 2);
    const signal = (body: object) => call('POST', `/v1/sessions/${id}/signal`, body);
    expect((await signal({ type: 'pause' })).status).toBe(202);
    expect((await rounds(id)).every((r) => r.completedAt !== null || r.trigger !== 'subagent')).toBe(true);
    const resumed = await signal({ type: 'resume' });
    expect(resumed.body.roundId).toEqual(expect.any(String));
    deps.scheduler.advance(5_000);
    expect((await status(id)).status).toBe('running');
    const redirected = await signal({ type: 'redirect', message: 'do the other thing' });
    expect(redirected.status).toBe(202);
    deps.scheduler.advance(5_000);
    expect((await signal({ type: 'cancel' })).status).toBe(202);
    const end = await status(id);
    expect(end.status).toBe('cancelled');
    expect((end.rounds as WireRound[]).every((r) => r.completedAt !== null)).toBe(true);
    expect((end.rounds as WireRound[]).filter((r) => r.trigger === 'subagent').length).toBeGreaterThan(1);
  });

  it('stops at cost_limit with its subagents ended, and finishes after a resume with a larger budget', async () => {
    const { create, runUntil, rounds, call, status } = setup('concurrent-rounds');
    const id = await create('scenario:cost_limit x');
    await runUntil(id, (s) => s.status === 'cost_limit');
    expect((await rounds(id)).every((r) => r.completedAt !== null)).toBe(true);
    const resumed = await call('POST', `/v1/sessions/${id}/signal`, { type: 'resume', newBudget: 100 });
    expect(resumed).toMatchObject({ status: 202, body: { roundId: expect.any(String) } });
    await runUntil(id, isTerminal);
    expect((await status(id)).status).toBe('completed');
  });

  it('redirects a session whose question a subagent asked; the question is superseded', async () => {
    const { create, runUntil, rounds, call } = setup('concurrent-rounds');
    const id = await create('scenario:single_select x');
    await runUntil(id, isWaiting);
    expect(
      (await call('POST', `/v1/sessions/${id}/signal`, { type: 'redirect', message: 'skip it' })).status,
    ).toBe(202);
    const list = await rounds(id);
    expect(list.find((r) => r.humanInput)?.humanInput?.status).toBe('superseded');
  });
});

describe.each(['round-created', 'message-position'] as const)(
  'concurrent-rounds with after=%s',
  (reading) => {
    /** The messages one reader has seen of each round, in order, keyed by roundId. */
    const byRound = (messages: WireMessage[]) => {
      const out = new Map<string, string[]>();
      for (const m of messages) out.set(m.roundId, [...(out.get(m.roundId) ?? []), JSON.stringify(m)]);
      return out;
    };

    it('answers after as the reading says, and re-reads show each round in a stable order', async () => {
      const { create, rounds, call, page, deps } = setup(`concurrent-rounds,after=${reading}`);
      const id = await create('scenario:approval x', { context: { workSteps: 2 } });
      /** Per read (from the start, or after a finished round): each round's messages so far. */
      const earlier = new Map<string, Map<string, string[]>>();
      const stable = (from: string, messages: WireMessage[]) => {
        const now = byRound(messages);
        for (const [roundId, before] of earlier.get(from) ?? []) {
          // Re-reading from the same place: what a round showed before comes again, first, in the same order.
          expect(now.get(roundId)?.slice(0, before.length), `${from} ${roundId}`).toEqual(before);
        }
        earlier.set(from, now);
      };
      let answered = false;
      let interleaved = false;
      for (let step = 0; step < 400; step++) {
        deps.scheduler.advance(250);
        const full = (await page(id)).messages;
        stable('start', full);
        const list = await rounds(id);
        const indexOf = (roundId: string) => list.findIndex((r) => r.roundId === roundId);
        interleaved ||= full.some((m, i) =>
          full.slice(0, i).some((e) => indexOf(e.roundId) > indexOf(m.roundId)),
        );
        for (const round of list) {
          const after = (await page(id, { after: round.roundId })).messages;
          if (round.completedAt !== null) stable(round.roundId, after);
          if (!full.some((m) => m.roundId === round.roundId)) continue;
          const expected =
            reading === 'round-created'
              ? full.filter((m) => indexOf(m.roundId) > round.index)
              : full.slice(full.findLastIndex((m) => m.roundId === round.roundId) + 1);
          expect(after).toEqual(expected);
        }
        const pending = list.find((r) => r.humanInput?.status === 'pending');
        if (pending && !answered) {
          await call('POST', `/v1/sessions/${id}/human-input/${pending.humanInput?.inputId}`, {
            approved: false,
          });
          answered = true;
        }
        if (answered && list.every((r) => r.completedAt !== null)) break;
      }
      expect(answered).toBe(true);
      expect(interleaved).toBe(true);
      expect(earlier.size).toBeGreaterThan(5);
    });
  },
);

describe('hidden-entries', () => {
  it.each([
    ['hidden-entries', 'round-created'],
    ['hidden-entries,after=message-position', 'message-position'],
    ['hidden-entries,concurrent-rounds', 'round-created'],
    ['all', 'message-position'],
  ])(
    '%s: short and empty pages with hasMore, and lastRoundId walks the whole stream',
    async (quirks, reading) => {
      const { create, runUntil, rounds, call, page, deps } = setup(quirks);
      const id = await create('scenario:single_select x');
      await runUntil(id, isWaiting);
      const pending = (await rounds(id)).find((r) => r.humanInput?.status === 'pending');
      await call('POST', `/v1/sessions/${id}/human-input/${pending?.humanInput?.inputId}`, {
        choiceId: 'staging',
      });
      await runUntil(id, isTerminal);
      deps.scheduler.advance(10_000);

      const walked: WireMessage[] = [];
      const pages: WirePage[] = [];
      let after: string | undefined;
      for (;;) {
        const p = await page(id, after === undefined ? {} : { after });
        pages.push(p);
        walked.push(...p.messages);
        expect(p.pagination.count).toBe(p.messages.length);
        if (!p.pagination.hasMore) break;
        expect(p.pagination.lastRoundId).not.toBeNull();
        expect(p.pagination.lastRoundId).not.toBe(after);
        after = p.pagination.lastRoundId ?? undefined;
        expect(pages.length).toBeLessThan(100);
      }
      expect(pages.some((p) => p.pagination.hasMore && p.messages.length === 0)).toBe(true);
      expect(pages.filter((p) => p.pagination.hasMore).length).toBeGreaterThan(1);
      // Nothing hidden shows, and the walk sees every visible message: by message position each once; by
      // round created a round may come again (whole, from its start) after a newer round's page.
      expect(walked.some((m) => String(m.content).startsWith('internal:'))).toBe(false);
      const total = (await rounds(id)).reduce((n, r) => n + Number(r.messageCount), 0);
      expect(new Set(walked.map((m) => JSON.stringify(m))).size).toBe(total);
      const admin = (await call('GET', '/_emulator/sessions')).body.sessions as Array<{
        messageCount: number;
      }>;
      expect(admin[0]?.messageCount).toBe(total);
      if (reading === 'message-position') expect(walked.length).toBe(total);
    },
  );
});

describe('shape quirks', () => {
  it('nulls: every absent optional field is null', async () => {
    const { create, runUntil, call, status, page } = setup('nulls');
    const id = await create('scenario:long x');
    await runUntil(id, (s) => Number((s.rounds as WireRound[])[0]?.messageCount) >= 3);
    const paused = await call('POST', `/v1/sessions/${id}/signal`, { type: 'pause' });
    expect(paused.body).toMatchObject({ roundId: null, signal: 'pause' });
    const s = await status(id);
    expect(s).toMatchObject({ completedAt: null, error: null, completionReport: null });
    expect((s.rounds as WireRound[])[0]).toMatchObject({ humanInput: null, note: null });
    const [first, toolCall] = (await page(id)).messages;
    expect(first).toMatchObject({ name: null, toolCallId: null, toolCalls: null, reasoning: null });
    expect(toolCall).toMatchObject({
      name: null,
      reasoning: null,
      reasoningDurationMs: null,
      toolCallId: null,
    });
  });

  it('firestore-timestamps: {_seconds,_nanoseconds}, unless EMULATOR_TIMESTAMPS chose another format', async () => {
    const firestore = setup('firestore-timestamps');
    const id = await firestore.create('g');
    firestore.deps.scheduler.advance(5_000);
    const s = await firestore.status(id);
    expect(s.createdAt).toEqual({ _seconds: expect.any(Number), _nanoseconds: expect.any(Number) });
    expect((s.rounds as WireRound[])[0]?.startedAt).toEqual({
      _seconds: expect.any(Number),
      _nanoseconds: expect.any(Number),
    });
    expect((await firestore.page(id)).messages[0]?.timestamp).toHaveProperty('_seconds');
    const epoch = setup('firestore-timestamps', { timestamps: 'epoch_ms' });
    expect((await epoch.status(await epoch.create('g'))).createdAt).toEqual(expect.any(Number));
  });

  it('unknown-status: thinking for the first seconds of a run, then running', async () => {
    const { create, status, deps } = setup('unknown-status');
    const id = await create('scenario:long x');
    const seen: string[] = [];
    for (let t = 0; t < 8_000; t += 250) {
      const now = String((await status(id)).status);
      if (seen.at(-1) !== now) seen.push(now);
      deps.scheduler.advance(250);
    }
    expect(seen).toEqual(['queued', 'orchestrating', 'thinking', 'running']);
  });

  it('complete-spelling: complete and failed', async () => {
    const { create, runUntil, status } = setup('complete-spelling');
    const ok = await create('scenario:complete x');
    const bad = await create('scenario:error x');
    await runUntil(ok, isTerminal);
    await runUntil(bad, isTerminal);
    expect((await status(ok)).status).toBe('complete');
    expect((await status(bad)).status).toBe('failed');
  });

  it('extra-fields: unknown fields on every object and response', async () => {
    const { runUntil, call, status, page } = setup('extra-fields');
    const created = await call('POST', '/v1/sessions', { goal: 'scenario:approval x' });
    expect(created.body).toHaveProperty('createdAt');
    const id = created.body.sessionId as string;
    await runUntil(id, isWaiting);
    const s = await status(id);
    expect(s).toHaveProperty('integrationId');
    expect(s.cost).toHaveProperty('currency', 'USD');
    const round = (s.rounds as WireRound[]).find((r) => r.humanInput);
    expect(round).toHaveProperty('model');
    expect(round?.humanInput).toHaveProperty('channel');
    const p = await page(id);
    expect(p).toHaveProperty('fetchedAt');
    expect(p.pagination).toHaveProperty('order', 'asc');
    expect(p.messages[0]).toHaveProperty('model');
    const ack = await call('POST', `/v1/sessions/${id}/human-input/${round?.humanInput?.inputId}`, {
      approved: true,
    });
    expect(ack.body).toHaveProperty('respondedAt');
    const signal = await call('POST', `/v1/sessions/${id}/signal`, { type: 'cancel' });
    expect(signal.body).toHaveProperty('acceptedAt');
    const error = await call('GET', '/v1/sessions/nope');
    expect(error).toMatchObject({ status: 404, body: { error: expect.any(String), code: 'http_404' } });
    const signup = await call('POST', '/api/auth/signup', { email: 'a@b.co', password: 'secret1' });
    expect(signup.body).toHaveProperty('kind');
    expect(signup.body.user).toHaveProperty('providerId');
  });

  it('tool-call-content-null: assistant messages with toolCalls have content null', async () => {
    const quirky = setup('tool-call-content-null');
    const plain = setup('');
    for (const { create, runUntil, page } of [quirky, plain]) {
      const id = await create('scenario:complete x');
      await runUntil(id, isTerminal);
      const calls = (await page(id)).messages.filter((m) => m.toolCalls);
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.map((m) => m.content)).toEqual(calls.map(() => (create === quirky.create ? null : '')));
    }
  });
});
