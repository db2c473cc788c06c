/**
 * One session's poll: what to read (status or messages first), the pages, and the events they make.
 * `poll` is one pass over one poll's reads, told as its steps; the later ones (questions, the wait,
 * session events, the new state) all judge by what the earlier ones read. The questions and the wait on a person are in
 * ./questions.ts, the session's own events in ./session-events.ts, the cursor in ../messages/.
 */
import { parseHumanInputDetailed } from '../human-input/index.js';
import {
  applyPage,
  type MessagesCursor,
  nextQuery,
  noProgressError,
  type RoundsInfo,
  roundsInfoOf,
} from '../messages/index.js';
import { isActiveStatus, isKnownStatus, isTerminalStatus, needsPerson } from '../status.js';
import type { FollowEvent } from './events.js';
import { ANNOUNCED_INPUTS_KEPT, type FollowState } from './follow-state.js';
import {
  answeredInputIds,
  type FoundQuestions,
  type FreshMessage,
  findQuestions,
  waitingStep,
} from './questions.js';
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

/** How a poll starts: the status it read first (if any), and whether it reads messages. */
interface PollStart {
  current: StatusRead | undefined;
  readMessages: boolean;
  /**
   * What the cursor is told of the rounds: always from a status read BEFORE the pages, so a round it
   * says ended has all its messages in them.
   */
  info: RoundsInfo;
}

/** What a poll's pages brought. */
interface PagesRead {
  cursor: MessagesCursor;
  fresh: FreshMessage[];
  /** Raised while reading (paging that stopped making progress), before the messages' own events. */
  events: FollowEvent[];
  moreToRead: boolean;
  gapPossible: boolean;
  /** The read ended before a round still at work (AppliedPage.held): pages past it wait for a poll. */
  held: boolean;
  lastPage: FollowedMessage[];
}

/** A poll that reads no messages: the cursor stays where it is. */
function noPages(cursor: MessagesCursor): PagesRead {
  return { cursor, fresh: [], events: [], moreToRead: false, gapPossible: false, held: false, lastPage: [] };
}

/** What is known of the session once a poll's reads are done. */
interface SessionNow {
  statusRead: boolean;
  /** Only set by a status read this poll. */
  session: FollowedSession;
  status: string;
  activity: SessionActivity;
  rounds: unknown[];
  /** Questions are judged with the newest word on the rounds (they are not the cursor's business). */
  roundsInfo: RoundsInfo;
  updatedAt: string | null;
  statusChanged: boolean;
  roundsChanged: boolean;
  updatedChanged: boolean;
}

/**
 * What is known of the session now: read this poll, or (messages first, status not read) as last read.
 * (Events that carry the session, status, update and finished, only come from a status read here.)
 */
function sessionNow(
  previous: FollowState,
  current: StatusRead | undefined,
  known: LastStatus | undefined,
): SessionNow {
  const statusRead = current !== undefined;
  const latest = (current ?? known) as StatusRead | LastStatus;
  const status = current ? current.session.status : (previous.status as string);
  const rounds = latest.rounds;
  const updatedAt = current ? comparable(current.session.updatedAt) : previous.updatedAt;
  return {
    statusRead,
    session: current?.session as FollowedSession,
    status,
    activity: activityOf(status),
    rounds,
    roundsInfo: latest.info,
    updatedAt,
    statusChanged: status !== previous.status,
    roundsChanged: statusRead && rounds.length !== previous.roundCount,
    // A service that sends no updatedAt can't tell us nothing changed: assume it did.
    updatedChanged: statusRead && (updatedAt === null || updatedAt !== previous.updatedAt),
  };
}

/** The state to commit once the poll's events were handled. */
function nextState(
  previous: FollowState,
  now: SessionNow,
  cursor: MessagesCursor,
  poll: Pick<FollowState, 'moreToRead' | 'askedSinceRun' | 'waiting' | 'finished'> & {
    newlyAnnounced: readonly string[];
  },
): FollowState {
  return {
    ...previous,
    cursor,
    moreToRead: poll.moreToRead,
    status: now.status,
    updatedAt: now.updatedAt,
    roundCount: now.statusRead ? now.rounds.length : previous.roundCount,
    announcedInputs: [...previous.announcedInputs, ...poll.newlyAnnounced].slice(-ANNOUNCED_INPUTS_KEPT),
    askedSinceRun: poll.askedSinceRun,
    waiting: poll.waiting,
    finished: poll.finished,
  };
}

/**
 * Questions asked since the session last resumed: one still unanswered means the wait has a question.
 * (A question is asked while the session runs, before its status says it waits.)
 */
function askedSinceRunOf(previous: FollowState, status: string, newlyAnnounced: readonly string[]): string[] {
  const resumed = isActiveStatus(status) && previous.status !== null && !isActiveStatus(previous.status);
  const askedBefore = resumed ? [] : (previous.askedSinceRun ?? []);
  return [...askedBefore, ...newlyAnnounced].slice(-ANNOUNCED_INPUTS_KEPT);
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
  /** The state the store holds, as JSON, when known: a poll that moved nothing writes nothing. */
  #stored: string | undefined;
  /** The last poll result `unsaved` looked at, as JSON (commit keeps it without a second stringify). */
  #checked: { result: PollResult; json: string } | undefined;

  /** `stored`: `state` is what the store holds already (loaded from it, not made anew). */
  constructor(
    readonly reader: SessionsReader,
    state: FollowState,
    readonly policy: SchedulePolicy,
    stored = false,
  ) {
    this.sessionId = state.sessionId;
    this.#state = state;
    if (stored) this.#stored = JSON.stringify(state);
  }

  get state(): FollowState {
    return this.#state;
  }

  /**
   * Whether the poll's state differs from the one the store holds: most polls of a session that is
   * working or waiting find nothing new, and their state is the one saved after the last poll that did.
   */
  unsaved(result: PollResult): boolean {
    this.#checked = { result, json: JSON.stringify(result.state) };
    return this.#checked.json !== this.#stored;
  }

  /** The poll's state is saved (or was the stored one already): the next poll starts from it. */
  commit(result: PollResult): void {
    this.#state = result.state;
    const checked = this.#checked?.result === result ? this.#checked : undefined;
    this.#stored = checked?.json ?? JSON.stringify(result.state);
    this.#checked = undefined;
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
    const known = this.#lastStatusToReadMessagesFirst(previous);
    const messagesFirst = known !== undefined;
    const pollsSince = this.#pollsSinceMessages + 1;
    const start = await this.#start(ctx, previous, known, pollsSince, readOptions);
    const pages = start.readMessages
      ? await this.#readPages(ctx, previous.cursor, start.info, messagesFirst, readOptions)
      : noPages(previous.cursor);
    const statusAfter =
      known !== undefined ? await this.#statusAfterPages(ctx, known, pages, readOptions) : undefined;
    // Read after the pages: a session that stopped running (finished, waiting, paused) may have said
    // more between the two reads. Poll again at once, status first, before finishing or deciding a
    // wait has no question.
    const moreToRead =
      pages.moreToRead || (statusAfter !== undefined && activityOf(statusAfter.session.status) !== 'active');
    this.#chatty = pages.fresh.length > 0;
    const now = sessionNow(previous, statusAfter ?? start.current, known);

    const events = [...pages.events, ...this.#messageEvents(pages.fresh)];
    const answered = answeredInputIds(now.rounds);
    const questions = this.#questions(previous, now, pages, answered, messagesFirst);
    events.push(...questions.events);
    const askedSinceRun = askedSinceRunOf(previous, now.status, questions.newlyAnnounced);
    const { waiting, event: unreadable } = this.#waitStep(previous, now, pages, {
      roundPending: questions.roundPending,
      askedSinceRun,
      answered,
      readAll: start.readMessages && !moreToRead && !pages.held,
    });
    if (unreadable) events.push(unreadable);
    const finished = now.activity === 'terminal' && !moreToRead;
    events.push(...this.#sessionEvents(previous, now, finished));

    this.#pollsSinceMessages = start.readMessages ? 0 : pollsSince;
    const state = nextState(previous, now, pages.cursor, {
      moreToRead,
      newlyAnnounced: questions.newlyAnnounced,
      askedSinceRun,
      waiting,
      finished,
    });
    const changed =
      now.statusChanged ||
      now.roundsChanged ||
      (now.updatedChanged && now.updatedAt !== null) ||
      pages.fresh.length > 0;
    return { events, state, activity: now.activity, changed, moreToRead, gapPossible: pages.gapPossible };
  }

  /**
   * Messages first: only for an active session that was chatty at its last poll, with a status read
   * earlier in this process (its rounds tell the cursor which rounds ended). That status, if so.
   */
  #lastStatusToReadMessagesFirst(previous: FollowState): LastStatus | undefined {
    return this.#chatty &&
      previous.status !== null &&
      activityOf(previous.status) === 'active' &&
      this.#last?.status === previous.status
      ? this.#last
      : undefined;
  }

  /** The poll's first read: the messages (messages first), or the status, which says whether to read them. */
  async #start(
    ctx: PollContext,
    previous: FollowState,
    known: LastStatus | undefined,
    pollsSince: number,
    readOptions: { signal: AbortSignal; maxRetries: number },
  ): Promise<PollStart> {
    if (known !== undefined) return { current: undefined, readMessages: true, info: olderInfo(known.info) };
    const current = await this.#readStatus(readOptions);
    const readMessages = this.#messagesDue(ctx, previous, current, pollsSince);
    return { current, readMessages, info: current.info };
  }

  /** After a status read: read the messages when the status says something changed, or they are due. */
  #messagesDue(ctx: PollContext, previous: FollowState, current: StatusRead, pollsSince: number): boolean {
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
    return mustRead || mayRead || previous.moreToRead;
  }

  /** Reads pages from the cursor until the read is over, held or stalled, or MAX_PAGES_PER_POLL were read. */
  async #readPages(
    ctx: PollContext,
    cursor: MessagesCursor,
    info: RoundsInfo,
    messagesFirst: boolean,
    readOptions: { signal: AbortSignal; maxRetries: number },
  ): Promise<PagesRead> {
    const pages = noPages(cursor);
    for (let page = 0; ; page++) {
      if (page === MAX_PAGES_PER_POLL) {
        pages.moreToRead = true;
        break;
      }
      // The scheduler's token paid for the poll's first request; every further request takes its own.
      if (!messagesFirst || page > 0) await ctx.takeToken(ctx.signal);
      const query = nextQuery(pages.cursor);
      const result = await this.reader.sessions.messages(
        this.sessionId,
        { limit: MESSAGES_PAGE_SIZE, ...query },
        readOptions,
      );
      const applied = applyPage(pages.cursor, result, info, MESSAGES_PAGE_SIZE, { holdOnRunning: true });
      pages.cursor = applied.cursor;
      pages.gapPossible ||= applied.gapPossible;
      pages.lastPage = result.messages;
      for (const m of applied.fresh) {
        pages.fresh.push({ message: m.message, key: m.key, roundId: m.roundId, position: m.position });
      }
      if (!result.pagination.hasMore) break;
      // Held: the rest lies past a round still running; the next poll reads it from the saved point.
      if (applied.held) {
        pages.held = true;
        break;
      }
      if (applied.stalled) {
        // Reading on would fetch this page forever: deliver what came, say why reading stopped.
        pages.events.push(this.#stalledError(pages.cursor));
        break;
      }
    }
    return pages;
  }

  #stalledError(cursor: MessagesCursor): FollowEvent {
    return {
      type: 'error',
      sessionId: this.sessionId,
      key: `paging:${cursor.afterRoundId ?? ''}`,
      error: noProgressError(cursor.afterRoundId),
      fatal: false,
      consecutiveFailures: this.consecutiveFailures,
    };
  }

  /**
   * Messages first: the status read after the pages, when it is due (undefined when it waits). Held on an
   * older status's word (the round may have ended since): read the status now, so the next poll's cursor
   * is told, and announce no question before the messages ahead of it are read.
   */
  async #statusAfterPages(
    ctx: PollContext,
    known: LastStatus,
    pages: PagesRead,
    readOptions: { signal: AbortSignal; maxRetries: number },
  ): Promise<StatusRead | undefined> {
    const fresh = pages.fresh;
    const readStatus =
      pages.held ||
      !ctx.busy ||
      fresh.length === 0 ||
      this.#pollsSinceStatus + 1 >= this.policy.statusReadEveryPollsWhenBusy ||
      fresh.some(
        (m) => (known.roundIds.size > 0 && !known.roundIds.has(m.roundId)) || suggestsStatusChange(m.message),
      );
    if (!readStatus) {
      this.#pollsSinceStatus++;
      return undefined;
    }
    await ctx.takeToken(ctx.signal);
    return this.#readStatus(readOptions);
  }

  /** One event per new message, oldest first; the newest are kept to show with an unreadable question. */
  #messageEvents(fresh: readonly FreshMessage[]): FollowEvent[] {
    const events: FollowEvent[] = [];
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
    return events;
  }

  /** The questions the new messages and rounds ask: none once the session ended, or held on an older status. */
  #questions(
    previous: FollowState,
    now: SessionNow,
    pages: PagesRead,
    answered: Set<string>,
    messagesFirst: boolean,
  ): FoundQuestions {
    if (now.activity === 'terminal' || (pages.held && messagesFirst)) {
      return { events: [], newlyAnnounced: [], roundPending: false };
    }
    return findQuestions({
      sessionId: this.sessionId,
      fresh: pages.fresh,
      rounds: now.rounds,
      roundsInfo: now.roundsInfo,
      cursor: pages.cursor,
      announced: previous.announcedInputs,
      answered,
    });
  }

  /** The wait on a person (see `waitingStep`), with the newest messages to show with an unreadable one. */
  #waitStep(
    previous: FollowState,
    now: SessionNow,
    pages: PagesRead,
    asked: {
      roundPending: boolean;
      askedSinceRun: readonly string[];
      answered: Set<string>;
      readAll: boolean;
    },
  ): ReturnType<typeof waitingStep> {
    return waitingStep({
      sessionId: this.sessionId,
      status: now.status,
      previous,
      updatedAt: now.updatedAt,
      rounds: now.rounds,
      ...asked,
      recentMessages: () =>
        this.#recent.length > 0 ? [...this.#recent] : pages.lastPage.slice(-RECENT_MESSAGES_KEPT),
    });
  }

  #sessionEvents(previous: FollowState, now: SessionNow, finished: boolean): FollowEvent[] {
    return sessionEvents({
      sessionId: this.sessionId,
      session: now.session,
      status: now.status,
      previousStatus: previous.status,
      updatedAt: now.updatedAt,
      roundCount: now.rounds.length,
      newlyFinished: finished && !previous.finished,
      updated: previous.status === null || now.statusChanged || now.roundsChanged || now.updatedChanged,
    });
  }
}
