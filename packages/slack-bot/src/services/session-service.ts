import {
  type AgentSessionsClient,
  type AnswerInput,
  type AnswerIssue,
  type Follower,
  type HumanInputAnswer,
  type HumanInputRequest,
  ServiceError,
  SessionError,
  ValidationError,
  validateAnswer,
} from '@agent-sessions/core';
import { promptAsAnswered } from '../blocks/prompt.js';
import { startingCard } from '../blocks/session-card.js';
import { escapeMrkdwn, truncate } from '../blocks/text.js';
import type { Logger } from '../logger.js';
import type { PromptRecord, SessionRecord, Store } from '../store/store.js';
import type { CardUpdater } from './card-updater.js';
import type { LeaseKeeper } from './lease-keeper.js';
import type { BotMetrics } from './metrics.js';
import type { Permissions } from './permissions.js';
import type { SessionPublisher } from './session-publisher.js';
import type { SlackClient } from './slack.js';
import type { ThreadPoster } from './thread-poster.js';

export type Outcome<T = object> = ({ ok: true } & T) | { ok: false; message: string };

export type SignalKind = 'pause' | 'resume' | 'cancel' | 'redirect';

export interface StartInput {
  channelId: string;
  userId: string;
  goal: string;
  budget?: number;
  maxIterations?: number;
  context?: Record<string, unknown>;
}

/** A claimed prompt: this caller, and only it, sends the answer. */
export interface ClaimedAnswer {
  session: SessionRecord;
  prompt: PromptRecord;
  request: HumanInputRequest;
  answer: HumanInputAnswer;
  userId: string;
  /** The prompt message that was clicked, if it was one (a fallback when its ts wasn't saved). */
  clickedTs?: string;
}

export type PrepareResult =
  | { ok: true; claimed: ClaimedAnswer }
  | { ok: false; kind: 'invalid'; issues: AnswerIssue[] }
  | { ok: false; kind: 'refused' | 'answered' | 'missing'; message: string };

const SIGNAL_DONE: Record<SignalKind, { icon: string; verb: string }> = {
  pause: { icon: '⏸️', verb: 'paused the session' },
  resume: { icon: '▶️', verb: 'resumed the session' },
  cancel: { icon: '🛑', verb: 'cancelled the session' },
  redirect: { icon: '↪️', verb: 'redirected the agent' },
};

/** A person-readable sentence for any failure of a call to the service; never the API key. */
export function describeServiceFailure(error: unknown): string {
  if (error instanceof ValidationError) return error.issues.map((i) => `${i.field}: ${i.message}`).join('; ');
  if (error instanceof ServiceError) return `the service answered ${error.status}: ${error.message}`;
  if (error instanceof Error) return `the service could not be reached (${error.message})`;
  return 'the service could not be reached';
}

/** Why the bot can't post where a session was asked for, in words for the person who asked. */
function cannotPostHere(error: unknown): string {
  const code = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  if (code === 'channel_not_found' || code === 'not_in_channel')
    return 'I can’t post in this conversation, so its session card would have nowhere to go. In a private channel, invite me first (`/invite` and my name) and start it again; a direct message between people is closed to me, so use a channel or my own DM.';
  if (code === 'is_archived') return 'This channel is archived.';
  return `I couldn’t post the session card here (${typeof code === 'string' ? code : 'Slack could not be reached'}).`;
}

/** What people do from Slack — start, steer, answer — checked, sent once, and shown. */
export class SessionService {
  constructor(
    private readonly deps: {
      client: AgentSessionsClient;
      store: Store;
      slack: SlackClient;
      follower: Follower;
      leases: LeaseKeeper;
      poster: ThreadPoster;
      cards: CardUpdater;
      publisher: SessionPublisher;
      permissions: Permissions;
      metrics: BotMetrics;
      logger: Logger;
    },
  ) {}

  async start(input: StartInput): Promise<Outcome<{ sessionId: string }>> {
    const { client, store, metrics, slack } = this.deps;
    const channel = this.deps.permissions.channel(input.channelId);
    if (!channel.allowed) return { ok: false, message: channel.reason };
    const typed = `\nYour goal was:\n> ${escapeMrkdwn(truncate(input.goal, 2500))}`;
    // The card first: where the bot may not post (a private channel it wasn't invited to), nothing is
    // started, rather than a session nobody can see.
    let cardTs: string;
    try {
      const starting = startingCard(input.goal, input.userId);
      const posted = await slack.chat.postMessage({
        channel: input.channelId,
        text: starting.text,
        blocks: starting.blocks as never,
      });
      cardTs = String(posted.ts);
    } catch (error) {
      metrics.actions.inc({ kind: 'start', outcome: 'error' });
      // Usually a private channel the bot wasn't invited to: the person is told how to fix it.
      this.deps.logger.info({ err: error, channel: input.channelId }, 'could not post a new session card');
      return { ok: false, message: `${cannotPostHere(error)} Nothing was started.${typed}` };
    }
    const guardrails = {
      ...(input.budget === undefined ? {} : { maxCostPerSession: input.budget }),
      ...(input.maxIterations === undefined ? {} : { maxIterations: input.maxIterations }),
    };
    let sessionId: string;
    try {
      const created = await client.sessions.create({
        goal: input.goal,
        ...(input.context ? { context: input.context } : {}),
        ...(Object.keys(guardrails).length > 0 ? { guardrails } : {}),
      });
      sessionId = created.sessionId;
    } catch (error) {
      metrics.actions.inc({ kind: 'start', outcome: 'error' });
      this.deps.logger.warn({ err: error }, 'creating a session failed');
      await slack.chat
        .delete({ channel: input.channelId, ts: cardTs })
        .catch((e: unknown) => this.deps.logger.warn({ err: e }, 'could not remove a card nobody needs'));
      return {
        ok: false,
        message: `Could not start the session: ${describeServiceFailure(error)}${typed}`,
      };
    }
    metrics.actions.inc({ kind: 'start', outcome: 'ok' });
    await store.createSession({
      sessionId,
      channelId: input.channelId,
      cardTs,
      startedBy: input.userId,
      goal: input.goal,
      budget: input.budget ?? null,
    });
    await this.deps.cards.updateNow(sessionId, () => this.deps.publisher.card(sessionId));
    await this.deps.leases.refresh();
    return { ok: true, sessionId };
  }

  /** A known session the user may act on, or why not. */
  async authorize(sessionId: string, userId: string): Promise<Outcome<{ session: SessionRecord }>> {
    const session = await this.deps.store.getSession(sessionId);
    if (!session) {
      return { ok: false, message: `No session \`${sessionId}\` was started from this Slack workspace.` };
    }
    const verdict = await this.deps.permissions.act(userId, session);
    if (!verdict.allowed) {
      this.deps.metrics.actions.inc({ kind: 'refused', outcome: 'refused' });
      return { ok: false, message: verdict.reason };
    }
    return { ok: true, session };
  }

  async signal(
    sessionId: string,
    userId: string,
    kind: SignalKind,
    extra: { message?: string; reason?: string; newBudget?: number } = {},
  ): Promise<Outcome> {
    const allowed = await this.authorize(sessionId, userId);
    if (!allowed.ok) return allowed;
    const { session } = allowed;
    if (session.finished) return { ok: false, message: 'This session has already ended.' };
    const { client } = this.deps;
    try {
      if (kind === 'redirect') await client.sessions.redirect(sessionId, { message: extra.message ?? '' });
      else if (kind === 'resume') {
        await client.sessions.resume(sessionId, {
          ...(extra.newBudget === undefined ? {} : { newBudget: extra.newBudget }),
          ...(extra.message ? { message: extra.message } : {}),
        });
      } else await client.sessions[kind](sessionId, extra.reason ? { reason: extra.reason } : {});
    } catch (error) {
      this.deps.metrics.actions.inc({ kind, outcome: 'error' });
      return { ok: false, message: `Could not ${kind} the session: ${describeServiceFailure(error)}` };
    }
    this.deps.metrics.actions.inc({ kind, outcome: 'ok' });
    if (extra.newBudget !== undefined)
      await this.deps.store.updateSession(sessionId, { budget: extra.newBudget });
    const done = SIGNAL_DONE[kind];
    const detail = extra.newBudget !== undefined ? ` with a budget of $${extra.newBudget.toFixed(2)}` : '';
    const said = extra.message ?? extra.reason;
    await this.#note(
      session,
      `${done.icon} <@${userId}> ${done.verb}${detail}${said ? `: ${escapeMrkdwn(said)}` : ''}`,
    );
    this.#refresh(sessionId);
    return { ok: true };
  }

  /** Checks an answer and claims the prompt: exactly one caller anywhere gets `ok: true`. */
  async prepareAnswer(
    sessionId: string,
    inputId: string,
    userId: string,
    input: AnswerInput,
  ): Promise<PrepareResult> {
    const { store } = this.deps;
    const prompt = await store.getPrompt(sessionId, inputId);
    const session = await store.getSession(sessionId);
    if (!prompt || !session) {
      return { ok: false, kind: 'missing', message: 'This question is not known here any more.' };
    }
    if (prompt.state === 'answered') return { ok: false, kind: 'answered', message: answeredBy(prompt) };
    const verdict = await this.deps.permissions.act(userId, session);
    if (!verdict.allowed) {
      this.deps.metrics.actions.inc({ kind: 'answer', outcome: 'refused' });
      return { ok: false, kind: 'refused', message: verdict.reason };
    }
    const request = prompt.request as HumanInputRequest;
    const checked = validateAnswer(request, input);
    if (!checked.ok) return { ok: false, kind: 'invalid', issues: checked.issues };
    const claim = await store.claimPrompt(sessionId, inputId, userId);
    if (!claim.claimed) {
      return {
        ok: false,
        kind: 'answered',
        message: claim.answeredBy
          ? `Already ${claim.state === 'answering' ? 'being answered' : 'answered'} by <@${claim.answeredBy}>.`
          : 'Already answered.',
      };
    }
    return { ok: true, claimed: { session, prompt, request, answer: checked.answer, userId } };
  }

  /** Sends a claimed answer (one POST), then shows who answered what; on failure the prompt is released. */
  async sendAnswer(claimed: ClaimedAnswer): Promise<Outcome> {
    const { session, prompt, answer, userId } = claimed;
    const { client, store } = this.deps;
    try {
      await client.sessions.respond(session.sessionId, prompt.inputId, answer);
    } catch (error) {
      if (error instanceof SessionError && /already answered/i.test(error.message)) {
        // Answered outside Slack (the API, n8n): the question is closed either way.
        await store.completePrompt(session.sessionId, prompt.inputId, null);
        await this.#showAnswered(prompt, claimed.clickedTs);
        return { ok: false, message: 'This question was already answered outside Slack.' };
      }
      await store.releasePrompt(session.sessionId, prompt.inputId, userId);
      this.deps.metrics.actions.inc({ kind: 'answer', outcome: 'error' });
      return {
        ok: false,
        message: `Your answer was not accepted: ${describeServiceFailure(error)}. The question is still open.`,
      };
    }
    this.deps.metrics.actions.inc({ kind: 'answer', outcome: 'ok' });
    await store.completePrompt(session.sessionId, prompt.inputId, answer);
    await this.#showAnswered(prompt, claimed.clickedTs);
    this.#refresh(session.sessionId);
    return { ok: true };
  }

  async answer(
    sessionId: string,
    inputId: string,
    userId: string,
    input: AnswerInput,
    clickedTs?: string,
  ): Promise<Outcome> {
    const prepared = await this.prepareAnswer(sessionId, inputId, userId, input);
    if (!prepared.ok) {
      return {
        ok: false,
        message:
          prepared.kind === 'invalid' ? prepared.issues.map((i) => i.message).join('\n') : prepared.message,
      };
    }
    return this.sendAnswer(clickedTs ? { ...prepared.claimed, clickedTs } : prepared.claimed);
  }

  /** Spend so far (from the last poll, else asked of the service) for the budget modal. */
  async spend(sessionId: string): Promise<number> {
    const seen = this.deps.publisher.snapshot(sessionId)?.cost as { totalCost?: unknown } | undefined;
    if (typeof seen?.totalCost === 'number') return seen.totalCost;
    const status = await this.deps.client.sessions.get(sessionId);
    return status.cost?.totalCost ?? 0;
  }

  /** Edits the prompt to who answered what; `clickedTs` is the message clicked, when it was the prompt. */
  async #showAnswered(prompt: PromptRecord, clickedTs?: string): Promise<void> {
    const record = (await this.deps.store.getPrompt(prompt.sessionId, prompt.inputId)) ?? prompt;
    // A crash between posting the prompt and saving its ts leaves only the posted-messages record.
    const ts =
      record.messageTs ??
      (await this.deps.store.postedTs(prompt.sessionId, `input:${prompt.inputId}`)) ??
      clickedTs;
    if (!ts) return;
    const shown = promptAsAnswered(record);
    try {
      await this.deps.slack.chat.update({
        channel: prompt.channelId,
        ts,
        text: shown.text,
        blocks: shown.blocks as never,
      });
    } catch (error) {
      this.deps.logger.warn({ err: error, inputId: prompt.inputId }, 'could not mark a prompt answered');
    }
  }

  async #note(session: SessionRecord, text: string): Promise<void> {
    if (!session.cardTs) return;
    try {
      await this.deps.slack.chat.postMessage({ channel: session.channelId, thread_ts: session.cardTs, text });
    } catch (error) {
      this.deps.logger.warn(
        { err: error, sessionId: session.sessionId },
        'could not post a note in the thread',
      );
    }
  }

  /** After acting: poll the session at once so the card and thread catch up. */
  #refresh(sessionId: string): void {
    // Followed by another replica (or not yet): it picks the poke up from the store.
    if (!this.deps.follower.poke(sessionId)) {
      this.deps.store.pokeSession(sessionId).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, sessionId }, 'could not poke a session');
      });
    }
  }
}

function answeredBy(prompt: PromptRecord): string {
  return prompt.answeredBy ? `Already answered by <@${prompt.answeredBy}>.` : 'Already answered.';
}
