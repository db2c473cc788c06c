/**
 * Talking to the bot: mentions, DMs and replies in a session's thread. A message's one way through —
 * processed once, started, answered or redirected, the thread read as the new session's context — is told
 * here; what each way does is the other services' (starting, answering, steering).
 */
import { type HumanInputRequest, isKnownStatus } from '@agent-sessions/core';
import { START_FLAGS } from '../../blocks/modals.js';
import { escapeMrkdwn, truncate } from '../../blocks/text.js';
import { parseAgentCommand } from '../../command-parser.js';
import type { Logger } from '../../logger.js';
import { encodeRef } from '../../refs.js';
import type { EventLog } from '../../store/events.js';
import type { PromptRepository } from '../../store/prompts.js';
import type { PromptRecord, SessionRecord } from '../../store/records.js';
import type { SessionRepository } from '../../store/sessions.js';
import type { BotMetrics } from '../ops/metrics.js';
import type { Outcome } from '../outcome.js';
import type { SlackClient } from '../slack-out/outbound/index.js';
import type { Notifier } from '../slack-out/thread/index.js';
import type { AnsweringService, RawAnswer } from './answering.js';
import type { ActPolicy } from './policy.js';
import type { StartingService } from './starting.js';
import type { SteeringService } from './steering.js';
import type { ThreadContextReader } from './thread-context.js';

/** A person's message as the Events API brought it (`message` or `app_mention`), before it means anything. */
export interface IncomingMessage {
  eventId: string;
  teamId: string;
  channelId: string;
  /** `im` for the bot's Messages tab. */
  channelType: string | undefined;
  userId: string;
  text: string;
  ts: string;
  /** Set when the message is in a thread (the thread's root ts; equal to `ts` for the root itself). */
  threadTs: string | undefined;
  /** The bot's own user id (Bolt's `context.botUserId`): how a mention of it is written. */
  botUserId: string | undefined;
}

export { type SlackThreadContext, THREAD_CONTEXT_LIMITS } from './thread-context.js';

/** The goal of a bare mention inside a thread. */
export const BARE_MENTION_GOAL = 'Help with this thread';

export type ThreadReplies = 'steer' | 'mention-only';

/** Statuses in which a reply (with no question waiting) redirects the agent. */
const REDIRECTABLE = new Set(['queued', 'orchestrating', 'running', 'paused', 'waiting_human']);

/**
 * The bot as someone you talk to: a mention or a DM starts a session (the thread as its context),
 * and a reply in a session's thread steers it — an answer to the question waiting, else a redirect.
 * Everything goes through the services the buttons use (StartingService, AnsweringService,
 * SteeringService), so the same rules hold: who may act, first answer wins.
 */
export class ConversationService {
  constructor(
    private readonly deps: {
      events: EventLog;
      sessions: Pick<SessionRepository, 'findByThread' | 'findByCodeChannel'>;
      prompts: Pick<PromptRepository, 'pending'>;
      starting: Pick<StartingService, 'start'>;
      answering: Pick<AnsweringService, 'answer'>;
      steering: Pick<SteeringService, 'signal'>;
      policy: ActPolicy;
      notifier: Notifier;
      slack: { reactions: Pick<SlackClient['reactions'], 'add'> };
      /** Received messages kept, and a thread read from them first (Slack's reads may be one a minute). */
      threadContext: Pick<ThreadContextReader, 'remember' | 'read'>;
      metrics: BotMetrics;
      logger: Logger;
      threadReplies: ThreadReplies;
      /**
       * A person wrote in the session's thread: the bot's chatter from now on goes below it, in a post of
       * its own, never edited into a post above it (the poster on this replica; another replica's post
       * takes edits 30 s at most).
       */
      personReplied: (sessionId: string) => void;
    },
  ) {}

  /** One message, handled at most once whichever events bring it (a mention comes as `message` too) and however often. */
  async handle(message: IncomingMessage): Promise<void> {
    const { events } = this.deps;
    const mentioned = message.botUserId !== undefined && message.text.includes(`<@${message.botUserId}>`);
    const inThread = message.threadTs !== undefined && message.threadTs !== message.ts;
    const direct = message.channelType === 'im' || message.channelId.startsWith('D');
    // A session's own channel: everything said there is for its agent, mentioned or not, as in its thread.
    const home = direct ? undefined : await this.deps.sessions.findByCodeChannel(message.channelId);
    if (home) {
      this.deps.personReplied(home.sessionId);
      return this.#inCodeChannel(home, message, mentioned);
    }
    // Kept (bounded, per workspace) for a later mention in its thread: read from here, not from Slack.
    await this.deps.threadContext.remember(message);
    // A channel's ordinary chatter is none of the bot's business beyond that.
    if (!inThread && !mentioned && !direct) return;
    const session =
      inThread && message.threadTs
        ? await this.deps.sessions.findByThread(message.channelId, message.threadTs)
        : undefined;
    if (session && inThread) this.deps.personReplied(session.sessionId);
    const steers = session !== undefined && !session.finished;
    if (inThread && !steers && !mentioned) return;
    // Slack's retries carry the same event_id; a mention's `message` and `app_mention` events carry the
    // same message. Both are claimed in the store, so replicas agree on who handles it.
    if (!(await events.markProcessed(message.eventId))) return;
    if (!(await events.markProcessed(`message:${message.channelId}:${message.ts}`))) return;
    if (steers && session) return this.#reply(session, message, mentioned);
    // A mention in a thread with no session running in it starts one, the thread as its context.
    if (inThread && message.threadTs)
      return this.#start(message, { threadTs: message.threadTs, readThread: true });
    return this.#start(message, { threadTs: message.ts, readThread: false });
  }

  /** A message in a session's own channel: steers it while it runs (once, whichever events bring it). */
  async #inCodeChannel(session: SessionRecord, message: IncomingMessage, mentioned: boolean): Promise<void> {
    if (session.finished) return;
    const { events } = this.deps;
    if (!(await events.markProcessed(message.eventId))) return;
    if (!(await events.markProcessed(`message:${message.channelId}:${message.ts}`))) return;
    return this.#reply(session, message, mentioned, true);
  }

  async #start(message: IncomingMessage, where: { threadTs: string; readThread: boolean }): Promise<void> {
    const { notifier, starting } = this.deps;
    const said = this.#withoutMention(message).trim();
    const parsed = parseAgentCommand(`start ${said}`);
    if (parsed.kind === 'error') {
      await notifier.tell(
        message.channelId,
        message.userId,
        `⚠️ ${parsed.message}\nYou wrote:\n> ${escapeMrkdwn(truncate(said, 2500))}`,
      );
      return;
    }
    let goal = parsed.kind === 'start' ? parsed.goal : undefined;
    if (!goal) {
      if (!where.readThread) {
        await notifier.tell(
          message.channelId,
          message.userId,
          `Tell me what to do: \`@agents <goal> ${START_FLAGS}\`, or mention me in a thread for help with it.`,
        );
        return;
      }
      goal = BARE_MENTION_GOAL;
    }
    await this.#react(message, 'eyes');
    const read = where.readThread ? await this.deps.threadContext.read(message, where.threadTs) : undefined;
    const result = await starting.start({
      channelId: message.channelId,
      userId: message.userId,
      goal,
      ...(parsed.kind === 'start' && parsed.budget !== undefined ? { budget: parsed.budget } : {}),
      ...(parsed.kind === 'start' && parsed.maxIterations !== undefined
        ? { maxIterations: parsed.maxIterations }
        : {}),
      ...(parsed.kind === 'start' && parsed.codeChannel ? { codeChannel: true } : {}),
      threadTs: where.threadTs,
      ...(read ? { context: { slack: read.context }, origin: `Started from this thread, ${read.said}` } : {}),
    });
    if (result.ok) return;
    await this.#react(message, 'warning');
    await notifier.tell(message.channelId, message.userId, `⚠️ ${result.message}`);
  }

  /** A reply in a running session's thread: an answer, a redirect, or left alone. */
  async #reply(
    session: SessionRecord,
    message: IncomingMessage,
    mentioned: boolean,
    inCodeChannel = false,
  ): Promise<void> {
    const text = this.#withoutMention(message).trim();
    if (text === '' || /^!aside\b/i.test(text)) return;
    if (this.deps.threadReplies === 'mention-only' && !mentioned && !inCodeChannel) return;
    const verdict = await this.deps.policy.mayAct(message.userId, { kind: 'steer', session });
    if (!verdict.allowed) {
      this.deps.metrics.actions.inc({ kind: 'reply', outcome: 'refused' });
      // Said once per person and session: a discussion in the thread shouldn't bring a note every time.
      if (await this.deps.events.markProcessed(`refused-reply:${session.sessionId}:${message.userId}`)) {
        await this.deps.notifier.tell(
          message.channelId,
          message.userId,
          `Your replies in this thread don't reach the agent: ${verdict.reason} (Start a reply with \`!aside\` to keep it out of the agent's way anyway.)`,
        );
      }
      return;
    }
    await this.#react(message, 'eyes');
    const pending = await this.deps.prompts.pending(session.sessionId);
    const question = pending[pending.length - 1];
    let outcome: Outcome;
    if (question) outcome = await this.#answer(question, message, text);
    // A status the spec doesn't list is the service working (`thinking`…): steerable, the service judges.
    else if (REDIRECTABLE.has(session.status) || !isKnownStatus(session.status))
      outcome = await this.deps.steering.signal(
        session.sessionId,
        message.userId,
        'redirect',
        { message: text },
        // The reply is in the session's channel: its author sees the session.
        { seenIn: message.channelId },
      );
    else outcome = { ok: false, message: `The session is ${session.status}: there is nothing to steer.` };
    if (outcome.ok) {
      await this.#react(message, 'white_check_mark');
      return;
    }
    await this.#react(message, 'warning');
    await this.deps.notifier.tell(
      message.channelId,
      message.userId,
      `⚠️ ${outcome.message}\nYour reply:\n> ${escapeMrkdwn(truncate(text, 2500))}`,
    );
  }

  /** The waiting question answered by a reply: free text as typed, one choice by its label or number. */
  async #answer(question: PromptRecord, message: IncomingMessage, text: string): Promise<Outcome> {
    const raw = replyAsAnswer(question.request, text);
    if (!raw.ok) return raw;
    return this.deps.answering.answer({
      ref: encodeRef({ sessionId: question.sessionId, inputId: question.inputId }),
      userId: message.userId,
      answer: raw.answer,
      seenIn: message.channelId,
    });
  }

  #withoutMention(message: IncomingMessage): string {
    if (!message.botUserId) return message.text;
    return message.text
      .split(`<@${message.botUserId}>`)
      .join(' ')
      .replace(/[ \t]+/g, ' ');
  }

  /** An acknowledgement by reaction; one Slack refused (already there, no scope) changes nothing else. */
  async #react(message: IncomingMessage, name: string): Promise<void> {
    await this.deps.slack.reactions
      .add({ channel: message.channelId, timestamp: message.ts, name })
      .catch((error: unknown) => this.deps.logger.debug({ err: error, name }, 'could not react'));
  }
}

/** What a reply means for a question: free text as typed; one choice by exact label (any case) or number. */
export function replyAsAnswer(
  request: HumanInputRequest,
  text: string,
): { ok: true; answer: RawAnswer } | { ok: false; message: string } {
  if (request.kind === 'free_text') return { ok: true, answer: { kind: 'text', text } };
  if (request.kind === 'single_select') {
    const options = request.options ?? [];
    const wanted = text.trim().toLowerCase();
    const byLabel = options.findIndex((o) => o.label.trim().toLowerCase() === wanted);
    const number = /^\d+$/.test(wanted) ? Number(wanted) : Number.NaN;
    const index = byLabel >= 0 ? byLabel : number >= 1 && number <= options.length ? number - 1 : -1;
    if (index >= 0) return { ok: true, answer: { kind: 'option', index } };
    const list = options.map((o, i) => `${i + 1}. ${escapeMrkdwn(o.label)}`).join('\n');
    return {
      ok: false,
      message: `The agent is waiting for one of these; reply with its name or number:\n${list}`,
    };
  }
  return {
    ok: false,
    message:
      'The agent is waiting for an answer that needs the question’s buttons or form; use them on the question above.',
  };
}
