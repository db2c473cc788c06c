import { parseHumanInputDetailed } from '../human-input/index.js';
import { applyPage, nextQuery } from '../messages-cursor.js';
import { isKnownStatus, isSuccessStatus, isTerminalStatus, needsPerson } from '../status.js';
import type { FollowEvent } from './events.js';
import { ANNOUNCED_INPUTS_KEPT, type FollowState } from './follow-state.js';
import type { SchedulePolicy, SessionActivity } from './schedule-policy.js';
import type { FollowedMessage, SessionsReader } from './sessions-reader.js';

/** The largest page the contract allows: fewer requests per poll. */
export const MESSAGES_PAGE_SIZE = 200;
/** A poll stops reading pages after this many and comes back at once, so one session can't hog a key. */
export const MAX_PAGES_PER_POLL = 10;

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
  /** The service's paging may have skipped messages (a round larger than a page). */
  gapPossible: boolean;
}

export function activityOf(status: string): SessionActivity {
  if (isTerminalStatus(status)) return 'terminal';
  if (needsPerson(status)) return 'needs_person';
  if (!isKnownStatus(status)) return 'unknown';
  return 'active';
}

function roundIdOf(round: unknown): string | undefined {
  if (round && typeof round === 'object') {
    const r = round as Record<string, unknown>;
    const id = r.roundId ?? r.id;
    if (typeof id === 'string' && id !== '') return id;
  }
  return undefined;
}

function comparable(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Follows one session: each `poll` reads its status, then its messages when something changed, and turns
 * what is new into events. It never moves its state itself: the caller commits the returned state after
 * the events were handled, so a failure in between re-reads (and re-delivers) instead of losing.
 */
export class SessionFollower {
  readonly sessionId: string;
  #state: FollowState;
  /** Polls since messages were last read. */
  #pollsSinceMessages = 0;
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

  async poll(ctx: PollContext): Promise<PollResult> {
    const previous = this.#state;
    const readOptions = { signal: ctx.signal, maxRetries: 0 };
    const session = await this.reader.sessions.get(this.sessionId, readOptions);

    const status = session.status;
    const activity = activityOf(status);
    const rounds = Array.isArray(session.rounds) ? session.rounds : [];
    const updatedAt = comparable(session.updatedAt);
    const first = previous.status === null;
    const statusChanged = status !== previous.status;
    const roundsChanged = rounds.length !== previous.roundCount;
    // A service that sends no updatedAt can't tell us nothing changed: assume it did.
    const updatedChanged = updatedAt === null || updatedAt !== previous.updatedAt;

    const pollsSince = this.#pollsSinceMessages + 1;
    const mustRead = first || statusChanged || roundsChanged || activity === 'terminal';
    const everyBusy = this.policy.messageReadEveryPollsWhenBusy;
    const mayRead =
      activity !== 'needs_person'
        ? (updatedChanged && (!ctx.busy || pollsSince >= everyBusy)) || pollsSince >= 2 * everyBusy
        : updatedChanged;
    const readMessages = mustRead || mayRead || previous.moreToRead;

    const events: FollowEvent[] = [];
    let cursor = previous.cursor;
    let moreToRead = false;
    let gapPossible = false;
    const fresh: Array<{ message: FollowedMessage; key: string; roundId: string; position: number }> = [];

    if (readMessages) {
      for (let page = 0; ; page++) {
        if (page === MAX_PAGES_PER_POLL) {
          moreToRead = true;
          break;
        }
        // The status read used the token the scheduler took; every further request takes its own.
        await ctx.takeToken(ctx.signal);
        const query = nextQuery(cursor);
        const result = await this.reader.sessions.messages(
          this.sessionId,
          { limit: MESSAGES_PAGE_SIZE, ...query },
          readOptions,
        );
        const applied = applyPage(cursor, result);
        cursor = applied.cursor;
        gapPossible ||= applied.gapPossible;
        for (const m of applied.fresh) {
          fresh.push({ message: m.message, key: m.key, roundId: m.roundId, position: m.position });
        }
        if (!result.pagination.hasMore) break;
      }
    }

    for (const m of fresh) {
      events.push({
        type: 'message',
        sessionId: this.sessionId,
        key: m.key,
        roundId: m.roundId,
        position: m.position,
        message: m.message,
      });
    }

    const announced = new Set(previous.announcedInputs);
    const newlyAnnounced: string[] = [];
    if (activity !== 'terminal') {
      // An answer starts a new round, so a question in an older round than the newest was answered.
      const newestRound =
        roundIdOf(rounds[rounds.length - 1]) ?? fresh[fresh.length - 1]?.roundId ?? cursor.lastRoundId;
      const candidates: Array<{ source: unknown; key: string }> = [];
      for (const m of fresh) {
        if (m.roundId === newestRound) candidates.push({ source: m.message, key: m.key });
      }
      for (const round of rounds) candidates.push({ source: round, key: `round:${roundIdOf(round) ?? '?'}` });
      for (const { source, key } of candidates) {
        const parsed = parseHumanInputDetailed(source);
        if (!parsed) continue;
        if (!parsed.ok) {
          // Only report a broken request the first time its message is read.
          if (!key.startsWith('round:')) {
            events.push({
              type: 'invalid_human_input',
              sessionId: this.sessionId,
              key: `invalid:${key}`,
              reason: parsed.reason,
              raw: parsed.raw,
            });
          }
          continue;
        }
        const { request } = parsed;
        if (announced.has(request.inputId)) continue;
        announced.add(request.inputId);
        newlyAnnounced.push(request.inputId);
        events.push({
          type: 'human_input_needed',
          sessionId: this.sessionId,
          key: `input:${request.inputId}`,
          request,
        });
      }
    }

    if (statusChanged) {
      events.push({
        type: 'status',
        sessionId: this.sessionId,
        key: `status:${status}:${updatedAt ?? ''}`,
        status,
        previousStatus: previous.status,
        known: isKnownStatus(status),
        session,
      });
      if (status === 'cost_limit') {
        events.push({
          type: 'cost_limit',
          sessionId: this.sessionId,
          key: `cost_limit:${updatedAt ?? ''}`,
          session,
        });
      }
    }

    const finished = activity === 'terminal' && !moreToRead;
    if (finished && !previous.finished) {
      events.push({
        type: 'finished',
        sessionId: this.sessionId,
        key: `finished:${this.sessionId}`,
        status,
        succeeded: isSuccessStatus(status),
        session,
      });
    }

    if (first || statusChanged || roundsChanged || updatedChanged) {
      events.push({
        type: 'update',
        sessionId: this.sessionId,
        key: `update:${status}:${updatedAt ?? ''}:${rounds.length}`,
        session,
      });
    }

    this.#pollsSinceMessages = readMessages ? 0 : pollsSince;
    const state: FollowState = {
      ...previous,
      cursor,
      moreToRead,
      status,
      updatedAt,
      roundCount: rounds.length,
      announcedInputs: [...previous.announcedInputs, ...newlyAnnounced].slice(-ANNOUNCED_INPUTS_KEPT),
      finished,
    };
    const changed =
      statusChanged || roundsChanged || (updatedChanged && updatedAt !== null) || fresh.length > 0;
    return { events, state, activity, changed, moreToRead, gapPossible };
  }
}
