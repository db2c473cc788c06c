/**
 * The Follower: many sessions polled under one request budget per API key. It is one scheduler whose
 * parts share its state (lanes, the abort signal, counters): its public face, the lane loop, a poll and a
 * failed poll. Each part with a job of its own lives beside it: a key's lane (./lane.ts), the event
 * handlers (./event-handlers.ts), one session's poll (./session-follower.ts), the schedule, the budget and
 * the queue.
 */
import { setMaxListeners } from 'node:events';
import { type Logger, silentLogger } from '../http/logger.js';
import { type Clock, systemClock } from './clock.js';
import { type CursorStore, InMemoryCursorStore } from './cursor-store.js';
import { type AroundHandler, type FollowEventHandler, FollowEventHandlers } from './event-handlers.js';
import type { FollowEventOf, FollowEventType } from './events.js';
import {
  type FollowState,
  type FollowStateV1,
  initialFollowState,
  upgradeFollowState,
} from './follow-state.js';
import { Lane } from './lane.js';
import {
  defaultSchedulePolicy,
  errorBackoffMs,
  nextIntervalMs,
  type SchedulePolicy,
  validateSchedulePolicy,
} from './schedule-policy.js';
import { SessionFollower } from './session-follower.js';
import type { SessionsReader } from './sessions-reader.js';
import { TokenBucket } from './token-bucket.js';

/** The follower logs through core's one logger type (pino-compatible). Kept as a name for callers. */
export type FollowerLogger = Logger;

export interface FollowerOptions {
  /** The client of the default API key. Sessions of other keys pass their own client to `follow`. */
  client: SessionsReader;
  /** Requests per second allowed per API key (every session of the key shares it). Default 10. */
  requestsPerSecond?: number;
  /** Requests a key may send at once after a quiet spell. Default: one second's worth. */
  burst?: number;
  store?: CursorStore;
  schedule?: Partial<SchedulePolicy>;
  /** Polls in flight at once per API key. Default 8. */
  maxConcurrentPolls?: number;
  /** How long `stop()` waits for polls in flight before aborting them. Default 10 s. */
  drainTimeoutMs?: number;
  /** When the service sends a 429 without a Retry-After, the key pauses this long. Default 1 s. */
  defaultRateLimitPauseMs?: number;
  clock?: Clock;
  logger?: FollowerLogger;
  /** Aborting it stops following at once, in-flight requests included. */
  signal?: AbortSignal;
  /**
   * Runs each poll, its requests and its event handlers included: where a caller opens a span (a trace
   * per poll) that the poll's service calls and whatever its handlers do are part of.
   */
  aroundPoll?: (sessionId: string, poll: () => Promise<void>) => Promise<void>;
  /**
   * Runs each handler's call with an event, whoever subscribed: where a caller sets what the call runs
   * under (the bot: the session's workspace), so no subscriber can forget it.
   */
  aroundHandler?: AroundHandler;
}

export interface FollowOptions {
  /** The client of the API key this session belongs to, when it isn't the default one. */
  client?: SessionsReader;
}

export interface FollowerStats {
  followed: number;
  inFlight: number;
  requests: number;
  polls: number;
  failedPolls: number;
  events: Record<FollowEventType, number>;
}

interface ErrorLike {
  status?: unknown;
  retryAfterMs?: unknown;
  name?: unknown;
}

function httpStatusOf(error: unknown): number | undefined {
  const status = (error as ErrorLike | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

class HandlerError extends Error {
  constructor(cause: unknown) {
    super(`an event handler failed: ${toError(cause).message}`, { cause });
    this.name = 'HandlerError';
  }
}

/**
 * Follows many sessions by polling, under one request budget per API key. Each session is polled when
 * due — busy ones often, quiet ones less, those waiting on a person slowly until `poke` — and what is new
 * is delivered as typed events. A batch's state is saved only after its events were handled.
 */
export class Follower {
  readonly #client: SessionsReader;
  readonly #clock: Clock;
  readonly #store: CursorStore;
  readonly #policy: SchedulePolicy;
  readonly #logger: FollowerLogger;
  readonly #rate: number;
  readonly #burst: number | undefined;
  readonly #maxConcurrent: number;
  readonly #drainTimeoutMs: number;
  readonly #defaultRateLimitPauseMs: number;
  readonly #lanes = new Map<SessionsReader, Lane>();
  readonly #laneOf = new Map<string, Lane>();
  readonly #handlers: FollowEventHandlers;
  readonly #abort = new AbortController();
  readonly #aroundPoll: FollowerOptions['aroundPoll'];
  #running = false;
  #stopping = false;
  #requests = 0;
  #polls = 0;
  #failedPolls = 0;

  constructor(options: FollowerOptions) {
    if (!options?.client) throw new TypeError('client is required');
    this.#client = options.client;
    this.#clock = options.clock ?? systemClock;
    this.#store = options.store ?? new InMemoryCursorStore();
    this.#policy = { ...defaultSchedulePolicy, ...options.schedule };
    validateSchedulePolicy(this.#policy);
    this.#logger = options.logger ?? silentLogger;
    this.#rate = options.requestsPerSecond ?? 10;
    this.#burst = options.burst;
    this.#maxConcurrent = options.maxConcurrentPolls ?? 8;
    if (!(Number.isInteger(this.#maxConcurrent) && this.#maxConcurrent >= 1)) {
      throw new RangeError(`maxConcurrentPolls must be a whole number >= 1, got ${this.#maxConcurrent}`);
    }
    this.#drainTimeoutMs = options.drainTimeoutMs ?? 10_000;
    this.#defaultRateLimitPauseMs = options.defaultRateLimitPauseMs ?? 1_000;
    this.#aroundPoll = options.aroundPoll;
    this.#handlers = new FollowEventHandlers(options.aroundHandler);
    // Every request in flight listens on this one signal, by design: not a leak.
    setMaxListeners(0, this.#abort.signal);
    // Validates the budget options now rather than at the first follow.
    this.#laneFor(this.#client);
    if (options.signal) {
      const signal = options.signal;
      if (signal.aborted) this.#abort.abort(signal.reason);
      else signal.addEventListener('abort', () => this.#abort.abort(signal.reason), { once: true });
    }
  }

  /** Subscribes to one kind of event; returns the unsubscribe function. Handlers may be async. */
  on<T extends FollowEventType>(type: T, handler: FollowEventHandler<FollowEventOf<T>>): () => void;
  on(type: '*', handler: FollowEventHandler): () => void;
  on(type: FollowEventType | '*', handler: FollowEventHandler<never>): () => void {
    return this.#handlers.on(type, handler);
  }

  /**
   * Starts following a session, from its saved state when the store has one. Returns false when it is
   * already followed or its saved state says it finished.
   */
  async follow(sessionId: string, options: FollowOptions = {}): Promise<boolean> {
    if (typeof sessionId !== 'string' || sessionId.trim() === '') {
      throw new TypeError('sessionId must be a non-empty string');
    }
    if (this.#laneOf.has(sessionId)) return false;
    const saved = (await this.#store.load(sessionId)) as FollowState | FollowStateV1 | undefined;
    // A state saved by an older version is upgraded here, whichever store kept it.
    const state = saved ? upgradeFollowState(saved) : initialFollowState(sessionId);
    // Held by the store as it is: an older version's state is written in the new shape at the next poll.
    const stored = saved?.version === 2;
    if (state.finished || this.#laneOf.has(sessionId)) return false;
    const lane = this.#laneFor(options.client ?? this.#client);
    lane.followers.set(sessionId, new SessionFollower(lane.reader, state, this.#policy, stored));
    this.#laneOf.set(sessionId, lane);
    lane.queue.schedule(sessionId, this.#clock.now());
    lane.wake();
    return true;
  }

  /** Stops following a session (its saved state stays in the store). */
  unfollow(sessionId: string): boolean {
    const lane = this.#laneOf.get(sessionId);
    if (!lane) return false;
    lane.queue.remove(sessionId);
    lane.followers.delete(sessionId);
    lane.pokedInFlight.delete(sessionId);
    this.#laneOf.delete(sessionId);
    return true;
  }

  isFollowing(sessionId: string): boolean {
    return this.#laneOf.has(sessionId);
  }

  /** Polls a session as soon as the budget allows: call it right after acting on the session. */
  poke(sessionId: string): boolean {
    const lane = this.#laneOf.get(sessionId);
    if (!lane) return false;
    if (lane.inFlight.has(sessionId)) {
      lane.pokedInFlight.add(sessionId);
    } else {
      lane.queue.schedule(sessionId, this.#clock.now());
      lane.wake();
    }
    return true;
  }

  start(): void {
    if (this.#running) return;
    if (this.#stopping) throw new Error('a stopped Follower cannot be started again');
    this.#running = true;
    for (const lane of this.#lanes.values()) this.#startLane(lane);
  }

  /** Stops scheduling, lets polls in flight finish (up to drainTimeoutMs), then aborts what is left. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    for (const lane of this.#lanes.values()) lane.wake();
    await Promise.all([...this.#lanes.values()].map((lane) => lane.loop));
    const inFlight = [...this.#lanes.values()].flatMap((lane) => [...lane.inFlight.values()]);
    if (inFlight.length > 0) {
      const drainTimer = new AbortController();
      const drained = Promise.all(inFlight).then(() => true);
      const timedOut = this.#clock.sleep(this.#drainTimeoutMs, drainTimer.signal).then(
        () => false,
        () => true,
      );
      const finished = await Promise.race([drained, timedOut]);
      drainTimer.abort();
      if (!finished) {
        this.#abort.abort(new Error('Follower stopped'));
        await Promise.allSettled(inFlight);
      }
    }
    this.#running = false;
  }

  stats(): FollowerStats {
    let inFlight = 0;
    for (const lane of this.#lanes.values()) inFlight += lane.inFlight.size;
    return {
      followed: this.#laneOf.size,
      inFlight,
      requests: this.#requests,
      polls: this.#polls,
      failedPolls: this.#failedPolls,
      events: { ...this.#handlers.counts },
    };
  }

  #laneFor(reader: SessionsReader): Lane {
    let lane = this.#lanes.get(reader);
    if (!lane) {
      const bucket = new TokenBucket({
        ratePerSecond: this.#rate,
        ...(this.#burst === undefined ? {} : { burst: this.#burst }),
        clock: this.#clock,
      });
      lane = new Lane(reader, bucket);
      this.#lanes.set(reader, lane);
      if (this.#running) this.#startLane(lane);
    }
    return lane;
  }

  #startLane(lane: Lane): void {
    lane.loop ??= this.#runLane(lane).catch((error: unknown) => {
      this.#logger.error({ err: toError(error) }, 'follower lane stopped unexpectedly');
    });
  }

  async #runLane(lane: Lane): Promise<void> {
    const clock = this.#clock;
    while (!this.#stopping && !this.#abort.signal.aborted) {
      const next = lane.queue.peek();
      const now = clock.now();
      if (!next) {
        await lane.idle(clock, Number.POSITIVE_INFINITY);
        continue;
      }
      if (next.dueAt > now) {
        await lane.idle(clock, next.dueAt - now);
        continue;
      }
      if (lane.inFlight.size >= this.#maxConcurrent) {
        await lane.idle(clock, Number.POSITIVE_INFINITY);
        continue;
      }
      if (!lane.bucket.tryTake()) {
        await lane.idle(clock, Math.max(1, lane.bucket.msUntilAvailable()));
        continue;
      }
      lane.queue.pop();
      const follower = lane.followers.get(next.sessionId);
      if (!follower) continue;
      // Saturated: the session after this one is already late. Message reads that can wait, wait.
      const after = lane.queue.peek();
      const busy = after !== undefined && now - after.dueAt > this.#policy.activeMinMs;
      this.#requests++;
      const pollOnce = () => this.#pollOnce(lane, follower, busy);
      const around = this.#aroundPoll;
      const poll = (around ? around(follower.sessionId, pollOnce) : pollOnce()).finally(() => {
        lane.inFlight.delete(follower.sessionId);
        lane.wake();
      });
      lane.inFlight.set(follower.sessionId, poll);
    }
  }

  async #pollOnce(lane: Lane, follower: SessionFollower, busy: boolean): Promise<void> {
    const { sessionId } = follower;
    const signal = this.#abort.signal;
    this.#polls++;
    try {
      const result = await follower.poll({
        signal,
        busy,
        takeToken: async (s) => {
          await lane.bucket.take(s);
          this.#requests++;
        },
      });
      if (result.gapPossible) {
        this.#logger.warn(
          { sessionId },
          'the service paging may have skipped messages: a page was full of rounds that may still grow, or a round was taken as finished without its size known',
        );
      }
      try {
        await this.#handlers.deliver(result.events);
      } catch (error) {
        throw new HandlerError(error);
      }
      // Saved only now: a crash before this line re-reads and re-delivers instead of losing.
      if (follower.unsaved(result)) await this.#store.save(sessionId, result.state);
      follower.commit(result);
      follower.consecutiveFailures = 0;
      if (!lane.followers.has(sessionId)) return;
      if (result.state.finished) {
        this.unfollow(sessionId);
        return;
      }
      const poked = lane.pokedInFlight.delete(sessionId);
      const interval =
        result.moreToRead || poked
          ? 0
          : nextIntervalMs(this.#policy, {
              activity: result.activity,
              changed: result.changed,
              previousIntervalMs: follower.intervalMs,
            });
      if (!result.moreToRead && !poked) follower.intervalMs = interval;
      lane.queue.schedule(sessionId, this.#clock.now() + interval);
    } catch (error) {
      await this.#onPollFailed(lane, follower, error);
    }
  }

  async #onPollFailed(lane: Lane, follower: SessionFollower, error: unknown): Promise<void> {
    const { sessionId } = follower;
    if (this.#abort.signal.aborted) return;
    this.#failedPolls++;
    if (!lane.followers.has(sessionId)) return;
    const status = httpStatusOf(error);
    if (status === 429) {
      const retryAfter = (error as ErrorLike).retryAfterMs;
      const pause =
        typeof retryAfter === 'number' && retryAfter > 0 ? retryAfter : this.#defaultRateLimitPauseMs;
      // The service limits the key: every session of it waits, not just this one.
      lane.bucket.pauseFor(pause);
      this.#logger.warn({ sessionId, pauseMs: pause }, 'rate limited: pausing this API key');
      lane.queue.schedule(sessionId, this.#clock.now() + pause);
      return;
    }
    const fatal = status === 403 || status === 404;
    follower.consecutiveFailures++;
    const failures = follower.consecutiveFailures;
    const err = toError(error);
    this.#logger.warn({ sessionId, err, failures, fatal }, 'polling a session failed');
    if (fatal) this.unfollow(sessionId);
    else lane.queue.schedule(sessionId, this.#clock.now() + errorBackoffMs(this.#policy, failures));
    if (error instanceof HandlerError) return;
    try {
      await this.#handlers.deliver([
        {
          type: 'error',
          sessionId,
          key: `error:${sessionId}:${failures}`,
          error: err,
          fatal,
          consecutiveFailures: failures,
        },
      ]);
    } catch (handlerError) {
      this.#logger.error({ sessionId, err: toError(handlerError) }, 'an error event handler failed');
    }
  }
}
