/**
 * The agent's chatter, gathered per session while its channel is behind and sent as one post: the queue
 * decides when, and the batch is made when the slot comes, so everything waiting by then joins it.
 */
import type { Logger } from '../../../logger.js';
import type { BotMetrics } from '../../ops/metrics.js';
import { type OutboundPriority, type OutboundQueue, rateLimitedRetryAfterMs } from '../outbound/index.js';
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

/**
 * A session's latest post of chatter, while nothing else was posted in its thread since: chatter waiting
 * may go into it by an edit (see ThreadBatches#turn) as long as it has room.
 */
interface Tail {
  ts: string;
  /** Every key it shows, in order (its metadata lists them, for a look-up after a crash). */
  keys: string[];
  messages: ThreadMessage[];
  /** When it was posted, by the clock `Date.now` reads. */
  at: number;
}

interface Batch {
  place: Place;
  items: BatchItem[];
  scheduled: boolean;
  /** Something else was posted in the thread while this batch's post was on its way (see `endTail`). */
  tailEnded: boolean;
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
  /**
   * Edits the session's post `ts` to show `message` (all of `keys`: those it showed, then `added`, recorded
   * already), made now: its token is taken. Records `added` as posted there. Absent: chatter is only posted.
   */
  append?: (
    place: Place,
    ts: string,
    keys: string[],
    added: string[],
    message: ThreadMessage,
  ) => Promise<void>;
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

/**
 * How long a post of chatter stays open to edits: a person's reply in the thread is not seen here (it may
 * come to another replica), and chatter appended above it would read out of order; a channel behind posts
 * a session's next post within a few seconds, so its tail is young while it catches up.
 */
const TAIL_OPEN_MS = 30_000;
/** Tails kept at most (the oldest go first): a session's tail ends with its report anyway. */
const MAX_TAILS = 10_000;

/** How a turn of appending went: done, or the chatter goes as a post after all. */
type Appended = 'done' | 'post';

export class ThreadBatches {
  readonly #batches = new Map<string, Batch>();
  /** Each session's post open to edits, while nothing else was posted in its thread. */
  readonly #tails = new Map<string, Tail>();
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
      this.deps.outbound.cancelTurns(place.channelId, place.sessionId, new CarriedError());
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
    const reason = PostWithdrawnError.moved(sessionId);
    this.#tails.delete(sessionId);
    for (const item of this.#batches.get(sessionId)?.items.splice(0) ?? []) {
      this.#queued.delete(`${sessionId}|${item.key}`);
      item.reject(reason);
    }
    // Its report and prompts waiting in the queue too: the new owner posts them (each key once).
    this.deps.outbound.withdraw(sessionId, reason);
  }

  /**
   * Something other than its chatter was posted (or is being posted) in the session's thread: its chatter
   * from now on goes in posts after that, never into a post above it.
   */
  endTail(sessionId: string): void {
    this.#tails.delete(sessionId);
    const batch = this.#batches.get(sessionId);
    if (batch) batch.tailEnded = true;
  }

  /** The session's post open to edits, if it is still young enough to take chatter. */
  #tailOf(sessionId: string): Tail | undefined {
    const tail = this.#tails.get(sessionId);
    if (tail && Date.now() - tail.at > TAIL_OPEN_MS) this.#tails.delete(sessionId);
    return this.#tails.get(sessionId);
  }

  #setTail(sessionId: string, tail: Tail): void {
    this.#tails.delete(sessionId);
    this.#tails.set(sessionId, tail);
    if (this.#tails.size > MAX_TAILS) this.#tails.delete(this.#tails.keys().next().value as string);
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
      batch = {
        place,
        items: [],
        scheduled: false,
        tailEnded: false,
        priority: 'chatter',
        sending: [],
        waiters: [],
      };
      this.#batches.set(place.sessionId, batch);
    }
    batch.place = place;
    return batch;
  }

  #schedule(batch: Batch): void {
    if (batch.scheduled || batch.items.length === 0) return;
    batch.scheduled = true;
    const { place } = batch;
    void this.#turn(batch).finally(() => {
      // A turn whose batch posted nothing (all of it posted already) holds no post token any longer.
      this.deps.outbound.turnOver(place.channelId, place.sessionId);
      batch.scheduled = false;
      batch.sending = [];
      this.#wakeWaiters(batch);
      if (batch.items.length > 0) this.#schedule(batch);
      else if (this.#batches.get(place.sessionId) === batch) this.#batches.delete(place.sessionId);
    });
  }

  /**
   * The batch's next turn. While the channel's posts are behind, chatter goes into the session's latest post
   * by an edit, as long as that post has room: an edit spends the workspace's Tier 3 edits, not the
   * channel's one post a second, so a thread behind catches up without waiting for other sessions' posts.
   * Otherwise (or when the post is full) a post's turn: the queue only decides when, and the batch is made
   * when the slot comes, so everything waiting joins it.
   */
  async #turn(batch: Batch): Promise<void> {
    const { place } = batch;
    if (this.deps.append && this.#tailOf(place.sessionId) && this.deps.outbound.appendsNow(place.channelId)) {
      const appended = await this.deps.outbound
        .run({
          channel: place.channelId,
          priority: batch.priority,
          method: 'chat.update',
          tag: place.sessionId,
          run: () => this.#append(batch),
        })
        .catch((): Appended => 'done'); // withdrawn: the new owner posts it
      if (appended === 'done' || batch.items.length === 0) return;
    }
    try {
      await this.deps.outbound.run({
        channel: place.channelId,
        priority: batch.priority,
        method: 'chat.postMessage',
        turn: true,
        tag: place.sessionId,
        run: async () => {},
      });
    } catch {
      return; // its chatter went with another post, or is the new owner's
    }
    await this.#sendBatch(batch);
  }

  /**
   * Adds what of the batch fits to the session's latest post, by an edit made now (the queue took its token).
   * A 429 puts the chatter back and goes up to the queue, which makes this turn again; any other refusal
   * ends the tail and the chatter goes as a post.
   */
  async #append(batch: Batch): Promise<Appended> {
    const { place } = batch;
    const tail = this.#tailOf(place.sessionId);
    const append = this.deps.append;
    if (!tail || !append) return 'post';
    const room = takeBatch([...tail.messages.map((message) => ({ message })), ...batch.items]).length;
    const fits = batch.items.slice(0, Math.max(0, room - tail.messages.length));
    const taken = fits.filter((item) => item.message.blocks?.length);
    if (taken.length < fits.length || taken.length === 0) {
      this.#tails.delete(place.sessionId); // full, or a message that shows without blocks: a post of its own
      return 'post';
    }
    batch.items.splice(0, taken.length);
    batch.sending = taken;
    try {
      const fresh = await this.#unsent(batch, taken);
      if (fresh.length === 0) return 'done';
      const keys = [...tail.keys, ...fresh.map((i) => i.key)];
      const messages = [...tail.messages, ...fresh.map((i) => i.message)];
      await append(
        place,
        tail.ts,
        keys,
        fresh.map((i) => i.key),
        batchMessage(messages),
      );
      // Still the thread's latest (nothing else posted meanwhile): it takes the next chatter too.
      if (this.#tails.get(place.sessionId) === tail)
        this.#setTail(place.sessionId, { ...tail, keys, messages });
      this.#settle(place, taken, (item) => (fresh.includes(item) ? item.resolve(tail.ts) : undefined));
      return 'done';
    } catch (error) {
      return this.#appendFailed(batch, taken, error);
    }
  }

  /** An edit that did not go: the chatter back at the head of its batch, to go again or as a post. */
  async #appendFailed(batch: Batch, taken: BatchItem[], error: unknown): Promise<Appended> {
    const { place } = batch;
    if (error instanceof PostWithdrawnError || error instanceof CannotPostHereError) {
      this.#settle(place, taken, (item) => item.reject(error));
      if (error instanceof CannotPostHereError) await this.deps.cannotPost(place, error);
      return 'done';
    }
    batch.items.unshift(...taken);
    batch.sending = [];
    if (rateLimitedRetryAfterMs(error) !== undefined) throw error; // the queue waits, then this turn again
    this.deps.logger.warn({ err: error, sessionId: place.sessionId }, 'could not add chatter to a post');
    this.#tails.delete(place.sessionId);
    return 'post';
  }

  /**
   * Of the items taken, those not posted yet, each key recorded; each posted already (a re-delivery, or
   * another replica that recovered it) is told its ts. Asked all at once (see #sendBatch).
   */
  async #unsent(batch: Batch, taken: BatchItem[]): Promise<BatchItem[]> {
    const existing = await Promise.all(
      taken.map((item) =>
        item.begun ? this.deps.posted(batch.place, item.key) : this.deps.begin(batch.place, item.key),
      ),
    );
    const fresh: BatchItem[] = [];
    for (const [i, item] of taken.entries()) {
      const ts = existing[i];
      if (ts) {
        this.#queued.delete(`${batch.place.sessionId}|${item.key}`);
        item.resolve(ts);
      } else {
        // Recorded now: if this attempt fails and the item goes again, it is looked up, not begun twice
        // (a second begin finds it pending and takes it for a post in progress).
        item.begun = true;
        fresh.push(item);
      }
    }
    return fresh;
  }

  /** Items out (or failed): no longer queued here, each told with `fn`. */
  #settle(place: Place, items: BatchItem[], fn: (item: BatchItem) => void): void {
    for (const item of items) {
      this.#queued.delete(`${place.sessionId}|${item.key}`);
      fn(item);
    }
  }

  async #sendBatch(batch: Batch): Promise<void> {
    const taken = takeBatch(batch.items);
    if (taken.length === 0) return;
    batch.sending = taken;
    const { place } = batch;
    try {
      // Every key recorded before the one post is sent; a key posted already (a re-delivery) drops out.
      // A key recorded before it waited its turn is looked at again: the replica that recorded it, or
      // another that recovered it too (a finished session's unsent keys, a lease that moved), may have
      // posted it while this one waited, and the record is the only place that says so.
      // Asked all at once: the channel's token is held from the turn until the post is answered, so a look-up
      // per key in turn, dozens for a thread behind, is time no other post of the channel may take.
      const fresh = await this.#unsent(batch, taken);
      if (fresh.length === 0) return;
      this.deps.metrics.batchSize.observe(fresh.length);
      batch.tailEnded = false;
      // Queued as chatter: while it waits, the session's next messages gather for the batch after it.
      const keys = fresh.map((i) => i.key);
      const messages = fresh.map((i) => i.message);
      const ts = await this.deps.deliver(place, keys, batchMessage(messages), batch.priority);
      // The thread's latest post, unless something else went meanwhile (or it went as text, or not at all).
      if (!batch.tailEnded && ts !== 'gave-up')
        this.#setTail(place.sessionId, { ts, keys, messages, at: Date.now() });
      // Those posted already were answered above: each is told once.
      this.#settle(place, fresh, (item) => item.resolve(ts));
    } catch (error) {
      this.#settle(place, taken, (item) => item.reject(error));
      if (error instanceof CannotPostHereError) await this.deps.cannotPost(place, error);
      else if (!(error instanceof PostWithdrawnError))
        this.deps.logger.warn({ err: error, sessionId: place.sessionId }, 'a batch of posts failed');
    }
  }
}
