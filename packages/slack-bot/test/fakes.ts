/**
 * In-memory stand-ins for the bot's repositories, Slack's chat calls and the service's client: the
 * services' decisions tested in milliseconds. The SQL behind the real repositories is tested on
 * PGlite and PostgreSQL in store/store.test.ts; the whole bot end to end in the root test/e2e.
 */
import {
  type HumanInputAnswer,
  type HumanInputRequest,
  ServiceError,
  SessionError,
} from '@agent-sessions/core';
import { createLogger } from '../src/logger.js';
import { refKeyOf } from '../src/refs.js';
import { BotMetrics } from '../src/services/ops/metrics.js';
import type { ActPolicy, Verdict } from '../src/services/people/policy.js';
import { Notifier } from '../src/services/slack-out/thread/index.js';
import type {
  ClaimResult,
  NewPrompt,
  PostRepository,
  PostState,
  PromptInSession,
  PromptLocator,
  PromptRecord,
  PromptRepository,
  SessionRecord,
  SessionWithPending,
} from '../src/store/index.js';

export const logger = createLogger({ secrets: [], level: 'silent' });
export const metrics = () => new BotMetrics(() => undefined);

export const session = (extra: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId: 'sess_1',
  channelId: 'C0AGENTS',
  cardTs: '1700000000.000100',
  startedBy: 'U0ALICE',
  goal: 'Ship it',
  status: 'running',
  budget: null,
  finished: false,
  createdAt: '2026-11-22T12:00:00.000Z',
  ...extra,
});

/** A question of a kind, as the agent would ask it (test/support/questions.ts). */
export { question as request } from '../../../test/support/questions.js';

/** Every call of every fake, in order: what a test asserts on. */
export type Call = [method: string, ...args: unknown[]];

export class FakeSessions {
  readonly records = new Map<string, SessionRecord>();
  constructor(readonly calls: Call[] = []) {}
  add(record: SessionRecord): SessionRecord {
    this.records.set(record.sessionId, record);
    return record;
  }
  async create(r: Omit<SessionRecord, 'createdAt' | 'finished' | 'status'>): Promise<void> {
    this.calls.push(['sessions.create', r.sessionId]);
    this.records.set(r.sessionId, {
      ...r,
      status: 'queued',
      finished: false,
      createdAt: '2026-11-22T12:00:00Z',
    });
  }
  async get(sessionId: string): Promise<SessionRecord | undefined> {
    this.calls.push(['sessions.get', sessionId]);
    return this.records.get(sessionId);
  }
  async update(sessionId: string, patch: Partial<SessionRecord>): Promise<void> {
    this.calls.push(['sessions.update', sessionId, patch]);
    const current = this.records.get(sessionId);
    if (current) this.records.set(sessionId, { ...current, ...patch });
  }
  async findByThread(channelId: string, threadTs: string): Promise<SessionRecord | undefined> {
    this.calls.push(['sessions.findByThread', channelId, threadTs]);
    return [...this.records.values()]
      .reverse()
      .find((s) => s.channelId === channelId && (s.threadTs ?? s.cardTs) === threadTs);
  }
  async list(filter: {
    channelId?: string;
    startedBy?: string;
    activeOnly?: boolean;
  }): Promise<SessionRecord[]> {
    this.calls.push(['sessions.list', filter]);
    return [...this.records.values()].filter(
      (s) =>
        (!filter.channelId || s.channelId === filter.channelId) &&
        (!filter.startedBy || s.startedBy === filter.startedBy) &&
        (!filter.activeOnly || !s.finished),
    );
  }
}

/** Prompts in memory, claimed first-wins like the SQL one; `calls` counts every store touch. */
export class FakePrompts implements PromptRepository {
  readonly records = new Map<string, PromptRecord>();
  constructor(
    private readonly sessions: FakeSessions,
    readonly calls: Call[] = [],
  ) {}
  add(sessionId: string, request: HumanInputRequest, extra: Partial<PromptRecord> = {}): PromptRecord {
    const record: PromptRecord = {
      sessionId,
      inputId: request.inputId,
      channelId: 'C0AGENTS',
      messageTs: '1700000000.000200',
      request,
      state: 'pending',
      answeredBy: null,
      answeredAt: null,
      answer: null,
      refKey: refKeyOf(sessionId, request.inputId),
      ...extra,
    };
    this.records.set(`${sessionId}|${request.inputId}`, record);
    return record;
  }
  async save(p: NewPrompt): Promise<void> {
    this.calls.push(['prompts.save', p.inputId]);
    const existing = this.records.get(`${p.sessionId}|${p.inputId}`);
    this.add(p.sessionId, p.request, { ...existing, messageTs: p.messageTs ?? existing?.messageTs ?? null });
  }
  async get(sessionId: string, inputId: string): Promise<PromptRecord | undefined> {
    this.calls.push(['prompts.get', inputId]);
    return this.records.get(`${sessionId}|${inputId}`);
  }
  async find(locator: PromptLocator): Promise<PromptInSession | undefined> {
    this.calls.push(['prompts.find', locator]);
    const prompt = [...this.records.values()].find((p) =>
      'refKey' in locator
        ? p.refKey === locator.refKey
        : p.sessionId === locator.sessionId && p.inputId === locator.inputId,
    );
    const session = prompt && this.sessions.records.get(prompt.sessionId);
    return prompt && session ? { ...prompt, session } : undefined;
  }
  async sessionWithPending(sessionId: string): Promise<SessionWithPending | undefined> {
    this.calls.push(['prompts.sessionWithPending', sessionId]);
    const session = this.sessions.records.get(sessionId);
    const pending = [...this.records.values()].filter(
      (p) => p.sessionId === sessionId && p.state !== 'answered',
    );
    return session ? { session, pending } : undefined;
  }
  async pending(sessionId: string): Promise<PromptRecord[]> {
    this.calls.push(['prompts.pending', sessionId]);
    return [...this.records.values()].filter((p) => p.sessionId === sessionId && p.state !== 'answered');
  }
  async claim(sessionId: string, inputId: string, userId: string): Promise<ClaimResult> {
    this.calls.push(['prompts.claim', inputId, userId]);
    const p = this.records.get(`${sessionId}|${inputId}`);
    if (!p) return { claimed: false, state: 'missing', answeredBy: null, answeredAt: null };
    if (p.state !== 'pending') {
      return {
        claimed: false,
        state: p.state === 'answered' ? 'answered' : 'answering',
        answeredBy: p.answeredBy,
        answeredAt: p.answeredAt,
      };
    }
    p.state = 'answering';
    p.answeredBy = userId;
    return { claimed: true };
  }
  async complete(
    sessionId: string,
    inputId: string,
    answer: HumanInputAnswer | null,
  ): Promise<string | null> {
    this.calls.push(['prompts.complete', inputId, answer]);
    const p = this.records.get(`${sessionId}|${inputId}`);
    if (!p) return null;
    p.state = 'answered';
    p.answer = answer;
    p.answeredAt = '2026-11-22T14:02:00.000Z';
    return p.answeredAt;
  }
  async release(sessionId: string, inputId: string, userId: string): Promise<void> {
    this.calls.push(['prompts.release', inputId, userId]);
    const p = this.records.get(`${sessionId}|${inputId}`);
    if (p?.state === 'answering' && p.answeredBy === userId) {
      p.state = 'pending';
      p.answeredBy = null;
    }
  }
}

type Args = Record<string, unknown>;

/** Slack's chat methods, recorded; `fail` makes the next call of a method fail as Slack would. */
export class FakeSlack {
  readonly fail = new Map<string, string>();
  #ts = 300;
  constructor(readonly calls: Call[] = []) {}
  #call(method: string, given: object): { ok: true; ts: string } {
    const args: Args = { ...given };
    this.calls.push([method, args]);
    const code = this.fail.get(method);
    if (code) {
      this.fail.delete(method);
      throw Object.assign(new Error(`An API error occurred: ${code}`), { data: { ok: false, error: code } });
    }
    return { ok: true, ts: `1700000000.000${this.#ts++}` };
  }
  readonly chat = {
    postMessage: async (args: object) => this.#call('chat.postMessage', args),
    postEphemeral: async (args: object) => this.#call('chat.postEphemeral', args),
    update: async (args: object) => this.#call('chat.update', args),
    delete: async (args: object) => this.#call('chat.delete', args),
  };
  /** The calls of one method, their arguments. */
  of(method: string): Args[] {
    return this.calls.filter(([m]) => m === method).map(([, args]) => args as Args);
  }
}

/** The service's session calls, recorded; `respondError` makes respond fail. */
export class FakeService {
  respondError: Error | undefined;
  signalError: Error | undefined;
  /** What `get` answers (a running session unless a test says); `null`: the service can't be reached. */
  snapshot: Record<string, unknown> | null | undefined;
  constructor(readonly calls: Call[] = []) {}
  readonly sessions = {
    respond: async (sessionId: string, inputId: string, answer: HumanInputAnswer) => {
      this.calls.push(['service.respond', sessionId, inputId, answer]);
      if (this.respondError) throw this.respondError;
      return { inputId, status: 'responded' };
    },
    create: async (body: { goal: string }) => {
      this.calls.push(['service.create', body]);
      return { sessionId: 'sess_new', status: 'queued' };
    },
    get: async (sessionId: string) => {
      this.calls.push(['service.get', sessionId]);
      if (this.snapshot === null) throw new Error('the service could not be reached');
      return { sessionId, status: 'running', cost: { totalCost: 1.5 }, rounds: [], ...this.snapshot };
    },
    pause: async (sessionId: string, body?: { reason?: string }) => this.#signal('pause', sessionId, body),
    resume: async (sessionId: string, body?: { newBudget?: number; message?: string }) =>
      this.#signal('resume', sessionId, body),
    cancel: async (sessionId: string, body?: { reason?: string }) => this.#signal('cancel', sessionId, body),
    redirect: async (sessionId: string, body: { message: string }) =>
      this.#signal('redirect', sessionId, body),
  };
  async #signal(signal: string, sessionId: string, body: unknown) {
    this.calls.push([`service.${signal}`, sessionId, body]);
    if (this.signalError) throw this.signalError;
    return { sessionId, signal };
  }
}

const serviceError = (status: number, message: string) => ({
  status,
  message,
  body: { error: message },
  headers: {},
  method: 'POST',
  path: '/v1/sessions/sess_1/human-input/in_1',
});
export const alreadyAnswered = () => new SessionError(serviceError(409, 'Input already answered'));
export const serverError = () => new ServiceError(serviceError(500, 'boom'));

/** A policy that answers as told, and records whom it was asked about. */
export class FakePolicy implements ActPolicy {
  verdict: Verdict = { allowed: true };
  readonly asked: string[] = [];
  async mayAct(userId: string): Promise<Verdict> {
    this.asked.push(userId);
    return this.verdict;
  }
}

/** Who may see a session, as told: everyone unless named in `hidden`; records whom it was asked about. */
export class FakeVisibility {
  readonly hidden = new Set<string>();
  readonly asked: string[] = [];
  async maySee(userId: string): Promise<boolean> {
    this.asked.push(userId);
    return !this.hidden.has(userId);
  }
}

/** Everything a service needs, faked, sharing one call log. */
export function fakeWorld() {
  const calls: Call[] = [];
  const sessions = new FakeSessions(calls);
  const prompts = new FakePrompts(sessions, calls);
  const slack = new FakeSlack(calls);
  const service = new FakeService(calls);
  const policy = new FakePolicy();
  const visibility = new FakeVisibility();
  const pokes: string[] = [];
  const notifier = new Notifier({
    slack,
    follower: { poke: () => false },
    leases: { poke: async (sessionId) => void pokes.push(sessionId) },
    logger,
  });
  const metered = metrics();
  return {
    calls,
    sessions,
    prompts,
    slack,
    service,
    policy,
    visibility,
    notifier,
    pokes,
    metrics: metered,
    logger,
  };
}

/** The store touches in a call log. */
export const storeTouches = (calls: Call[]) =>
  calls.filter(([m]) => m.startsWith('prompts.') || m.startsWith('sessions.')).map(([m]) => m);

/** Posted keys in memory, first begin wins like the SQL one. */
export class FakePosts implements PostRepository {
  readonly posts = new Map<string, { ts: string | null; since: string; body?: string }>();
  async begin(sessionId: string, key: string, body?: string): Promise<PostState> {
    const found = this.posts.get(`${sessionId}|${key}`);
    if (!found) {
      this.posts.set(`${sessionId}|${key}`, {
        ts: null,
        since: new Date().toISOString(),
        ...(body !== undefined ? { body } : {}),
      });
      return { state: 'new' };
    }
    return found.ts ? { state: 'posted', ts: found.ts } : { state: 'pending', since: found.since };
  }
  async finish(sessionId: string, key: string, ts: string): Promise<void> {
    this.posts.set(`${sessionId}|${key}`, { ts, since: '' });
  }
  async ts(sessionId: string, key: string): Promise<string | undefined> {
    return this.posts.get(`${sessionId}|${key}`)?.ts ?? undefined;
  }
  async withPrefix(sessionId: string, keyPrefix: string): Promise<Array<{ key: string; ts: string }>> {
    const out: Array<{ key: string; ts: string }> = [];
    for (const [id, { ts }] of this.posts) {
      const [s, key = ''] = id.split('|');
      if (s === sessionId && key.startsWith(keyPrefix) && ts) out.push({ key, ts });
    }
    return out;
  }
  async abandon(sessionId: string, key: string): Promise<void> {
    this.posts.delete(`${sessionId}|${key}`);
  }
  async unsentSessions(limit: number): Promise<string[]> {
    const out = new Set<string>();
    for (const [id, { ts, body }] of this.posts)
      if (!ts && body !== undefined) out.add(id.split('|')[0] ?? '');
    return [...out].slice(0, limit);
  }
  async unsent(sessionId: string): Promise<Array<{ key: string; body: string; since: string }>> {
    const out: Array<{ key: string; body: string; since: string }> = [];
    for (const [id, { ts, body, since }] of this.posts) {
      const [s, key = ''] = id.split('|');
      if (s === sessionId && !ts && body !== undefined) out.push({ key, body, since });
    }
    return out;
  }
}

/** A promise the test settles by hand: a step of the code under test waits on it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * FakePosts whose answers a test holds, to force one interleaving of the posters: a key's `begin` waits for
 * `beforeBegin`'s gate (its record not made yet) and answers once `afterBegin`'s is open (recorded already);
 * `unsent` reads the records once `unsentHeld` is open. `readingUnsent`: reads not yet answered.
 */
export class HeldPosts extends FakePosts {
  readonly beforeBegin = new Map<string, Promise<void>>();
  readonly afterBegin = new Map<string, Promise<void>>();
  unsentHeld: Promise<void> = Promise.resolve();
  readingUnsent = 0;
  readonly #unsentAnswered: Array<() => void> = [];

  override async begin(sessionId: string, key: string, body?: string): Promise<PostState> {
    await this.beforeBegin.get(key);
    const state = await super.begin(sessionId, key, body);
    await this.afterBegin.get(key);
    return state;
  }

  override async unsent(sessionId: string): Promise<Array<{ key: string; body: string; since: string }>> {
    this.readingUnsent++;
    try {
      await this.unsentHeld;
      return await super.unsent(sessionId);
    } finally {
      this.readingUnsent--;
      for (const answered of this.#unsentAnswered.splice(0)) answered();
    }
  }

  /** Settles once the next `unsent` read answers (its reader goes on in the same turn of the event loop). */
  nextUnsentAnswer(): Promise<void> {
    return new Promise((resolve) => this.#unsentAnswered.push(resolve));
  }

  /** Whether the key is recorded (with or without its ts). */
  recorded(sessionId: string, key: string): boolean {
    return this.posts.has(`${sessionId}|${key}`);
  }
}
