/**
 * The follower's events into Slack: each event kind's one handling (card, thread message, prompt, budget
 * prompt, report, unreadable request). Posting, pacing and card edits are slack-out/'s.
 */
import {
  type FollowEvent,
  type FollowEventOf,
  type FollowEventType,
  type FollowedSession,
  type Follower,
  type HumanInputRequest,
  isTerminalStatus,
  needsPerson,
  parseTimestamp,
} from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import { agentMessageText } from '../../blocks/agent-message.js';
import { channelMessageText } from '../../blocks/code-channel.js';
import { costLimitMessage, costLimitResolved, promptAsAnswered, promptMessage } from '../../blocks/prompt.js';
import { finalReport, unreadableRequest } from '../../blocks/report.js';
import {
  CANT_POST_STATUS,
  cardStateOf,
  currentStepOf,
  sessionCard,
  statusLabel,
  totalCostOf,
  UNREACHABLE_STATUS,
} from '../../blocks/session-card.js';
import type { TaskCall } from '../../blocks/stream-chunks.js';
import { escapeMrkdwn } from '../../blocks/text.js';
import {
  UNREADABLE_PROMPT,
  unreadableAsFreeText,
  unreadableQuestionMessage,
} from '../../blocks/unreadable.js';
import { refKeyOf } from '../../refs.js';
import type { SessionRecord } from '../../store/records.js';
import type { StreamPoster } from '../slack-out/agent-surface/index.js';
import { queuedChat } from '../slack-out/outbound/index.js';
import {
  CannotPostHereError,
  type CardMessage,
  type SessionPlace,
  threadPlace,
} from '../slack-out/thread/index.js';
import { MessageMarks } from './message-marks.js';
import type { SessionPublisherDeps } from './session-publisher-deps.js';

/** The latest snapshot of each followed session, for its card. */
type Snapshots = Map<string, FollowedSession>;

/** One event type's handling: `session` as stored, `place` the thread it posts in (its card posted). */
type EventHandler<E extends FollowEvent> = (
  session: SessionRecord,
  place: SessionPlace,
  event: E,
) => Promise<void>;

/**
 * Turns what the follower sees into Slack: the card edited in place, the agent's messages in the card's
 * thread (each exactly once), prompts for human input, the budget prompt and the final report.
 */
export class SessionPublisher {
  readonly #snapshots: Snapshots = new Map();
  /** The card's "now" line: each followed session's latest step. */
  readonly #steps = new Map<string, string>();
  /** Per session in a channel of its own, its tool calls waiting for their result (shown with it). */
  readonly #toolCalls = new Map<string, Map<string, TaskCall>>();
  /** Where the chatter queue stood after each of a session's latest messages (see `#prompt`). */
  readonly #marks = new MessageMarks();

  constructor(private readonly deps: SessionPublisherDeps) {}

  #inSession<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    return this.deps.inSession ? this.deps.inSession(sessionId, fn) : fn();
  }

  /** Handles the follower's events, and the posters' news that a channel is closed to the bot. */
  attach(follower: Follower): void {
    follower.on('*', (event) => this.handle(event));
    this.deps.owner.onCannotPost((place, error) => this.cannotPost(place, error));
  }

  /** A post sent in the background (a batch, a stream's) found its channel closed to us. */
  async cannotPost(place: { sessionId: string }, error: CannotPostHereError): Promise<void> {
    const session = await this.deps.store.sessions.get(place.sessionId);
    if (session && session.status !== CANT_POST_STATUS) await this.#cannotPostHere(session, error);
  }

  /**
   * At start, and every lease time after: sessions with posts recorded and never sent (a crash after the
   * follower moved on) get them sent, even when nothing new happens in them, and a finished session's
   * final card owed is drawn. A finished session's are sent by the replica holding its claim; one whose
   * holder died is another's once the claim lapsed, at the next pass.
   */
  async recoverUnsent(
    mine: (sessionId: string) => boolean,
    options: { limit?: number; finishedOnly?: boolean } = {},
  ): Promise<void> {
    const { posts, finalCards } = this.deps.store;
    const limit = options.limit ?? 500;
    // Before this pass claims anything: what the last ones claimed and has all gone out is forgotten.
    this.deps.poster.forgetIdle();
    const owing = new Set([
      ...(await posts.unsentSessions(limit, { finished: options.finishedOnly ?? false })),
      ...((await finalCards?.owedSessions(limit)) ?? []),
    ]);
    for (const sessionId of owing) {
      const session = await this.deps.store.sessions.get(sessionId);
      if (!session?.cardTs || session.status === CANT_POST_STATUS) continue;
      // Another replica's session may have these queued in its memory still: it recovers its own (and
      // draws its final card when it finishes it).
      if (!session.finished) {
        if (mine(sessionId)) await this.#recover(session, 'recover');
        continue;
      }
      // A finished one is nobody's: of the replicas recovering at once, the claim's holder sends it all.
      if (!(await this.deps.owner.claim(sessionId).catch(() => false))) continue;
      // Again each sweep: one after a holder died finds its leftovers (what still waits here is not queued twice).
      await this.#recover(session, 'recoverLeftovers');
      await this.#redrawFinalCard(sessionId).catch(
        this.#warn(sessionId, "could not draw a finished session's final card"),
      );
    }
  }

  /** The session's posts a crash left unsent: as its owner's, or as a finished session's leftovers. */
  async #recover(session: SessionRecord, way: 'recover' | 'recoverLeftovers'): Promise<void> {
    const place = threadPlace(session);
    const posting = this.#streams(place) ?? this.deps.poster;
    await this.#inSession(session.sessionId, () => posting[way](place)).catch(
      this.#warn(session.sessionId, 'could not recover the posts a crash left unsent'),
    );
  }

  /** A final card edit left owed (the grace ran short, Slack refused): sent under the claim, once. */
  async #redrawFinalCard(sessionId: string): Promise<void> {
    const owed = await this.deps.store.finalCards?.owed(sessionId);
    if (!owed) return;
    const card = JSON.parse(owed) as CardMessage;
    const { owner } = this.deps;
    // Built when its turn comes: the claim is renewed then, and nothing is edited once it is another's.
    const build = async () => ((await owner.claim(sessionId)) ? card : undefined);
    const shown = await this.#inSession(sessionId, () => this.deps.cards.updateNow(sessionId, build));
    if (shown) await this.deps.store.finalCards?.sent(sessionId, owed);
  }

  async handle(event: FollowEvent): Promise<void> {
    const session = await this.deps.store.sessions.get(event.sessionId);
    // Sessions started elsewhere (another bot, n8n) have no place in Slack.
    if (!session) return;
    // Slack refused its channel: followed no further there (the starter was told where to look).
    if (session.status === CANT_POST_STATUS) return;
    try {
      await this.#dispatch(session, event);
    } catch (error) {
      // A PostWithdrawnError (its lease moved while this waited to post) goes up too: the poll then
      // saves no cursor, so the new owner handles the event.
      if (!(error instanceof CannotPostHereError)) throw error;
      await this.#cannotPostHere(session, error);
    }
  }

  /**
   * not_in_channel, channel_not_found, is_archived: the session is marked so and no longer followed (its
   * record is finished, so no lease picks it up), the starter gets a DM, and the card says why if it can.
   */
  async #cannotPostHere(session: SessionRecord, error: CannotPostHereError): Promise<void> {
    const { sessionId } = session;
    this.deps.logger.warn(
      { sessionId, code: error.code },
      "Slack refused the session's channel: not following it there",
    );
    await this.deps.store.sessions.update(sessionId, { status: CANT_POST_STATUS, finished: true });
    this.#snapshots.delete(sessionId);
    this.#toolCalls.delete(sessionId);
    await this.deps.cards.updateNow(sessionId, () => this.card(sessionId));
    await this.#chat()
      .postMessage({
        channel: session.startedBy,
        text: `⚠️ I can't post in <#${session.channelId}> any more (Slack said \`${error.code}\`), so the thread of your session \`${sessionId}\` stops there. The session itself goes on: \`/agent status ${sessionId}\` shows where it is.`,
      })
      .catch(this.#warn(sessionId, 'could not tell the starter that the channel refused the session'));
  }

  async #dispatch(session: SessionRecord, event: FollowEvent): Promise<void> {
    // Posts go in the session's thread: the card's own, or the mention's the card replied in.
    const carded = await this.#ensureCard(session);
    const place = threadPlace(carded);
    // After a crash: what was queued and never posted goes out (once) before anything new of it.
    await (this.#streams(place) ?? this.deps.poster).recover(place);
    // The table pairs each type with its own event; TypeScript cannot follow that through a lookup.
    const handler = this.#handlers[event.type] as EventHandler<FollowEvent>;
    await handler(session, place, event);
  }

  /** One handler per event type, as Slack's listeners are. */
  readonly #handlers: { [T in FollowEventType]: EventHandler<FollowEventOf<T>> } = {
    message: (session, place, event) => this.#postAgentMessage(session, place, event),
    human_input_needed: (session, place, event) =>
      this.#prompt(session, place, event.request, event.messageKey),
    human_input_unreadable: (_session, place, event) => this.#unreadable(place, event),
    invalid_human_input: (_session, place, event) => this.#reportInvalidRequest(place, event),
    cost_limit: (session, place, event) => this.#askForBudget(session, place, event),
    update: (session, place, event) => this.#showProgress(session, place, event),
    finished: (session, place, event) => this.#finish(session, place, event),
    error: (session, place, event) => this.#followError(session, place, event),
    status: (session, _place, event) => this.#statusChanged(session, event),
  };

  async #postAgentMessage(
    session: SessionRecord,
    place: SessionPlace,
    event: FollowEventOf<'message'>,
  ): Promise<void> {
    const step = currentStepOf(event.message);
    if (step) this.#steps.set(session.sessionId, step);
    // A channel of its own shows tool calls as the thread's stream does (cards); a thread, as text.
    const { showReasoning } = this.deps;
    const text = place.codeChannelId
      ? channelMessageText(
          event.message,
          { showReasoning, fallbackId: `msg:${event.key}` },
          this.#callsOf(session.sessionId),
        )
      : agentMessageText(event.message, { showReasoning });
    // Recorded, not yet posted: the thread may be behind, and its chatter then goes out batched.
    const timestamp = event.message.timestamp;
    const shown = () => this.#observe('message', timestamp);
    const streams = this.#streams(place);
    if (streams)
      return text
        ? streams.enqueue(place, `msg:${event.key}`, event.roundId, event.message, shown)
        : undefined;
    if (text) await this.deps.poster.enqueueText(place, `msg:${event.key}`, text, shown);
    this.#marks.set(session.sessionId, event.key, this.deps.poster.mark());
  }

  /** The session's tool calls waiting for their result, for its channel's cards. */
  #callsOf(sessionId: string): Map<string, TaskCall> {
    let calls = this.#toolCalls.get(sessionId);
    if (!calls) {
      calls = new Map();
      this.#toolCalls.set(sessionId, calls);
    }
    return calls;
  }

  async #reportInvalidRequest(
    place: SessionPlace,
    event: FollowEventOf<'invalid_human_input'>,
  ): Promise<void> {
    await this.deps.poster.postText(place, event.key, unreadableRequest(event.reason, event.raw));
  }

  async #askForBudget(
    session: SessionRecord,
    place: SessionPlace,
    event: FollowEventOf<'cost_limit'>,
  ): Promise<void> {
    await this.deps.poster.post(
      place,
      event.key,
      costLimitMessage(session.sessionId, session.startedBy, totalCostOf(event.session) ?? 0),
    );
  }

  async #showProgress(
    session: SessionRecord,
    place: SessionPlace,
    event: FollowEventOf<'update'>,
  ): Promise<void> {
    // The end is shown by 'finished', once the thread has caught up: a card that said "Completed" while
    // the agent's last messages still waited in the channel's queue would read as if it kept talking.
    if (session.finished || isTerminalStatus(event.session.status)) return;
    // A poll still in flight when the lease moved: the session's status in the store and its card are
    // the new owner's to write (this view may be older than what it wrote already: its end, even).
    this.deps.owner.throwIfMoved(session.sessionId);
    this.#snapshots.set(session.sessionId, event.session);
    const { status } = event.session;
    if (status !== session.status) {
      await this.deps.store.sessions.update(session.sessionId, { status });
      this.deps.homeChanged?.();
      if (needsPerson(status)) {
        // Waiting on a person, the agent does nothing: its last step is no longer what it is doing, and
        // a paused round's message stops streaming (the next round's work opens a stream of its own).
        this.#steps.delete(session.sessionId);
        if (status !== 'waiting_human') await this.#streams(place)?.close(place, 'suspended');
      }
    }
    // "Waiting for you" is edited ahead of progress: a person looks at it.
    this.deps.cards.schedule(session.sessionId, () => this.#progressCard(session.sessionId), {
      rank: needsPerson(event.session.status) ? 'attention' : 'progress',
    });
  }

  /**
   * A progress or "waiting for you" edit, built when its turn comes: only while this replica follows the
   * session and the session has not ended. Otherwise the card is another's to draw (the lease moved, or a
   * poll still in flight when it moved delivered this), or its end is drawn: this replica's last view,
   * which stopped when it stopped following, would draw the session running again over its end.
   */
  async #progressCard(sessionId: string): Promise<CardMessage | undefined> {
    if (!this.deps.owner.owns(sessionId)) return undefined;
    const session = await this.deps.store.sessions.get(sessionId);
    return session?.finished ? undefined : this.#cardOf(session);
  }

  async #finish(
    session: SessionRecord,
    place: SessionPlace,
    event: FollowEventOf<'finished'>,
  ): Promise<void> {
    // The thread reads in order: every message the agent sent, then the report, and only then the card's
    // final state (its edits otherwise go ahead of the channel's chatter). Once the session's chatter
    // is out, its report goes ahead of other sessions' chatter: the outcome is what people wait for.
    // Chatter a former owner recorded after this process took the session over is posted first.
    await (this.#streams(place) ?? this.deps.poster).recoverAgain(place);
    // The stream's last appends are out before the report; its stop (Tier 2) need not be.
    const ending = await this.#streams(place)?.end(place, 'closed');
    await this.deps.poster.drained(place);
    // The lease moved while the chatter drained: the new owner posts the report (once, by its key).
    this.deps.owner.throwIfMoved(session.sessionId);
    const [reportTs] = await this.deps.poster.postText(
      place,
      'final-report',
      finalReport(event.session),
      'outcome',
      { leased: true },
    );
    this.#snapshots.set(session.sessionId, event.session);
    await this.deps.store.sessions.update(session.sessionId, { status: event.status });
    await this.#drawFinalCard(session.sessionId);
    await ending?.stopped;
    // Its own channel: the report's canvas, then archived (the summary shared back) or kept open.
    await this.deps.codeChannels?.finished(session, reportTs, event.session);
    // Finished only once the report is out and the stream stopped: a crash while the report waits in the
    // channel's queue (behind the thread's backlog) leaves the session followed, so the next start posts
    // it (once, by its key).
    await this.deps.store.sessions.update(session.sessionId, { finished: true });
    this.deps.homeChanged?.();
    this.#snapshots.delete(session.sessionId);
    this.#steps.delete(session.sessionId);
    this.#toolCalls.delete(session.sessionId);
  }

  /**
   * The card's end, recorded as owed before it is sent and cleared once Slack shows it: an edit the
   * shutdown grace cuts short, or that Slack refuses (other than a 429, which the queue waits out), is
   * sent by the next recovery (`recoverUnsent`), under the finished session's claim.
   */
  async #drawFinalCard(sessionId: string): Promise<void> {
    const card = await this.card(sessionId);
    if (!card) return;
    const owed = JSON.stringify(card);
    const { finalCards } = this.deps.store;
    await finalCards?.record(sessionId, owed);
    const shown = await this.deps.cards.updateNow(sessionId, async () => card);
    if (shown) await finalCards?.sent(sessionId, owed);
  }

  /** This replica sends what it has queued of a session about to be finished: its claim, as a recovery's. */
  async #holdLeftovers(sessionId: string): Promise<void> {
    if (await this.deps.owner.claim(sessionId).catch(() => false)) this.deps.owner.claimed(sessionId);
  }

  async #followError(
    session: SessionRecord,
    place: SessionPlace,
    event: FollowEventOf<'error'>,
  ): Promise<void> {
    // 401/403, the session's key removed or refused: said once, followed no further.
    if (await this.deps.keyProblem?.(session, event.error)) return;
    if (!event.fatal) return;
    // Its chatter still queued here goes out after the session is finished: under this replica's claim,
    // taken before, so a replica starting meanwhile leaves it (unless this one dies and the claim lapses).
    await this.#holdLeftovers(session.sessionId);
    // 403/404: the service no longer lets us see it. Stop following it first, so a thread that is
    // gone too (a deleted channel, a fresh sandbox) cannot make every restart try again.
    await this.deps.store.sessions.update(session.sessionId, {
      status: UNREACHABLE_STATUS,
      finished: true,
    });
    this.#snapshots.delete(session.sessionId);
    this.#toolCalls.delete(session.sessionId);
    // The card updater logs its own failures; an edit it could not make is owed.
    await this.#drawFinalCard(session.sessionId);
    await this.deps.poster
      .post(place, 'fatal-error', {
        text: `⚠️ The bot can no longer follow this session: ${escapeMrkdwn(event.error.message)}`,
      })
      .catch(
        this.#warn(session.sessionId, 'could not say in Slack that a session can no longer be followed'),
      );
  }

  async #statusChanged(session: SessionRecord, event: FollowEventOf<'status'>): Promise<void> {
    if (event.previousStatus === 'cost_limit' && event.status !== 'cost_limit')
      await this.#resolveBudgetPrompts(session, event.status);
  }

  /** The card as it should look now. */
  async card(sessionId: string): Promise<CardMessage | undefined> {
    return this.#cardOf(await this.deps.store.sessions.get(sessionId));
  }

  async #cardOf(session: SessionRecord | undefined): Promise<CardMessage | undefined> {
    if (!session?.cardTs) return undefined;
    const { sessionId } = session;
    const decision = await this.deps.latestDecision?.(sessionId).catch(() => undefined);
    const card = sessionCard({
      ...cardStateOf(session, this.#snapshots.get(sessionId), Date.now(), this.#steps.get(sessionId)),
      ...(decision ? { latestDecision: decision } : {}),
    });
    // Drawn at the card's coalesced pace: the session's own channel shows the same state.
    if (session.codeChannelId) this.deps.codeChannels?.shown(session, this.#snapshots.get(sessionId));
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
    for (const { ts } of await this.deps.store.posts.withPrefix(session.sessionId, 'cost_limit:')) {
      await this.#update(session.channelId, ts, shown).catch(
        this.#warn(session.sessionId, 'could not close a budget prompt'),
      );
    }
  }

  /** The bot's own edits and DMs: first in their channel's outbound queue, as the thread's posts are paced. */
  #chat() {
    return queuedChat(this.deps.slack, this.deps.outbound).chat;
  }

  /** An edit of a message the bot posted, paced by the outbound queue. */
  #update(channel: string, ts: string, shown: { text: string; blocks?: KnownBlock[] }): Promise<unknown> {
    return this.#chat().update({ channel, ts, ...shown });
  }

  /** The session's streams while its surface is `agent` and it has a thread; else the classic thread's. */
  #streams(place: SessionPlace): StreamPoster | undefined {
    return this.deps.streams?.streams(place) ? this.deps.streams : undefined;
  }

  /** For a Slack call whose failure should not stop the session's events: log it and go on. */
  #warn(sessionId: string, what: string): (error: unknown) => void {
    return (error) => this.deps.logger.warn({ err: error, sessionId }, what);
  }

  async #prompt(
    session: SessionRecord,
    place: SessionPlace,
    request: HumanInputRequest,
    messageKey?: string,
  ): Promise<void> {
    const existing = await this.deps.store.prompts.get(place.sessionId, request.inputId);
    if (existing?.state === 'answered') {
      // Answered while its posting was being redone (a restart): make sure it shows the answer.
      const ts = existing.messageTs ?? (await this.deps.poster.locate(place, `input:${request.inputId}`));
      if (ts) {
        const shown = promptAsAnswered(existing);
        await this.#update(place.channelId, ts, shown).catch(
          this.#warn(place.sessionId, 'could not mark a prompt answered'),
        );
      }
      return;
    }
    const record = (messageTs: string | null, carried?: KnownBlock[]) =>
      this.deps.store.prompts.save({
        sessionId: place.sessionId,
        inputId: request.inputId,
        channelId: place.channelId,
        messageTs,
        request,
        refKey: refKeyOf(place.sessionId, request.inputId),
        ...(carried ? { carried } : {}),
      });
    // Recorded before posting, so a click on the message always finds its question.
    await record(existing?.messageTs ?? null);
    this.deps.homeChanged?.();
    // The stream's appends are out before the question; its stop goes behind it, at its own limit.
    await this.#streams(place)?.end(place, 'suspended');
    // The prompt comes after the agent's messages up to the one that asked: that much of this session's
    // waiting chatter goes in the prompt's post, ahead of the question (not held up by other sessions'
    // chatter or outcomes); what the agent said after it keeps its pace. Asked elsewhere (a round object),
    // or the message's mark forgotten: all the chatter queued so far.
    const through = this.#marks.get(place.sessionId, messageKey) ?? this.deps.poster.mark();
    this.deps.owner.throwIfMoved(place.sessionId);
    const ts = await this.deps.poster.postAfterChatter(
      place,
      `input:${request.inputId}`,
      promptMessage(request, {
        sessionId: place.sessionId,
        startedBy: place.startedBy,
        // Said of the channel the prompt is in (a code channel's own, for a session that has one).
        ...answerersOf(this.deps.answerers?.({ ...session, channelId: place.channelId }, request)),
      }),
      through,
      // Kept with the question, so its edits (answered) keep the messages it carried.
      (carried) => record(existing?.messageTs ?? null, carried),
    );
    await record(ts);
    this.#observe('human_input', askedAt(request.raw));
  }

  /**
   * A wait on a question nobody could read: said once per event, with the raw data and something to click.
   * With an input id, the question is recorded as free text so Answer as text is answered like any other.
   */
  async #unreadable(place: SessionPlace, event: FollowEventOf<'human_input_unreadable'>): Promise<void> {
    const { inputId } = event;
    // A question read before under this id keeps its form; otherwise it is free text to that id.
    const existing = inputId ? await this.deps.store.prompts.get(place.sessionId, inputId) : undefined;
    const record = async (messageTs: string | null) => {
      if (!inputId || (existing && existing.request.prompt !== UNREADABLE_PROMPT)) return;
      await this.deps.store.prompts.save({
        sessionId: place.sessionId,
        inputId,
        channelId: place.channelId,
        messageTs,
        request: unreadableAsFreeText(inputId, event.raw),
        refKey: refKeyOf(place.sessionId, inputId),
      });
    };
    // Recorded before posting, so a click on the message always finds its question.
    await record(existing?.messageTs ?? null);
    const message = unreadableQuestionMessage({
      sessionId: place.sessionId,
      startedBy: place.startedBy,
      ...(inputId ? { inputId } : {}),
      raw: event.raw,
    });
    await record(await this.deps.poster.post(place, event.key, message));
  }

  /** The card is the thread's root: posted once, before anything goes in its thread. */
  async #ensureCard(session: SessionRecord): Promise<SessionRecord> {
    if (session.cardTs) return session;
    const initial = sessionCard(cardStateOf(session, undefined, Date.now()));
    const ts = await this.deps.poster.post({ ...session, cardTs: null }, 'card', initial);
    await this.deps.store.sessions.update(session.sessionId, { cardTs: ts });
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

/** When the agent asked, if the raw request says (for the surfacing-delay metric). */
function askedAt(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null) return undefined;
  if ('timestamp' in raw && raw.timestamp !== undefined && raw.timestamp !== null) return raw.timestamp;
  return 'askedAt' in raw ? raw.askedAt : undefined;
}

const answerersOf = (line: string | undefined): { answerers?: string } => (line ? { answerers: line } : {});
