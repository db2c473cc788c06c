/**
 * The agent's chatter, gathered per session while its channel is behind and sent as one post: the queue
 * decides when, and the batch is made when the slot comes, so everything waiting by then joins it.
 */
import type { Logger } from '../../../logger.js';
import type { BotMetrics } from '../../ops/metrics.js';
import type { OutboundPriority, OutboundQueue } from '../outbound/index.js';
import { batchMessage, takeBatch } from './thread-layout.js';
import { CannotPostHereError, type Place, PostWithdrawnError, type ThreadMessage } from './thread-place.js';

export interface BatchItem {
  key: string;
  message: ThreadMessage;
  /** Its key is recorded already (enqueued with its body, or recovered after a crash). */
  begun: boolean;
  resolve: (ts: string) => void;
  reject: (error: unknown) => void;
  /** Its place in the order things were queued in this process (set when pushed; see `mark`). */
  seq?: number;
}

/** Someone waiting for a session's chatter queued up to `through` (a `mark`) to be out. */
interface Waiter {
  through: number;
  priority: 'urgent' | 'outcome';
  resolve: () => void;
}

interface Batch {
  place: Place;
  items: BatchItem[];
  scheduled: boolean;
  /**
   * `chatter`; `outcome` once the session finished and its report waits for this batch to empty;
   * `urgent` while a question waits for it (a person is waiting).
   */
  priority: OutboundPriority;
  /** Taken for the post being sent now (still not out). */
  sending: BatchItem[];
  /** Waiting for part of this batch (or all of it: `through` infinite) to be out. */
  waiters: Waiter[];
}

export interface ThreadBatchesOptions {
  outbound: OutboundQueue;
  metrics: BotMetrics;
  logger: Logger;
  /** Records a key about to be posted; the ts when it was posted already (a re-delivery). */
  begin: (place: Place, key: string) => Promise<string | undefined>;
  /** The ts a key recorded here was posted with, if another process posted it meanwhile. */
  posted: (place: Place, key: string) => Promise<string | undefined>;
  /** Sends one post for keys already recorded; its ts. */
  deliver: (
    place: Place,
    keys: string[],
    message: ThreadMessage,
    priority: OutboundPriority,
  ) => Promise<string>;
  /** Told when a batch sent in the background finds its channel closed to us. */
  cannotPost: (place: Place, error: CannotPostHereError) => Promise<void> | undefined;
}

/** A batch's turn cancelled: its chatter went with another post of its session. */
class CarriedError extends Error {
  constructor() {
    super('the chatter went with another post');
    this.name = 'CarriedError';
  }
}

export class ThreadBatches {
  readonly #batches = new Map<string, Batch>();
  /** `session|key` of everything waiting in a batch of this process. */
  readonly #queued = new Set<string>();
  /** Items pushed so far (their `seq`s count up from 1). */
  #pushed = 0;

  constructor(private readonly deps: ThreadBatchesOptions) {}

  /** Items waiting in a batch of this process, or in the post being sent. */
  waiting(): number {
    return this.#queued.size;
  }

  /** Where the queue stands now: everything pushed so far, of every session, is at or before it. */
  mark(): number {
    return this.#pushed;
  }

  /**
   * Settles once nothing of this session queued here up to `through` (a `mark`; left out: everything,
   * however late it was queued) waits any more (sent, or failed and logged). That chatter goes ahead of
   * other sessions' meanwhile: the session's report (`outcome`) or question (`urgent`) waits for it. What
   * was queued after `through` keeps its own pace once the wait is over.
   */
  settled(
    place: Place,
    priority: 'urgent' | 'outcome' = 'outcome',
    through = Number.POSITIVE_INFINITY,
  ): Promise<void> {
    const batch = this.#batches.get(place.sessionId);
    if (!batch || this.#outUpTo(batch, through)) return Promise.resolve();
    return new Promise((resolve) => {
      batch.waiters.push({ through, priority, resolve });
      this.#reprioritize(batch);
      this.deps.outbound.promote(place.channelId, place.sessionId, batch.priority);
    });
  }

  /**
   * Takes the session's chatter queued up to `through` (a `mark`) out of its batch, for a post that
   * carries it ahead of its own message; what of it is being sent already is waited for first. Undefined,
   * nothing taken, when `fits` says it can't go in that post. The caller settles each item taken.
   */
  async take(
    place: Place,
    through: number,
    fits: (items: BatchItem[]) => boolean,
  ): Promise<BatchItem[] | undefined> {
    // A post of it on its way: the rest can only come after it.
    const sending = this.#batches.get(place.sessionId)?.sending ?? [];
    if ((sending[0]?.seq ?? Number.POSITIVE_INFINITY) <= through)
      await this.settled(place, 'urgent', sending.at(-1)?.seq);
    const batch = this.#batches.get(place.sessionId);
    if (!batch) return [];
    const taken = batch.items.filter((item) => (item.seq ?? 0) <= through);
    if (taken.length === 0) return [];
    if (!fits(taken)) return undefined;
    batch.items = batch.items.slice(taken.length);
    for (const item of taken) this.#queued.delete(`${place.sessionId}|${item.key}`);
    // Nothing left for the batch's turn to send: it leaves the queue without spending the channel's post.
    if (batch.items.length === 0)
      this.deps.outbound.cancel(place.channelId, place.sessionId, 'turn', new CarriedError());
    this.#wakeWaiters(batch);
    return taken;
  }

  /** Nothing of the batch up to `through` waits or is being sent. */
  #outUpTo(batch: Batch, through: number): boolean {
    const first = batch.sending[0] ?? batch.items[0];
    return first === undefined || (first.seq ?? 0) > through;
  }

  /** Wakes the waits that are over; the batch keeps the priority of the waits still on. */
  #wakeWaiters(batch: Batch): void {
    const done = batch.waiters.filter((w) => this.#outUpTo(batch, w.through));
    if (done.length === 0) return;
    batch.waiters = batch.waiters.filter((w) => !done.includes(w));
    this.#reprioritize(batch);
    for (const w of done) w.resolve();
  }

  #reprioritize(batch: Batch): void {
    const wanted = batch.waiters.map((w) => w.priority);
    batch.priority = wanted.includes('urgent')
      ? 'urgent'
      : wanted.includes('outcome')
        ? 'outcome'
        : 'chatter';
  }

  /**
   * This process no longer posts for the session (its lease moved): what waits here is dropped, still
   * recorded with its content, and the session's new owner recovers and posts it, once.
   */
  withdraw(sessionId: string): void {
    const reason = new PostWithdrawnError(`session ${sessionId} is followed by another replica now`);
    for (const item of this.#batches.get(sessionId)?.items.splice(0) ?? []) {
      this.#queued.delete(`${sessionId}|${item.key}`);
      item.reject(reason);
    }
    // Its report and prompts waiting in the queue too: the new owner posts them (each key once).
    this.deps.outbound.withdraw(sessionId, reason);
  }

  /** Something of this session waits here or is being sent: its next chatter must come after it. */
  busy(sessionId: string): boolean {
    const batch = this.#batches.get(sessionId);
    return batch !== undefined && (batch.items.length > 0 || batch.sending.length > 0);
  }

  /** This key waits in a batch of this process already. */
  has(place: Place, key: string): boolean {
    return this.#queued.has(`${place.sessionId}|${key}`);
  }

  push(place: Place, item: BatchItem): void {
    const batch = this.#batchOf(place);
    item.seq = ++this.#pushed;
    batch.items.push(item);
    this.#queued.add(`${place.sessionId}|${item.key}`);
    this.#schedule(batch);
  }

  /** What `take` took and could not send after all: back at the head of the session's batch, in order. */
  putBack(place: Place, items: BatchItem[]): void {
    if (items.length === 0) return;
    const batch = this.#batchOf(place);
    batch.items.unshift(...items);
    for (const item of items) this.#queued.add(`${place.sessionId}|${item.key}`);
    this.#schedule(batch);
  }

  #batchOf(place: Place): Batch {
    let batch = this.#batches.get(place.sessionId);
    if (!batch) {
      batch = { place, items: [], scheduled: false, priority: 'chatter', sending: [], waiters: [] };
      this.#batches.set(place.sessionId, batch);
    }
    batch.place = place;
    return batch;
  }

  #schedule(batch: Batch): void {
    if (batch.scheduled || batch.items.length === 0) return;
    batch.scheduled = true;
    const { place } = batch;
    // The queue only decides when; the batch is made when the slot comes, so everything waiting joins it.
    this.deps.outbound
      .run({
        channel: place.channelId,
        priority: batch.priority,
        method: 'turn',
        tag: place.sessionId,
        run: async () => {},
      })
      .then(
        () => this.#sendBatch(batch),
        () => {},
      )
      .finally(() => {
        // A turn whose batch posted nothing (all of it posted already) holds no post token any longer.
        this.deps.outbound.turnOver(place.channelId, place.sessionId);
        batch.scheduled = false;
        batch.sending = [];
        this.#wakeWaiters(batch);
        if (batch.items.length > 0) this.#schedule(batch);
        else if (this.#batches.get(place.sessionId) === batch) this.#batches.delete(place.sessionId);
      });
  }

  async #sendBatch(batch: Batch): Promise<void> {
    const taken = takeBatch(batch.items);
    if (taken.length === 0) return;
    batch.sending = taken;
    const settle = (fn: (item: BatchItem) => void) => {
      for (const item of taken) {
        this.#queued.delete(`${batch.place.sessionId}|${item.key}`);
        fn(item);
      }
    };
    try {
      // Every key recorded before the one post is sent; a key posted already (a re-delivery) drops out.
      // A key recorded before it waited its turn is looked at again: the replica that recorded it, or
      // another that recovered it too (a finished session's unsent keys, a lease that moved), may have
      // posted it while this one waited, and the record is the only place that says so.
      const fresh: BatchItem[] = [];
      for (const item of taken) {
        const existing = item.begun
          ? await this.deps.posted(batch.place, item.key)
          : await this.deps.begin(batch.place, item.key);
        if (existing) item.resolve(existing);
        else fresh.push(item);
      }
      if (fresh.length === 0) {
        settle(() => {});
        return;
      }
      this.deps.metrics.batchSize.observe(fresh.length);
      // Queued as chatter: while it waits, the session's next messages gather for the batch after it.
      const ts = await this.deps.deliver(
        batch.place,
        fresh.map((i) => i.key),
        batchMessage(fresh.map((i) => i.message)),
        batch.priority,
      );
      // Those posted already were answered above: each is told once.
      settle((item) => {
        if (fresh.includes(item)) item.resolve(ts);
      });
    } catch (error) {
      settle((item) => item.reject(error));
      if (error instanceof CannotPostHereError) await this.deps.cannotPost(batch.place, error);
      else if (!(error instanceof PostWithdrawnError))
        this.deps.logger.warn({ err: error, sessionId: batch.place.sessionId }, 'a batch of posts failed');
    }
  }
}
