/**
 * One session's poll: what to read (status or messages first), the pages, and the events they make.
 * `poll` is one pass over one poll's reads, whose later steps (questions, the wait, session events, the
 * new state) all judge by what the earlier ones read. The questions and the wait on a person are in
 * ./questions.ts, the session's own events in ./session-events.ts, the cursor in ../messages/.
 */
import { parseHumanInputDetailed } from '../human-input/index.js';
import { applyPage, nextQuery, noProgressError, type RoundsInfo, roundsInfoOf } from '../messages/index.js';
import { isActiveStatus, isKnownStatus, isTerminalStatus, needsPerson } from '../status.js';
import type { FollowEvent } from './events.js';
import { ANNOUNCED_INPUTS_KEPT, type FollowState } from './follow-state.js';
import { answeredInputIds, type FreshMessage, findQuestions, waitingStep } from './questions.js';
import type { SchedulePolicy, SessionActivity } from './schedule-policy.js';
import { sessionEvents } from './session-events.js';
import type { FollowedMessage, FollowedSession, SessionsReader } from './sessions-reader.js';

/** The largest page the contract allows: fewer requests per poll. */
export const MESSAGES_PAGE_SIZE = 200;
/** A poll stops reading pages after this many and comes back at once, so one session can't hog a key. */
export const MAX_PAGES_PER_POLL = 10;
/** Messages a follower keeps in memory to show with a question it could not read. */
export const RECENT_MESSAGES_KEPT = 20;

export interface PollContext {
  /** Resolves when the session's API key may send one more request. */
  takeToken(signal: AbortSignal): Promise<void>;
  signal: AbortSignal;
  /** The key's budget can't keep up: message reads that can wait, wait. */
  busy: boolean;
}

export interface PollResult {
  events: FollowEvent[];
  /** The state to commit once the events were handled. */
  state: FollowState;
  activity: SessionActivity;
  /** Anything new: status, rounds, updatedAt or messages. */
  changed: boolean;
  /** Pages are left to read: poll again at once. */
  moreToRead: boolean;
  /** The service's paging may have skipped messages (see AppliedPage.gapPossible). */
  gapPossible: boolean;
}

export function activityOf(status: string): SessionActivity {
  if (isTerminalStatus(status)) return 'terminal';
  if (needsPerson(status)) return 'needs_person';
  if (!isKnownStatus(status)) return 'unknown';
  return 'active';
}

function comparable(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Names a message may carry when it ends the session's work: its status has surely changed. */
const FINAL_MESSAGE_NAMES = new Set([
  'final_report',
  'completion_report',
  'completion',
  'complete',
  'completed',
  'finish',
  'finished',
  'final',
  'error',
]);

/** Does this message say the session's status changed (a question, a final report)? */
function suggestsStatusChange(message: FollowedMessage): boolean {
  if (parseHumanInputDetailed(message) !== undefined) return true;
  for (const key of ['name', 'type', 'event']) {
    const value = message[key];
    if (typeof value === 'string' && FINAL_MESSAGE_NAMES.has(value.toLowerCase())) return true;
  }
  return false;
}

/**
 * What a status says of its rounds, for a messages read that comes after it but not right after it:
 * what it says ended stays ended, so that stands; a round's message count may have grown since, so only
 * the counts of ended rounds are kept. (A round it says runs may have ended since: taken as running, the
 * cursor just waits for a later status to step past it.)
 */
function olderInfo(info: RoundsInfo): RoundsInfo {
  const ended = info.ended ?? [];
  const counts: Record<string, number> = {};
  for (const id of ended) {
    const count = info.counts?.[id];
    if (count !== undefined) counts[id] = count;
  }
  return { ...info, counts };
}

/** What a status read says, as the rest of a poll uses it. */
interface StatusRead {
  session: FollowedSession;
  rounds: unknown[];
  info: RoundsInfo;
}

/**
 * The last status read of an active session, kept in memory (not in the saved state) for the polls that
 * read messages first: what they need of it, not the whole status.
 */
interface LastStatus {
  status: string;
  rounds: unknown[];
  info: RoundsInfo;
  /** The round ids it lists. */
  roundIds: ReadonlySet<string>;
}

/**
 * Follows one session: each `poll` reads its status, then its messages when something changed, and turns
 * what is new into events. A session that is active and was chatty at its last poll is read the other
 * way round: its messages first (a question arrives as a message, so one request surfaces chatter and
 * questions), and its status only when the budget allows, when a message suggests it changed (a
 * question, a final report, a round the last status didn't list), when nothing new came (it may have
 * stopped), or every `statusReadEveryPollsWhenBusy` polls. It never moves its state itself: the caller commits the returned state after
 * the events were handled, so a failure in between re-reads (and re-delivers) instead of losing.
 */
export class SessionFollower {
  readonly sessionId: string;
  #state: FollowState;
  /** Polls since messages were last read. */
  #pollsSinceMessages = 0;
  /** Polls since the status was last read. */
  #pollsSinceStatus = 0;
  /** The last status read (in this process). */
  #last: LastStatus | undefined;
  /** The last poll delivered messages. */
  #chatty = false;
  /** The newest messages delivered (bounded), shown raw with a question that could not be read. */
  readonly #recent: FollowedMessage[] = [];
  intervalMs: number | undefined;
  consecutiveFailures = 0;

  constructor(
    readonly reader: SessionsReader,
    state: FollowState,
    readonly policy: SchedulePolicy,
  ) {
    this.sessionId = state.sessionId;
    this.#state = state;
  }

  get state(): FollowState {
    return this.#state;
  }

  commit(result: PollResult): void {
    this.#state = result.state;
  }

  /** Reads the status (one request); an active session's is remembered for the polls that read messages first. */
  async #readStatus(options: { signal: AbortSignal; maxRetries: number }): Promise<StatusRead> {
    const session = await this.reader.sessions.get(this.sessionId, options);
    const rounds = Array.isArray(session.rounds) ? session.rounds : [];
    const activity = activityOf(session.status);
    const info = roundsInfoOf(rounds, activity === 'terminal');
    this.#last =
      activity === 'active'
        ? { status: session.status, rounds, info, roundIds: new Set(info.order ?? []) }
        : undefined;
    this.#pollsSinceStatus = 0;
    return { session, rounds, info };
  }

  async poll(ctx: PollContext): Promise<PollResult> {
    const previous = this.#state;
    const readOptions = { signal: ctx.signal, maxRetries: 0 };
    // Messages first: only for an active session that was chatty at its last poll, with a status read
    // earlier in this process (its rounds tell the cursor which rounds ended).
    const known =
      this.#chatty &&
      previous.status !== null &&
      activityOf(previous.status) === 'active' &&
      this.#last?.status === previous.status
        ? this.#last
        : undefined;
    const messagesFirst = known !== undefined;

    let current: StatusRead | undefined;
    let readMessages: boolean;
    // What the cursor is told of the rounds: always from a status read BEFORE the pages, so a round it
    // says ended has all its messages in them.
    let info: RoundsInfo;
    const pollsSince = this.#pollsSinceMessages + 1;
    if (known !== undefined) {
      info = olderInfo(known.info);
      readMessages = true;
    } else {
      current = await this.#readStatus(readOptions);
      const status = current.session.status;
      const activity = activityOf(status);
      const updatedAt = comparable(current.session.updatedAt);
      const statusChanged = status !== previous.status;
      const roundsChanged = current.rounds.length !== previous.roundCount;
      const updatedChanged = updatedAt === null || updatedAt !== previous.updatedAt;
      const mustRead = previous.status === null || statusChanged || roundsChanged || activity === 'terminal';
      const everyBusy = this.policy.messageReadEveryPollsWhenBusy;
      const mayRead =
        activity !== 'needs_person'
          ? (updatedChanged && (!ctx.busy || pollsSince >= everyBusy)) || pollsSince >= 2 * everyBusy
          : updatedChanged;
      readMessages = mustRead || mayRead || previous.moreToRead;
      info = current.info;
    }

    const events: FollowEvent[] = [];
    let cursor = previous.cursor;
    let moreToRead = false;
    let gapPossible = false;
    /** The read ended before a round still at work (AppliedPage.held): pages past it wait for a poll. */
    let held = false;
    let lastPage: FollowedMessage[] = [];
    const fresh: FreshMessage[] = [];

    if (readMessages) {
      for (let page = 0; ; page++) {
        if (page === MAX_PAGES_PER_POLL) {
          moreToRead = true;
          break;
        }
        // The scheduler's token paid for the poll's first request; every further request takes its own.
        if (!messagesFirst || page > 0) await ctx.takeToken(ctx.signal);
        const query = nextQuery(cursor);
        const result = await this.reader.sessions.messages(
          this.sessionId,
          { limit: MESSAGES_PAGE_SIZE, ...query },
          readOptions,
        );
        const applied = applyPage(cursor, result, info, MESSAGES_PAGE_SIZE, { holdOnRunning: true });
        cursor = applied.cursor;
        gapPossible ||= applied.gapPossible;
        lastPage = result.messages;
        for (const m of applied.fresh) {
          fresh.push({ message: m.message, key: m.key, roundId: m.roundId, position: m.position });
        }
        if (!result.pagination.hasMore) break;
        // Held: the rest lies past a round still running; the next poll reads it from the saved point.
        if (applied.held) {
          held = true;
          break;
        }
        if (applied.stalled) {
          // Reading on would fetch this page forever: deliver what came, say why reading stopped.
          events.push({
            type: 'error',
            sessionId: this.sessionId,
            key: `paging:${cursor.afterRoundId ?? ''}`,
            error: noProgressError(cursor.afterRoundId),
            fatal: false,
            consecutiveFailures: this.consecutiveFailures,
          });
          break;
        }
      }
    }

    if (known !== undefined) {
      // Held on an older status's word (the round may have ended since): read the status now, so the next
      // poll's cursor is told, and announce no question before the messages ahead of it are read.
      const readStatus =
        held ||
        !ctx.busy ||
        fresh.length === 0 ||
        this.#pollsSinceStatus + 1 >= this.policy.statusReadEveryPollsWhenBusy ||
        fresh.some(
          (m) =>
            (known.roundIds.size > 0 && !known.roundIds.has(m.roundId)) || suggestsStatusChange(m.message),
        );
      if (readStatus) {
        await ctx.takeToken(ctx.signal);
        current = await this.#readStatus(readOptions);
        // Read after the pages: a session that stopped running (finished, waiting, paused) may have said
        // more between the two reads. Poll again at once, status first, before finishing or deciding a
        // wait has no question.
        if (activityOf(current.session.status) !== 'active') moreToRead = true;
      } else {
        this.#pollsSinceStatus++;
      }
    }
    this.#chatty = fresh.length > 0;

    // What is known of the session now: read this poll, or (messages first, status not read) as last read.
    // (Events that carry the session, status, update and finished, only come from a status read here.)
    const statusRead = current !== undefined;
    const latest = (current ?? known) as StatusRead | LastStatus;
    const session = current?.session as FollowedSession;
    const status = current ? current.session.status : (previous.status as string);
    const activity = activityOf(status);
    const rounds = latest.rounds;
    const updatedAt = current ? comparable(current.session.updatedAt) : previous.updatedAt;
    const first = previous.status === null;
    const statusChanged = status !== previous.status;
    const roundsChanged = statusRead && rounds.length !== previous.roundCount;
    // A service that sends no updatedAt can't tell us nothing changed: assume it did.
    const updatedChanged = statusRead && (updatedAt === null || updatedAt !== previous.updatedAt);
    // Questions are judged with the newest word on the rounds (they are not the cursor's business).
    const roundsInfo = latest.info;

    for (const m of fresh) {
      events.push({
        type: 'message',
        sessionId: this.sessionId,
        key: m.key,
        roundId: m.roundId,
        position: m.position,
        message: m.message,
      });
      this.#recent.push(m.message);
    }
    if (this.#recent.length > RECENT_MESSAGES_KEPT)
      this.#recent.splice(0, this.#recent.length - RECENT_MESSAGES_KEPT);

    const answered = answeredInputIds(rounds);
    const questions =
      activity !== 'terminal' && !(held && messagesFirst)
        ? findQuestions({
            sessionId: this.sessionId,
            fresh,
            rounds,
            roundsInfo,
            cursor,
            announced: previous.announcedInputs,
            answered,
          })
        : { events: [], newlyAnnounced: [], roundPending: false };
    events.push(...questions.events);
    const { newlyAnnounced } = questions;

    // Questions asked since the session last resumed: one still unanswered means the wait has a question.
    // (A question is asked while the session runs, before its status says it waits.)
    const resumed = isActiveStatus(status) && previous.status !== null && !isActiveStatus(previous.status);
    const askedBefore = resumed ? [] : (previous.askedSinceRun ?? []);
    const askedSinceRun = [...askedBefore, ...newlyAnnounced].slice(-ANNOUNCED_INPUTS_KEPT);
    const { waiting, event: unreadable } = waitingStep({
      sessionId: this.sessionId,
      status,
      previous,
      updatedAt,
      rounds,
      roundPending: questions.roundPending,
      askedSinceRun,
      answered,
      readAll: readMessages && !moreToRead && !held,
      recentMessages: () =>
        this.#recent.length > 0 ? [...this.#recent] : lastPage.slice(-RECENT_MESSAGES_KEPT),
    });
    if (unreadable) events.push(unreadable);

    const finished = activity === 'terminal' && !moreToRead;
    events.push(
      ...sessionEvents({
        sessionId: this.sessionId,
        session,
        status,
        previousStatus: previous.status,
        updatedAt,
        roundCount: rounds.length,
        newlyFinished: finished && !previous.finished,
        updated: first || statusChanged || roundsChanged || updatedChanged,
      }),
    );

    this.#pollsSinceMessages = readMessages ? 0 : pollsSince;
    const state: FollowState = {
      ...previous,
      cursor,
      moreToRead,
      status,
      updatedAt,
      roundCount: statusRead ? rounds.length : previous.roundCount,
      announcedInputs: [...previous.announcedInputs, ...newlyAnnounced].slice(-ANNOUNCED_INPUTS_KEPT),
      askedSinceRun,
      waiting,
      finished,
    };
    const changed =
      statusChanged || roundsChanged || (updatedChanged && updatedAt !== null) || fresh.length > 0;
    return { events, state, activity, changed, moreToRead, gapPossible };
  }
}
