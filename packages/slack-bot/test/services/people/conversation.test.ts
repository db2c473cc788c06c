import { describe, expect, it, vi } from 'vitest';
import type { Outcome } from '../../../src/services/outcome.js';
import {
  ConversationService,
  type IncomingMessage,
  replyAsAnswer,
  type ThreadReplies,
} from '../../../src/services/people/conversation.js';
import type { StartInput } from '../../../src/services/people/starting.js';
import { ThreadContextReader, tsBefore } from '../../../src/services/people/thread-context.js';
import type { PromptRecord, SessionRecord } from '../../../src/store/records.js';
import type {
  ThreadCacheLimits,
  ThreadMessage,
  ThreadMessageRepository,
} from '../../../src/store/thread-messages.js';
import { fakeWorld, request, session } from '../../fakes.js';

const BOT = 'U0AGENTBOT';

/** The store's kept messages in memory (its SQL: test/store/thread-messages.test.ts). */
class KeptMessages implements ThreadMessageRepository {
  rows: Array<ThreadMessage & { workspace: string; receivedAt: number }> = [];
  async remember(workspace: string, m: ThreadMessage) {
    if (this.rows.some((r) => r.workspace === workspace && r.channelId === m.channelId && r.ts === m.ts))
      return false;
    this.rows.push({ workspace, ...m, receivedAt: Date.now() });
    return true;
  }
  async thread(workspace: string, channelId: string, threadTs: string, beforeTs: string, limit: number) {
    const all = this.rows
      .filter((r) => r.workspace === workspace && r.channelId === channelId && r.threadTs === threadTs)
      .filter((r) => tsBefore(r.ts, beforeTs))
      .sort((a, b) => (tsBefore(a.ts, b.ts) ? -1 : 1));
    return { messages: all.slice(-limit), kept: all.length, rootKept: all.some((r) => r.ts === threadTs) };
  }
  /** Past the retention only (the workspace limit: the SQL's test). */
  async prune(workspace: string, limits: ThreadCacheLimits) {
    const before = this.rows.length;
    this.rows = this.rows.filter(
      (r) => r.workspace !== workspace || r.receivedAt >= Date.now() - limits.retentionMs,
    );
    return before - this.rows.length;
  }
}

/** A conversation over fakes: every call the service makes, recorded. */
function world(
  options: { threadReplies?: ThreadReplies; sessions?: SessionRecord[]; pending?: PromptRecord[] } = {},
) {
  const w = fakeWorld();
  const seen = new Set<string>();
  const reactions: string[] = [];
  const thread: Array<Record<string, unknown>> = [];
  const ok: Outcome = { ok: true };
  const deps = {
    events: { markProcessed: vi.fn(async (id: string) => !seen.has(id) && Boolean(seen.add(id))) },
    sessions: {
      findByThread: vi.fn(async (channelId: string, ts: string) =>
        (options.sessions ?? []).find((s) => s.channelId === channelId && (s.threadTs ?? s.cardTs) === ts),
      ),
      findByCodeChannel: vi.fn(async (channelId: string) =>
        (options.sessions ?? []).find((s) => s.codeChannelId === channelId),
      ),
    },
    prompts: { pending: vi.fn(async () => options.pending ?? []) },
    starting: {
      start: vi.fn(
        async (_input: StartInput): Promise<Outcome<{ sessionId: string }>> => ({ ok: true, sessionId: 's' }),
      ),
    },
    answering: { answer: vi.fn(async () => ok) },
    steering: { signal: vi.fn(async (..._args: unknown[]): Promise<Outcome> => ok) },
    policy: w.policy,
    notifier: w.notifier,
    slack: {
      reactions: {
        add: vi.fn(async (a: { name: string; timestamp: string }) => {
          reactions.push(`${a.timestamp}:${a.name}`);
          return { ok: true };
        }),
      },
      conversations: { replies: vi.fn(async () => ({ ok: true, messages: thread, has_more: false })) },
      chat: { getPermalink: vi.fn(async () => ({ ok: true, permalink: 'https://slack.test/p1' })) },
      users: {
        info: vi.fn(async ({ user }: { user: string }) => ({
          ok: true,
          user: { real_name: `Name ${user}` },
        })),
      },
    },
    metrics: w.metrics,
    logger: w.logger,
    threadReplies: options.threadReplies ?? 'steer',
    personReplied: vi.fn((_sessionId: string) => undefined),
  };
  const kept = new KeptMessages();
  const budgets = { take: vi.fn(async () => 0) };
  const threadContext = new ThreadContextReader({
    messages: kept,
    budgets,
    slack: deps.slack,
    logger: w.logger,
    limits: { cacheMessages: 1000, cacheRetentionMs: 60_000, readsPerMinute: 1, readLimit: 200 },
  } as unknown as ConstructorParameters<typeof ThreadContextReader>[0]);
  const service = new ConversationService({
    ...deps,
    threadContext,
  } as unknown as ConstructorParameters<typeof ConversationService>[0]);
  let n = 0;
  const message = (extra: Partial<IncomingMessage>): IncomingMessage => ({
    eventId: `Ev${++n}`,
    teamId: 'T0SANDBOX',
    channelId: 'C0AGENTS',
    channelType: 'channel',
    userId: 'U0ALICE',
    text: '',
    ts: `1700000100.00000${n}`,
    threadTs: undefined,
    botUserId: BOT,
    ...extra,
  });
  const ephemerals = () => w.slack.of('chat.postEphemeral').map((a) => String(a.text));
  return { ...w, deps, service, message, reactions, thread, ephemerals, kept, budgets };
}

const steered = session({ sessionId: 'sess_1', cardTs: '1700000000.000100', status: 'running' });
const reply = (text: string, extra: Partial<IncomingMessage> = {}): Partial<IncomingMessage> => ({
  text,
  threadTs: steered.cardTs as string,
  ...extra,
});

describe('starting from a mention or a DM', () => {
  it('a channel mention starts a session in its own thread, flags read, the mention taken out of the goal', async () => {
    const w = world();
    const m = w.message({ text: `<@${BOT}> tidy the docs --budget 5 --max-iterations 30` });
    await w.service.handle(m);
    expect(w.deps.starting.start).toHaveBeenCalledWith({
      channelId: 'C0AGENTS',
      userId: 'U0ALICE',
      goal: 'tidy the docs',
      budget: 5,
      maxIterations: 30,
      threadTs: m.ts,
    });
    expect(w.reactions).toEqual([`${m.ts}:eyes`]);
    expect(w.deps.slack.conversations.replies).not.toHaveBeenCalled();
  });

  it.each([`<@${BOT}> --channel tidy the docs`, `<@${BOT}> tidy the docs --channel`])(
    '%s: --channel before or after the goal, as in /agent start',
    async (text) => {
      const w = world();
      await w.service.handle(w.message({ text }));
      expect(w.deps.starting.start).toHaveBeenCalledWith(
        expect.objectContaining({ goal: 'tidy the docs', codeChannel: true }),
      );
    },
  );

  it('handles a message once: a retry (same event_id) and the mention’s second event (same ts) do nothing', async () => {
    const w = world();
    const m = w.message({ text: `<@${BOT}> tidy the docs` });
    await w.service.handle(m);
    await w.service.handle(m);
    await w.service.handle({ ...m, eventId: 'EvAppMention' });
    expect(w.deps.starting.start).toHaveBeenCalledTimes(1);
  });

  it('a bad flag is told privately with what was typed; nothing starts', async () => {
    const w = world();
    await w.service.handle(w.message({ text: `<@${BOT}> tidy --budget lots` }));
    expect(w.deps.starting.start).not.toHaveBeenCalled();
    expect(w.ephemerals()[0]).toMatch(
      /--budget must be a positive number[\s\S]*You wrote:\n> tidy --budget lots/,
    );
  });

  it('a bare mention outside a thread asks for a goal', async () => {
    const w = world();
    await w.service.handle(w.message({ text: `<@${BOT}>` }));
    expect(w.deps.starting.start).not.toHaveBeenCalled();
    expect(w.ephemerals()[0]).toMatch(/Tell me what to do/);
  });

  it('a DM starts a session there; an ordinary channel message is ignored', async () => {
    const w = world();
    const dm = w.message({ channelId: 'D0ALICE', channelType: 'im', text: 'summarise my week' });
    await w.service.handle(dm);
    expect(w.deps.starting.start).toHaveBeenCalledWith(
      expect.objectContaining({
        channelId: 'D0ALICE',
        goal: 'summarise my week',
        threadTs: dm.ts,
      }),
    );
    const marks = w.deps.events.markProcessed.mock.calls.length;
    await w.service.handle(w.message({ text: 'lunch anyone?' }));
    await w.service.handle(w.message({ text: 'a reply', threadTs: '1600000000.000001' }));
    expect(w.deps.starting.start).toHaveBeenCalledTimes(1);
    // Chatter the bot has no part in is neither handled nor recorded.
    expect(w.deps.events.markProcessed.mock.calls.length).toBe(marks);
  });

  it('a mention in a thread: its earlier messages, newest kept, bounded by 50 messages, cut stated', async () => {
    const w = world();
    for (let i = 0; i < 60; i++)
      w.thread.push({
        user: i % 2 ? 'U0BOB' : 'U0CAROL',
        text: `message ${i}`,
        ts: `1700000000.0001${String(i).padStart(2, '0')}`,
      });
    w.thread[59] = { ...w.thread[59], files: [{ name: 'log.txt', permalink: 'https://slack.test/f' }] };
    const m = w.message({ text: `<@${BOT}>`, threadTs: '1700000000.000100', ts: '1700000200.000001' });
    await w.service.handle(m);
    const input = w.deps.starting.start.mock.calls[0]?.[0] as unknown as {
      goal: string;
      origin: string;
      context: {
        slack: {
          messages: Array<{ text: string; name: string; files: unknown[] }>;
          cut: string;
          permalink: string;
        };
      };
    };
    expect(input.goal).toBe('Help with this thread');
    const { slack } = input.context;
    expect(slack.messages).toHaveLength(50);
    expect(slack.messages[0]?.text).toBe('message 10');
    expect(slack.messages[49]).toMatchObject({
      text: 'message 59',
      name: 'Name U0BOB',
      files: [{ name: 'log.txt' }],
    });
    expect(slack.cut).toMatch(/last 50 messages[\s\S]*10 earlier left out/);
    expect(slack.permalink).toBe('https://slack.test/p1');
    expect(input.origin).toBe('Started from this thread, with the last 50 of 60 earlier messages');
    // Read once, one page; names looked up once per person.
    expect(w.deps.slack.conversations.replies).toHaveBeenCalledTimes(1);
    expect(w.deps.slack.users.info).toHaveBeenCalledTimes(2);
  });

  it('a thread over 12,000 characters keeps its newest messages within them', async () => {
    const w = world();
    for (let i = 0; i < 5; i++)
      w.thread.push({ user: 'U0BOB', text: `${i}`.repeat(5000), ts: `1700000000.00010${i}` });
    await w.service.handle(
      w.message({ text: `<@${BOT}> sum it up`, threadTs: '1700000000.000100', ts: '1700000200.000001' }),
    );
    const input = w.deps.starting.start.mock.calls[0]?.[0] as unknown as {
      context: { slack: { messages: Array<{ text: string }>; cut: string } };
    };
    expect(input.context.slack.messages.map((m) => m.text[0])).toEqual(['3', '4']);
    expect(input.context.slack.cut).toMatch(/12,000 characters/);
  });

  it('a thread Slack won’t let it read (rate limited): started anyway, the context says so', async () => {
    const w = world();
    w.deps.slack.conversations.replies.mockRejectedValueOnce(
      Object.assign(new Error('ratelimited'), { data: { ok: false, error: 'ratelimited' } }),
    );
    await w.service.handle(
      w.message({ text: `<@${BOT}> go`, threadTs: '1700000000.000100', ts: '1700000200.000001' }),
    );
    const input = w.deps.starting.start.mock.calls[0]?.[0] as unknown as {
      context: { slack: { messages: unknown[]; cut: string } };
    };
    expect(input.context.slack.messages).toEqual([]);
    expect(input.context.slack.cut).toBe(
      'Not the whole thread: it could not be read, Slack allows 1 thread read a minute.',
    );
  });

  it('a thread whose root the bot received: its context from the kept messages, Slack not read', async () => {
    const w = world();
    const root = w.message({ text: 'The build is red again', ts: '1700000000.000100' });
    await w.service.handle(root);
    for (const [i, who] of ['U0BOB', 'U0CAROL'].entries())
      await w.service.handle(
        w.message({ userId: who, text: `reply ${i}`, threadTs: root.ts, ts: `1700000001.00000${i}` }),
      );
    await w.service.handle(
      w.message({ text: `<@${BOT}> fix it`, threadTs: root.ts, ts: '1700000002.000000' }),
    );
    const input = w.deps.starting.start.mock.calls[0]?.[0] as unknown as {
      origin: string;
      context: { slack: { messages: Array<{ text: string }>; cut?: string } };
    };
    expect(input.context.slack.messages.map((m) => m.text)).toEqual([
      'The build is red again',
      'reply 0',
      'reply 1',
    ]);
    expect(input.context.slack.cut).toBeUndefined();
    expect(input.origin).toBe('Started from this thread, with 3 earlier messages');
    expect(w.deps.slack.conversations.replies).not.toHaveBeenCalled();
    expect(w.budgets.take).not.toHaveBeenCalled();
  });

  it('a kept message past the retention never reaches the context, though no pass dropped it yet', async () => {
    const w = world();
    const root = w.message({ text: 'An old secret plan', ts: '1700000000.000100' });
    await w.service.handle(root);
    await w.service.handle(
      w.message({ userId: 'U0BOB', text: 'a fresh reply', threadTs: root.ts, ts: '1700000001.000000' }),
    );
    // The root was received longer ago than the retention (a minute here); the reply just now.
    const kept = w.kept.rows.find((r) => r.ts === root.ts);
    if (!kept) throw new Error('the root was not kept');
    kept.receivedAt -= 120_000;
    await w.service.handle(w.message({ text: `<@${BOT}> go`, threadTs: root.ts, ts: '1700000002.000000' }));
    const input = w.deps.starting.start.mock.calls[0]?.[0] as unknown as {
      context: { slack: { messages: Array<{ text: string }> } };
    };
    // Slack is read for the start (the stand-in thread is empty): only the fresh reply is there.
    expect(input.context.slack.messages.map((m) => m.text)).toEqual(['a fresh reply']);
    expect(w.kept.rows.map((r) => r.text)).not.toContain('An old secret plan');
  });

  it('its start never received and the read budget spent: the kept messages only, said partial', async () => {
    const w = world();
    w.budgets.take.mockResolvedValue(42_000);
    const rootTs = '1700000000.000100';
    await w.service.handle(
      w.message({ userId: 'U0BOB', text: 'seen', threadTs: rootTs, ts: '1700000001.000000' }),
    );
    await w.service.handle(w.message({ text: `<@${BOT}> go`, threadTs: rootTs, ts: '1700000002.000000' }));
    const input = w.deps.starting.start.mock.calls[0]?.[0] as unknown as {
      origin: string;
      context: { slack: { messages: Array<{ text: string }>; cut?: string } };
    };
    expect(input.context.slack.messages.map((m) => m.text)).toEqual(['seen']);
    expect(input.origin).toBe(
      'Started from this thread, with 1 earlier message (not the whole thread: its start could not be read, Slack allows 1 thread read a minute)',
    );
    expect(input.context.slack.cut).toMatch(/^Not the whole thread: its start could not be read/);
    expect(w.deps.slack.conversations.replies).not.toHaveBeenCalled();
  });

  it('its start never received: read once from Slack, merged with what was kept, each message once', async () => {
    const w = world();
    const rootTs = '1700000000.000100';
    w.thread.push(
      { user: 'U0CAROL', text: 'root', ts: rootTs },
      { user: 'U0BOB', text: 'first reply', ts: '1700000000.000200' },
      { user: 'U0BOB', text: 'kept reply', ts: '1700000001.000000' },
    );
    await w.service.handle(
      w.message({ userId: 'U0BOB', text: 'kept reply', threadTs: rootTs, ts: '1700000001.000000' }),
    );
    await w.service.handle(w.message({ text: `<@${BOT}> go`, threadTs: rootTs, ts: '1700000002.000000' }));
    const input = w.deps.starting.start.mock.calls[0]?.[0] as unknown as {
      origin: string;
      context: { slack: { messages: Array<{ text: string }> } };
    };
    expect(input.context.slack.messages.map((m) => m.text)).toEqual(['root', 'first reply', 'kept reply']);
    expect(input.origin).toBe('Started from this thread, with 3 earlier messages');
    // Read whole, so kept: a second mention in the thread reads nothing more.
    await w.service.handle(w.message({ text: `<@${BOT}> again`, threadTs: rootTs, ts: '1700000003.000000' }));
    expect(w.deps.slack.conversations.replies).toHaveBeenCalledTimes(1);
  });

  it('a failed start is told privately and marked ⚠️', async () => {
    const w = world();
    w.deps.starting.start.mockResolvedValueOnce({ ok: false, message: 'Not in this channel.' });
    const m = w.message({ text: `<@${BOT}> go` });
    await w.service.handle(m);
    expect(w.reactions).toEqual([`${m.ts}:eyes`, `${m.ts}:warning`]);
    expect(w.ephemerals()).toEqual(['⚠️ Not in this channel.']);
  });
});

describe('steering by replying', () => {
  const freeText = (): PromptRecord => ({
    sessionId: 'sess_1',
    inputId: 'in_1',
    channelId: 'C0AGENTS',
    messageTs: null,
    request: request('free_text', { prompt: 'Name?' }),
    state: 'pending',
    answeredBy: null,
    answeredAt: null,
    answer: null,
    refKey: 'k1',
  });

  it('a reply answers the waiting question as typed, through AnsweringService; 👀 then ✅', async () => {
    const w = world({ sessions: [steered], pending: [freeText()] });
    const m = w.message(reply('Aurora'));
    await w.service.handle(m);
    expect(w.deps.answering.answer).toHaveBeenCalledWith({
      ref: expect.stringContaining('in_1'),
      userId: 'U0ALICE',
      answer: { kind: 'text', text: 'Aurora' },
      seenIn: 'C0AGENTS',
    });
    expect(w.deps.steering.signal).not.toHaveBeenCalled();
    expect(w.reactions).toEqual([`${m.ts}:eyes`, `${m.ts}:white_check_mark`]);
  });

  it('with no question waiting a reply redirects; a refusal is ⚠️ and a private note with the reply', async () => {
    const w = world({ sessions: [steered] });
    await w.service.handle(w.message(reply('only the docs')));
    expect(w.deps.steering.signal).toHaveBeenCalledWith(
      'sess_1',
      'U0ALICE',
      'redirect',
      {
        message: 'only the docs',
      },
      { seenIn: 'C0AGENTS' },
    );
    w.deps.steering.signal.mockResolvedValueOnce({ ok: false, message: 'The service said no.' });
    const m = w.message(reply('then the tests'));
    await w.service.handle(m);
    expect(w.reactions.slice(-2)).toEqual([`${m.ts}:eyes`, `${m.ts}:warning`]);
    expect(w.ephemerals()).toEqual(['⚠️ The service said no.\nYour reply:\n> then the tests']);
  });

  it('a status the spec does not list (the service working, e.g. thinking) can be redirected', async () => {
    const w = world({ sessions: [{ ...steered, status: 'thinking' }] });
    await w.service.handle(w.message(reply('only the docs')));
    expect(w.deps.steering.signal).toHaveBeenCalledWith(
      'sess_1',
      'U0ALICE',
      'redirect',
      {
        message: 'only the docs',
      },
      { seenIn: 'C0AGENTS' },
    );
  });

  it('leaves alone !aside, a finished session’s thread, and (mention-only) replies without a mention', async () => {
    const w = world({ sessions: [steered, session({ sessionId: 'done', cardTs: '1.2', finished: true })] });
    await w.service.handle(w.message(reply('!aside lunch?')));
    await w.service.handle(w.message(reply('hello', { threadTs: '1.2' })));
    const mentionOnly = world({ sessions: [steered], threadReplies: 'mention-only' });
    await mentionOnly.service.handle(mentionOnly.message(reply('go left')));
    for (const x of [w, mentionOnly]) {
      expect(x.deps.steering.signal).not.toHaveBeenCalled();
      expect(x.reactions).toEqual([]);
    }
    await mentionOnly.service.handle(mentionOnly.message(reply(`<@${BOT}> go right`)));
    expect(mentionOnly.deps.steering.signal).toHaveBeenCalledWith(
      'sess_1',
      'U0ALICE',
      'redirect',
      {
        message: 'go right',
      },
      { seenIn: 'C0AGENTS' },
    );
  });

  it('any reply in a session’s thread, steering or not, ends its chatter’s open post here; other threads don’t', async () => {
    const w = world({ sessions: [steered], threadReplies: 'mention-only' });
    await w.service.handle(w.message(reply('!aside lunch?')));
    expect(w.deps.personReplied.mock.calls).toEqual([['sess_1']]);
    await w.service.handle(w.message(reply('elsewhere', { threadTs: '1700000000.000999' })));
    await w.service.handle(w.message({ text: 'in the channel' }));
    expect(w.deps.personReplied).toHaveBeenCalledTimes(1);
  });

  it('someone who may not act is told once per session, privately; nothing reaches the agent', async () => {
    const w = world({ sessions: [steered] });
    w.policy.verdict = { allowed: false, reason: 'Only <@U0ALICE> may.' };
    await w.service.handle(w.message(reply('stop', { userId: 'U0CAROL' })));
    await w.service.handle(w.message(reply('please stop', { userId: 'U0CAROL' })));
    expect(w.ephemerals()).toHaveLength(1);
    expect(w.ephemerals()[0]).toMatch(/don't reach the agent: Only <@U0ALICE> may/);
    expect(w.deps.steering.signal).not.toHaveBeenCalled();
    expect(w.reactions).toEqual([]);
  });
});

describe('replyAsAnswer', () => {
  const choice = request('single_select', {
    options: [
      { id: 'staging', label: 'Staging' },
      { id: 'canary', label: 'Canary (5% of traffic)' },
    ],
  });

  it('free text as typed; a choice by exact label (any case) or number', () => {
    expect(replyAsAnswer(request('free_text'), ' v2 ')).toEqual({
      ok: true,
      answer: { kind: 'text', text: ' v2 ' },
    });
    expect(replyAsAnswer(choice, 'canary (5% of traffic)')).toEqual({
      ok: true,
      answer: { kind: 'option', index: 1 },
    });
    expect(replyAsAnswer(choice, '1')).toEqual({ ok: true, answer: { kind: 'option', index: 0 } });
  });

  it('anything else names the choices, or the buttons', () => {
    expect(replyAsAnswer(choice, '3')).toEqual({
      ok: false,
      message: expect.stringContaining('1. Staging\n2. Canary'),
    });
    expect(replyAsAnswer(choice, 'canary')).toMatchObject({ ok: false });
    expect(replyAsAnswer(request('approval'), 'yes')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/buttons/),
    });
  });
});
