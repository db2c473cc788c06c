/**
 * The paced outbound queue. Choosing the next call (its priority, its limit, the limits that have room,
 * shared or not), sending it and answering a 429 share one lane's state. What it is asked to send is in
 * outbound-calls.ts.
 */
import { randomUUID } from 'node:crypto';
import { type Clock, systemClock, type TokenBucket } from '@agent-sessions/core';
import type { Logger } from '../../../logger.js';
import type { BotMetrics } from '../../ops/metrics.js';
import { boundToCaller } from '../../ops/tracing.js';
import {
  type OutboundCall,
  type OutboundOptions,
  type OutboundPriority,
  PRIORITIES,
  rateLimitedRetryAfterMs,
  type SharedBudgets,
} from './outbound-calls.js';
import {
  bucketFor,
  type LimitOverrides,
  limitOf,
  SLACK_LIMITS,
  SLACK_METHODS,
  type SlackLimit,
  type SlackMethod,
} from './slack-limits.js';

/** The channel's post limit: the one whose tokens are held in flight until Slack answers (see #land). */
const POST_LIMIT = SLACK_LIMITS['chat.postMessage'];
/** The workspace's edits (Tier 3): cards' and, while a channel's posts are behind, chatter appended to its post. */
const EDIT_LIMIT = SLACK_LIMITS['chat.update'];

/** A post (not a turn for one): what a turn's prepaid token pays for. */
const isPost = (call: OutboundCall<unknown>) => !call.turn && call.method === 'chat.postMessage';

const MAX_OUTCOME_TAGS = 10_000;
/**
 * How long a finished session's last chatter may go ahead of earlier finished sessions' reports (see
 * #enqueue): about a round of twenty threads at one post a second, so the most a report waits for it.
 */
const OUTCOME_CHATTER_LEAD_MS = 20_000;

interface Job {
  call: OutboundCall<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Chatter (a batch's turn, or a post queued as chatter) that a finished session's outcome waits for. */
  chatter?: boolean;
  /** A question's post: when the urgent chatter before it took its turn (see Lane.asking). */
  asked?: number;
  /** The channel's post token it was sent with, in flight until its answer. */
  flight?: Flight;
}

/** A post token taken for a call Slack has not answered yet (see #land). */
interface Flight {
  id: string;
  /** Taken from the shared budget (else from the lane's own bucket). */
  shared: boolean;
}

interface Lane {
  channel: string;
  queues: Record<OutboundPriority, Job[]>;
  /** The lane's channel-scoped limits, by key (chat.postMessage's). */
  buckets: Map<string, TokenBucket>;
  running: boolean;
  /** Calls of this lane sent and not yet answered (only those that need no order: edits, views). */
  inFlight: number;
  /** Wakes the lane's wait early: a call came that may go sooner. */
  wake: AbortController | undefined;
  /**
   * Tags whose turn took the channel's post token: their next post is paid for, and goes first. The
   * token is in flight until that post is answered (or the turn posts nothing, see `turnOver`).
   */
  prepaid: Map<string, Flight>;
  /**
   * Tags whose chatter went out as `urgent` (a question waited for it), with when its turn was taken:
   * their next urgent post (the question) goes ahead of other urgent posts, questions in the order their
   * chatter went, so a question is out before the next one's chatter.
   */
  asking: Map<string, number>;
}

/**
 * One queue per channel, paced to Slack's limits so it normally never meets a 429. Each call spends one
 * limit (the channel's posts, or the workspace's edits, views, look-ups); the queue sends the most urgent
 * call whose limit has room, so a post never waits for an edit the workspace's edit budget holds back.
 * Calls spending the same limit go in priority order, first in first out within a priority, so a thread's
 * posts keep their order. When a 429 comes, the limit it hit waits the Retry-After once and the call goes
 * again first; nothing is dropped. Every Slack call the bot makes on its own should go through here.
 */
export class OutboundQueue {
  readonly pacing: 'on' | 'off';
  readonly #lanes = new Map<string, Lane>();
  /** The workspace-scoped limits, by key, made as they are first spent. */
  readonly #workspace = new Map<string, TokenBucket>();
  readonly #limits: LimitOverrides;
  readonly #clock: Clock;
  readonly #defaultRetryAfterMs: number;
  readonly #shared: SharedBudgets | undefined;
  #sharedFailing = false;
  /** When each session finished, by the queue's clock (see #enqueue). */
  readonly #outcomes = new Map<string, number>();
  #lastFinished = Number.NEGATIVE_INFINITY;
  /** Urgent turns taken so far: the order questions' chatter went in. */
  #turns = 0;
  rateLimited = 0;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: BotMetrics,
    options: OutboundOptions = {},
  ) {
    this.pacing = options.pacing ?? 'on';
    this.#clock = options.clock ?? systemClock;
    this.#limits = options;
    this.#defaultRetryAfterMs = options.defaultRetryAfterMs ?? 5_000;
    this.#shared = options.shared;
    // Known series exist from the start (Prometheus advice), so dashboards see zeros, not gaps.
    for (const method of SLACK_METHODS) metrics.rateLimited.inc({ method }, 0);
  }

  /** Runs the call when the channel's queue and Slack's limits allow; settles as the call does. */
  run<T>(call: OutboundCall<T>): Promise<T> {
    if (this.pacing === 'off') return call.run();
    return new Promise<T>((resolve, reject) => {
      const lane = this.#lane(limitOf(call.method).ownLane ? `${call.channel} history` : call.channel);
      this.#enqueue(lane, {
        // Sent later, by the lane's loop: its span is a child of whatever queued it (a click, a poll).
        call: { ...call, run: boundToCaller(call.run) } as OutboundCall<unknown>,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      lane.wake?.abort();
      this.#drain(lane);
    });
  }

  /**
   * Moves a tag's waiting calls in a channel up to `priority`, in their order (a session that finished:
   * its last chatter, then its report, go ahead of other sessions' chatter).
   */
  promote(channel: string, tag: string, priority: OutboundPriority): number {
    const lane = this.#lanes.get(channel);
    // Its report goes in the order it finished, whenever its chatter is out.
    if (priority === 'outcome') this.#finished(tag);
    const moved = lane ? this.#untag(lane, tag, PRIORITIES.indexOf(priority) + 1) : [];
    for (const job of moved) {
      if (job.call.priority === 'chatter') job.chatter = true;
      job.call = { ...job.call, priority };
      this.#enqueue(lane as Lane, job);
    }
    if (moved.length > 0) lane?.wake?.abort();
    return moved.length;
  }

  /** Takes a tag's waiting turns out of a channel's queue, rejecting each with `reason`. */
  cancelTurns(channel: string, tag: string, reason: Error): number {
    const lane = this.#lanes.get(channel);
    if (!lane) return 0;
    const taken = this.#untag(lane, tag, 0, true);
    for (const job of taken) job.reject(reason);
    return taken.length;
  }

  /** Takes a tag's waiting calls out of every queue, rejecting each with `reason`; how many. */
  withdraw(tag: string, reason: Error): number {
    for (const lane of this.#lanes.values()) {
      this.#unpay(lane, tag);
      lane.asking.delete(tag);
    }
    const taken = [...this.#lanes.values()].flatMap((lane) => this.#untag(lane, tag, 0));
    for (const job of taken) job.reject(reason);
    return taken.length;
  }

  /**
   * A batch's turn in a channel is over (its post answered, or it found nothing to post): a token its
   * turn took and no post spent is no longer held back.
   */
  turnOver(channel: string, tag: string): void {
    const lane = this.#lanes.get(channel);
    if (lane) this.#unpay(lane, tag);
  }

  /** A tag's prepaid token, unspent, lands (Slack never saw a call for it). */
  #unpay(lane: Lane, tag: string): void {
    const flight = lane.prepaid.get(tag);
    if (!flight) return;
    lane.prepaid.delete(tag);
    void this.#land(lane, flight);
  }

  /**
   * A tag's waiting calls (its turns only, when asked) of the priorities from `from` on, taken out of
   * their queues, in order.
   */
  #untag(lane: Lane, tag: string, from: number, turns = false): Job[] {
    const mine = (job: Job) => job.call.tag === tag && (!turns || job.call.turn === true);
    const taken: Job[] = [];
    for (const p of PRIORITIES.slice(from)) {
      taken.push(...lane.queues[p].filter(mine));
      lane.queues[p] = lane.queues[p].filter((job) => !mine(job));
    }
    return taken;
  }

  /**
   * Within `outcome`, sessions go in the order they finished, except that a finished session's last
   * chatter goes ahead of the reports of sessions that finished up to OUTCOME_CHATTER_LEAD_MS before it.
   * Served strictly one session after another (its chatter, its report, then the next session's), the
   * chatter of the sessions that finish last waits for every earlier outcome: with sessions finishing
   * about as fast as the channel posts (cards post one a second, so sessions started together finish a
   * second apart), two posts a finish and the backlog grows by one a second. Letting chatter always go
   * first instead starves the reports while sessions keep finishing. A report still goes ahead of
   * unfinished sessions' chatter, and after its own thread's chatter (it is queued once that is out).
   */
  #enqueue(lane: Lane, job: Job): void {
    const { priority, tag } = job.call;
    if (job.call.turn) job.chatter = true;
    const queue = lane.queues[priority];
    if (tag !== undefined && isPost(job.call) && lane.prepaid.has(tag)) {
      queue.unshift(job);
      return;
    }
    const asked = tag !== undefined && isPost(job.call) ? lane.asking.get(tag) : undefined;
    if (asked !== undefined && priority === 'urgent') {
      lane.asking.delete(tag as string);
      job.asked = asked;
      // Behind the posts paid for already and the questions whose chatter went before its own.
      let at = 0;
      while (at < queue.length && this.#aheadOfQuestion(lane, queue[at] as Job, asked)) at++;
      queue.splice(at, 0, job);
      return;
    }
    if (priority !== 'outcome' || tag === undefined) {
      queue.push(job);
      return;
    }
    const rank = (j: Job) => this.#finished(j.call.tag ?? '') - (j.chatter ? OUTCOME_CHATTER_LEAD_MS : 0);
    const own = rank(job);
    let at = queue.length;
    while (at > 0 && rank(queue[at - 1] as Job) > own) at--;
    queue.splice(at, 0, job);
  }

  /** Whether a waiting urgent call stays ahead of a question whose chatter's turn was `asked`. */
  #aheadOfQuestion(lane: Lane, job: Job, asked: number): boolean {
    const { tag } = job.call;
    if (tag !== undefined && isPost(job.call) && lane.prepaid.has(tag)) return true;
    return job.asked !== undefined && job.asked < asked;
  }

  /** When a session finished (first asked for its outcome): its place among outcomes. */
  #finished(tag: string): number {
    let at = this.#outcomes.get(tag);
    if (at === undefined) {
      // Strictly after the one before: sessions finishing in the same millisecond keep their order.
      at = Math.max(this.#clock.now(), this.#lastFinished + 0.001);
      this.#lastFinished = at;
      this.#outcomes.set(tag, at);
      // Bounded: the oldest sessions' outcomes are long out.
      if (this.#outcomes.size > MAX_OUTCOME_TAGS)
        this.#outcomes.delete(this.#outcomes.keys().next().value as string);
    }
    return at;
  }

  /**
   * Takes a token of a limit only if one is free now, without queueing: for a caller that does something
   * else when the limit is spent (a session with no stream start left posts its chatter the classic way).
   * The call it pays for is then made by the caller, outside the queue. Always true unpaced.
   */
  takeNow(channel: string, method: SlackMethod): boolean {
    if (this.pacing === 'off') return true;
    return this.#bucket(this.#lane(channel), method).tryTake(0);
  }

  /**
   * Makes a call whose token `takeNow` took, at once, outside the queue. A 429 pauses what spends its
   * limit, as one answered in the queue does, and goes up to the caller (the call is not made again).
   */
  async runNow<T>(channel: string, method: SlackMethod, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const retryAfterMs = rateLimitedRetryAfterMs(error);
      if (retryAfterMs !== undefined) await this.#rateLimited(this.#lane(channel), method, retryAfterMs);
      throw error;
    }
  }

  /** Slack answered 429: once for the limit it hit, not per call, everything spending it waits. */
  async #rateLimited(lane: Lane, method: SlackMethod, retryAfterMs: number): Promise<number> {
    const pauseMs = retryAfterMs >= 0 ? retryAfterMs : this.#defaultRetryAfterMs;
    this.rateLimited++;
    this.metrics.rateLimited.inc({ method });
    this.#bucket(lane, method).pauseFor(pauseMs);
    const key = this.#sharedKey(lane, method);
    if (key) await this.#shared?.pause(key, pauseMs).catch(() => {});
    return pauseMs;
  }

  /** A channel's waiting calls may go sooner than its queue thought (a spare call now matters more). */
  nudge(channel: string): void {
    this.#lanes.get(channel)?.wake?.abort();
  }

  /** Calls waiting, per channel. */
  depths(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [channel, lane] of this.#lanes) {
      const depth = PRIORITIES.reduce((n, p) => n + lane.queues[p].length, 0);
      if (depth > 0) out.set(channel, depth);
    }
    return out;
  }

  /** Whether any call waits, is being sent, or awaits Slack's answer (what a replica going away drains). */
  busy(): boolean {
    for (const lane of this.#lanes.values())
      if (lane.running || lane.inFlight > 0 || this.#next(lane)) return true;
    return false;
  }

  /** Calls of this priority waiting in a channel. */
  waiting(channel: string, priority?: OutboundPriority): number {
    const lane = this.#lanes.get(channel);
    if (!lane) return 0;
    return priority
      ? lane.queues[priority].length
      : PRIORITIES.reduce((n, p) => n + lane.queues[p].length, 0);
  }

  #lane(channel: string): Lane {
    let lane = this.#lanes.get(channel);
    if (!lane) {
      lane = {
        channel,
        queues: { urgent: [], outcome: [], edit: [], chatter: [] },
        buckets: new Map(),
        running: false,
        inFlight: 0,
        wake: undefined,
        prepaid: new Map(),
        asking: new Map(),
      };
      this.#lanes.set(channel, lane);
    }
    return lane;
  }

  /** The bucket of the limit a method spends: the lane's (a channel's limit) or the workspace's. */
  #bucket(lane: Lane, method: SlackMethod): TokenBucket {
    return this.#bucketOf(lane, limitOf(method));
  }

  #bucketOf(lane: Lane, limit: SlackLimit): TokenBucket {
    const buckets = limit.scope === 'channel' ? lane.buckets : this.#workspace;
    let bucket = buckets.get(limit.key);
    if (!bucket) {
      bucket = bucketFor(limit, this.#limits, this.#clock);
      buckets.set(limit.key, bucket);
    }
    return bucket;
  }

  #next(lane: Lane): Job | undefined {
    for (const p of PRIORITIES) if (lane.queues[p].length > 0) return lane.queues[p][0];
    return undefined;
  }

  /**
   * The most urgent call whose limit lets it go now (its token taken), or how long until one may. Calls
   * behind one whose limit has no room are skipped only when they spend another limit: first in, first
   * out per limit within a priority (so a thread's posts keep their order). A batch's turn takes the post
   * token its post then spends: the batch is made when the channel can post it, not a queue's length
   * before (all that came meanwhile joins it), and goes at once.
   */
  async #take(lane: Lane): Promise<Job | number> {
    let waitMs = Number.POSITIVE_INFINITY;
    /** Each limit found short, with the fewest tokens a call asked to leave there: calls leaving as many wait too. */
    const full = new Map<TokenBucket, number>();
    // A snapshot: the queues may change while a shared budget is asked.
    for (const job of PRIORITIES.flatMap((p) => lane.queues[p])) {
      const { tag } = job.call;
      const paid = tag !== undefined && isPost(job.call) ? lane.prepaid.get(tag) : undefined;
      if (paid) lane.prepaid.delete(tag as string);
      const bucket = paid ? undefined : this.#bucket(lane, job.call.method);
      const keep = !bucket ? 0 : job.call.spare?.() ? bucket.burst - 1 : this.#reserved(lane, bucket, job);
      if (bucket && (full.get(bucket) ?? Number.POSITIVE_INFINITY) <= keep) continue;
      const flight = bucket === this.#bucketOf(lane, POST_LIMIT) ? { id: randomUUID(), shared: false } : paid;
      const wait = bucket ? await this.#spend(lane, job.call.method, bucket, keep, flight) : 0;
      if (wait === 0) {
        const queue = lane.queues[job.call.priority];
        const at = queue.indexOf(job);
        if (at < 0) {
          void this.#land(lane, flight); // settled meanwhile (a token spent for nothing, rarely)
          continue;
        }
        queue.splice(at, 1);
        if (job.call.turn && tag !== undefined && flight) {
          this.#unpay(lane, tag); // a token an earlier turn took and nothing spent
          lane.prepaid.set(tag, flight);
          if (job.call.priority === 'urgent') lane.asking.set(tag, ++this.#turns);
        } else job.flight = flight;
        return job;
      }
      // A call that leaves tokens finding too few says nothing about the calls behind it that leave fewer.
      if (bucket) full.set(bucket, Math.min(full.get(bucket) ?? Number.POSITIVE_INFINITY, keep));
      waitMs = Math.min(waitMs, Math.max(1, wait));
    }
    return waitMs;
  }

  /**
   * Posts a person waits for (a question, an answer, a new session's card: `urgent`) find the channel's
   * post budget ready: the others (chatter, reports) spend only its top token, leaving the rest of the
   * burst to urgent posts. They still post a message a second as the budget refills, only never out of
   * the burst, so questions asked together (two posts each: the chatter before it, then the question) go
   * at once however busy the channel is. The top token is the top of what the bucket may hold now: a post
   * still unanswered holds one back (see #land), and with only the top of a full burst a thread behind would
   * post once a second plus Slack's round trip. One such post at a time does not count, so the next turn
   * is taken while it is answered: a second apart, the burst below them kept.
   */
  #reserved(lane: Lane, bucket: TokenBucket, job: Job): number {
    if (job.call.priority === 'chatter' && bucket === this.#bucketOf(lane, EDIT_LIMIT))
      return this.#chatterEditKeep(bucket);
    if (bucket !== this.#bucketOf(lane, POST_LIMIT) || job.call.priority === 'urgent') return 0;
    // Never below nothing kept: a burst of one still waits for its token.
    return Math.max(0, bucket.burst - 1 - Math.min(1, bucket.inFlight));
  }

  /**
   * What chatter appended by an edit leaves of the workspace's edits: half their burst, for the cards (their
   * edits are what the whole workspace shares, at 50 a minute) and for the chatter of other channels.
   */
  #chatterEditKeep(bucket: TokenBucket): number {
    return Math.floor(bucket.burst / 2);
  }

  /**
   * Whether a session's chatter waiting in a channel goes sooner as an edit of its last post there than as a
   * post of its own: the channel's posts are behind (posts wait in its queue, or chatter's token, the top of
   * the burst, is not there), and the workspace's edits have room above what chatter leaves them. Edits
   * (Tier 3, workspace-wide) are not under chat.postMessage's one post a second per channel.
   */
  appendsNow(channel: string): boolean {
    if (this.pacing === 'off') return false;
    const lane = this.#lanes.get(channel);
    if (!lane) return false;
    const edits = this.#bucketOf(lane, EDIT_LIMIT);
    if (edits.msUntilAvailable(this.#chatterEditKeep(edits)) > 0) return false;
    const posting = (job: Job) => limitOf(job.call.method) === POST_LIMIT;
    if (PRIORITIES.some((p) => lane.queues[p].some(posting))) return true;
    const posts = this.#bucketOf(lane, POST_LIMIT);
    return posts.msUntilAvailable(Math.max(0, posts.burst - 1 - Math.min(1, posts.inFlight))) > 0;
  }

  /**
   * Takes a token of the call's limit: 0, or the milliseconds until one may be. With a `flight`, the
   * token is held in flight (here or in the shared budget, which it then says) until #land.
   */
  async #spend(
    lane: Lane,
    method: SlackMethod,
    bucket: TokenBucket,
    keep: number,
    flight: Flight | undefined,
  ): Promise<number> {
    const key = this.#sharedKey(lane, method);
    if (key && this.#shared) {
      try {
        const rate = { perSecond: bucket.ratePerSecond, burst: bucket.burst };
        const wait = await this.#shared.take(key, rate, keep, flight?.id);
        this.#sharedFailing = false;
        if (flight) flight.shared = true;
        return wait;
      } catch (error) {
        // Without the database this replica paces alone (its own buckets) rather than stopping.
        if (!this.#sharedFailing) this.logger.warn({ err: error }, 'the shared Slack budget is unreachable');
        this.#sharedFailing = true;
      }
    }
    return bucket.tryTake(keep, flight?.id) ? 0 : Math.max(1, bucket.msUntilAvailable(keep));
  }

  /**
   * A post token's call was answered, failed, or never went: Slack counted it somewhere between its
   * token and now (or not at all). Until then the channel's burst, here or shared with the other
   * replicas, held one token fewer per post in flight: Slack's stayed full until they came while ours
   * refilled, so posts answered together never leave ours ahead of Slack's.
   */
  async #land(lane: Lane, flight: Flight | undefined): Promise<void> {
    if (!flight) return;
    const key = this.#sharedKey(lane, 'chat.postMessage');
    const post = this.#bucketOf(lane, POST_LIMIT);
    if (flight.shared && key && this.#shared) {
      const rate = { perSecond: post.ratePerSecond, burst: post.burst };
      await this.#shared.landed(key, rate, flight.id).catch(() => {});
    } else post.landed(flight.id);
    // The lane may be waiting for its burst to be full again.
    lane.wake?.abort();
  }

  /** The shared budget's row for a method's limit, when replicas share it: per channel, or the workspace's. */
  #sharedKey(lane: Lane, method: SlackMethod): string | undefined {
    const limit = limitOf(method);
    if (!limit.replicas) return undefined;
    return limit.scope === 'channel' ? `${limit.key}:${lane.channel}` : limit.key;
  }

  async #wait(lane: Lane, ms: number): Promise<void> {
    const wake = new AbortController();
    lane.wake = wake;
    try {
      await this.#clock.sleep(ms, wake.signal);
    } catch {
      // Woken early by a new call.
    } finally {
      lane.wake = undefined;
    }
  }

  #drain(lane: Lane): void {
    if (lane.running) return;
    lane.running = true;
    void this.#loop(lane).finally(() => {
      lane.running = false;
      // The lane stays (its tokens say how much of the channel's burst is spent).
      if (this.#next(lane)) this.#drain(lane);
    });
  }

  async #loop(lane: Lane): Promise<void> {
    for (;;) {
      if (!this.#next(lane)) return;
      const taken = await this.#take(lane);
      if (typeof taken === 'number') {
        await this.#wait(lane, taken);
        continue;
      }
      // A post is answered before the next is sent (Slack orders a thread by arrival); an edit, a view or a
      // look-up needs no order, so the channel's posts do not wait for its answer either.
      if (!taken.call.turn && limitOf(taken.call.method).scope === 'channel') await this.#send(lane, taken);
      else {
        lane.inFlight++;
        void this.#send(lane, taken).finally(() => {
          lane.inFlight--;
        });
      }
    }
  }

  async #send(lane: Lane, job: Job): Promise<void> {
    const { flight } = job;
    job.flight = undefined;
    try {
      const result = await job.call.run();
      // Slack counted the post somewhere between its token (taken here, or by its turn a while before)
      // and this answer: a burst it saw full meanwhile refilled no further.
      await this.#land(lane, flight);
      job.resolve(result);
    } catch (error) {
      await this.#land(lane, flight);
      const retryAfterMs = rateLimitedRetryAfterMs(error);
      if (retryAfterMs === undefined) {
        job.reject(error);
        return;
      }
      // Everything spending the limit it hit waits, then this goes first.
      const pauseMs = await this.#rateLimited(lane, job.call.method, retryAfterMs);
      lane.queues[job.call.priority].unshift(job);
      lane.wake?.abort();
      this.#drain(lane);
      this.logger.warn(
        { channel: lane.channel, method: job.call.method, pauseMs },
        'Slack rate limited a call: pausing what spends its limit',
      );
    }
  }
}
