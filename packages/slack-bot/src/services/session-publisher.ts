import {
  type FollowEvent,
  type FollowedSession,
  type Follower,
  type HumanInputRequest,
  isTerminalStatus,
  parseTimestamp,
} from '@agent-sessions/core';
import { agentMessageText } from '../blocks/agent-message.js';
import { costLimitMessage, costLimitResolved, promptAsAnswered, promptMessage } from '../blocks/prompt.js';
import { finalReport, unreadableRequest } from '../blocks/report.js';
import { cardStateOf, sessionCard, statusLabel, UNREACHABLE_STATUS } from '../blocks/session-card.js';
import type { Logger } from '../logger.js';
import type { SessionRecord, Store } from '../store/store.js';
import type { CardMessage, CardUpdater } from './card-updater.js';
import type { BotMetrics } from './metrics.js';
import type { SlackClient } from './slack.js';
import type { ThreadPoster } from './thread-poster.js';

/** The latest snapshot of each followed session, for its card. */
type Snapshots = Map<string, FollowedSession>;

const costOf = (s: FollowedSession | undefined): number => {
  const total = (s?.cost as { totalCost?: unknown } | undefined)?.totalCost;
  return typeof total === 'number' ? total : 0;
};

/**
 * Turns what the follower sees into Slack: the card edited in place, the agent's messages in the card's
 * thread (each exactly once), prompts for human input, the budget prompt and the final report.
 */
export class SessionPublisher {
  readonly #snapshots: Snapshots = new Map();

  constructor(
    private readonly deps: {
      store: Store;
      poster: ThreadPoster;
      cards: CardUpdater;
      metrics: BotMetrics;
      logger: Logger;
      slack: SlackClient;
      showReasoning: boolean;
    },
  ) {}

  attach(follower: Follower): void {
    follower.on('*', (event) => this.handle(event));
  }

  async handle(event: FollowEvent): Promise<void> {
    const session = await this.deps.store.getSession(event.sessionId);
    // Sessions started elsewhere (another bot, n8n) have no place in Slack.
    if (!session) return;
    const place = await this.#ensureCard(session);
    switch (event.type) {
      case 'message': {
        const text = agentMessageText(event.message, { showReasoning: this.deps.showReasoning });
        if (!text) return;
        await this.deps.poster.postText(place, `msg:${event.key}`, text);
        this.#observe('message', event.message.timestamp);
        return;
      }
      case 'human_input_needed':
        await this.#prompt(place, event.request);
        return;
      case 'invalid_human_input':
        await this.deps.poster.postText(place, event.key, unreadableRequest(event.reason, event.raw));
        return;
      case 'cost_limit':
        await this.deps.poster.post(
          place,
          event.key,
          costLimitMessage(session.sessionId, session.startedBy, costOf(event.session)),
        );
        return;
      case 'update':
        this.#snapshots.set(session.sessionId, event.session);
        if (event.session.status !== session.status) {
          await this.deps.store.updateSession(session.sessionId, { status: event.session.status });
        }
        this.deps.cards.schedule(session.sessionId, () => this.card(session.sessionId));
        return;
      case 'finished':
        this.#snapshots.set(session.sessionId, event.session);
        await this.deps.store.updateSession(session.sessionId, { status: event.status, finished: true });
        await this.deps.cards.updateNow(session.sessionId, () => this.card(session.sessionId));
        await this.deps.poster.postText(place, 'final-report', finalReport(event.session));
        this.#snapshots.delete(session.sessionId);
        return;
      case 'error':
        if (!event.fatal) return;
        // 403/404: the service no longer lets us see it. Stop following it first, so a thread that is
        // gone too (a deleted channel, a fresh sandbox) cannot make every restart try again.
        await this.deps.store.updateSession(session.sessionId, {
          status: UNREACHABLE_STATUS,
          finished: true,
        });
        this.#snapshots.delete(session.sessionId);
        // The card updater logs its own failures.
        await this.deps.cards.updateNow(session.sessionId, () => this.card(session.sessionId));
        await this.deps.poster
          .post(place, 'fatal-error', {
            text: `⚠️ The bot can no longer follow this session: ${event.error.message}`,
          })
          .catch(
            this.#warn(session.sessionId, 'could not say in Slack that a session can no longer be followed'),
          );
        return;
      case 'status':
        if (event.previousStatus === 'cost_limit' && event.status !== 'cost_limit')
          await this.#resolveBudgetPrompts(session, event.status);
        return;
    }
  }

  /** The card as it should look now. */
  async card(sessionId: string): Promise<CardMessage | undefined> {
    const session = await this.deps.store.getSession(sessionId);
    if (!session?.cardTs) return undefined;
    const card = sessionCard(cardStateOf(session, this.#snapshots.get(sessionId), Date.now()));
    return { channel: session.channelId, ts: session.cardTs, ...card };
  }

  /** The last status seen of a followed session (cost included), for the budget modal. */
  snapshot(sessionId: string): FollowedSession | undefined {
    return this.#snapshots.get(sessionId);
  }

  /** Budget prompts lose their button once the session left cost_limit, however it left. */
  async #resolveBudgetPrompts(session: SessionRecord, status: string): Promise<void> {
    const shown = isTerminalStatus(status)
      ? costLimitResolved(session.startedBy, { resumed: false, status: statusLabel(status) })
      : costLimitResolved(session.startedBy, { resumed: true, budget: session.budget });
    for (const { ts } of await this.deps.store.postedWithPrefix(session.sessionId, 'cost_limit:')) {
      await this.deps.slack.chat
        .update({ channel: session.channelId, ts, text: shown.text, blocks: shown.blocks as never })
        .catch(this.#warn(session.sessionId, 'could not close a budget prompt'));
    }
  }

  /** For a Slack call whose failure should not stop the session's events: log it and go on. */
  #warn(sessionId: string, what: string): (error: unknown) => void {
    return (error) => this.deps.logger.warn({ err: error, sessionId }, what);
  }

  async #prompt(place: SessionRecord, request: HumanInputRequest): Promise<void> {
    const existing = await this.deps.store.getPrompt(place.sessionId, request.inputId);
    if (existing?.state === 'answered') {
      // Answered while its posting was being redone (a restart): make sure it shows the answer.
      const ts = existing.messageTs ?? (await this.deps.poster.locate(place, `input:${request.inputId}`));
      if (ts) {
        const shown = promptAsAnswered(existing);
        await this.deps.slack.chat
          .update({ channel: place.channelId, ts, text: shown.text, blocks: shown.blocks as never })
          .catch(this.#warn(place.sessionId, 'could not mark a prompt answered'));
      }
      return;
    }
    await this.deps.store.savePrompt({
      sessionId: place.sessionId,
      inputId: request.inputId,
      channelId: place.channelId,
      messageTs: existing?.messageTs ?? null,
      request,
    });
    const ts = await this.deps.poster.post(
      place,
      `input:${request.inputId}`,
      promptMessage(request, { sessionId: place.sessionId, startedBy: place.startedBy }),
    );
    await this.deps.store.savePrompt({
      sessionId: place.sessionId,
      inputId: request.inputId,
      channelId: place.channelId,
      messageTs: ts,
      request,
    });
    const raw = request.raw as { askedAt?: unknown; timestamp?: unknown } | undefined;
    this.#observe('human_input', raw?.timestamp ?? raw?.askedAt);
  }

  /** The card is the thread's root: posted once, before anything goes in its thread. */
  async #ensureCard(session: SessionRecord): Promise<SessionRecord> {
    if (session.cardTs) return session;
    const initial = sessionCard(cardStateOf(session, undefined, Date.now()));
    const ts = await this.deps.poster.post({ ...session, cardTs: null }, 'card', initial);
    await this.deps.store.updateSession(session.sessionId, { cardTs: ts });
    return { ...session, cardTs: ts };
  }

  #observe(kind: string, timestamp: unknown): void {
    const at = parseTimestamp(timestamp);
    if (!at) return;
    const seconds = (Date.now() - Date.parse(at)) / 1000;
    // A service clock far off ours (or an emulator running faster than time) would only add noise.
    if (seconds >= 0 && seconds < 3600) this.deps.metrics.surfacing.observe({ kind }, seconds);
  }
}
