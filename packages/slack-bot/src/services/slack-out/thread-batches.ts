/**
 * The agent's chatter, gathered per session while its channel is behind and sent as one post: the queue
 * decides when, and the batch is made when the slot comes, so everything waiting by then joins it.
 */
import type { Logger } from '../../logger.js';
import type { BotMetrics } from '../ops/metrics.js';
import type { OutboundPriority, OutboundQueue } from './outbound.js';
import { batchMessage, takeBatch } from './thread-layout.js';
import { CannotPostHereError, type Place, PostWithdrawnError, type ThreadMessage } from './thread-place.js';

export interface BatchItem {
  key: string;
  message: ThreadMessage;
  /** Its key is recorded already (enqueued with its body, or recovered after a crash). */
  begun: boolean;
  resolve: (ts: string) => void;
  reject: (error: unknown) => void;
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
  /** Waiting for this batch to empty. */
  settled: Array<() => void>;
}

export interface ThreadBatchesOptions {
  outbound: OutboundQueue;
  metrics: BotMetrics;
  logger: Logger;
  /** Records a key about to be posted; the ts when it was posted already (a re-delivery). */
  begin: (place: Place, key: string) => Promise<string | undefined>;
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

export class ThreadBatches {
  readonly #batches = new Map<string, Batch>();
  /** `session|key` of everything waiting in a batch of this process. */
  readonly #queued = new Set<string>();

  constructor(private readonly deps: ThreadBatchesOptions) {}

  /**
   * Settles once nothing of this session waits in a batch here (sent, or failed and logged). Its chatter
   * goes ahead of other sessions' from now on: the session's report (`outcome`) or question (`urgent`)
   * waits for it.
   */
  settled(place: Place, priority: 'urgent' | 'outcome' = 'outcome'): Promise<void> {
    const batch = this.#batches.get(place.sessionId);
    if (!batch) return Promise.resolve();
    if (batch.priority !== 'urgent') batch.priority = priority;
    this.deps.outbound.promote(place.channelId, place.sessionId, batch.priority);
    return new Promise((resolve) => batch.settled.push(resolve));
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

  /** This key waits in a batch of this process already. */
  has(place: Place, key: string): boolean {
    return this.#queued.has(`${place.sessionId}|${key}`);
  }

  push(place: Place, item: BatchItem): void {
    let batch = this.#batches.get(place.sessionId);
    if (!batch) {
      batch = { place, items: [], scheduled: false, priority: 'chatter', settled: [] };
      this.#batches.set(place.sessionId, batch);
    }
    batch.place = place;
    batch.items.push(item);
    this.#queued.add(`${place.sessionId}|${item.key}`);
    this.#schedule(batch);
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
        batch.scheduled = false;
        if (batch.items.length > 0) this.#schedule(batch);
        else {
          if (this.#batches.get(place.sessionId) === batch) this.#batches.delete(place.sessionId);
          for (const resolve of batch.settled.splice(0)) resolve();
        }
      });
  }

  async #sendBatch(batch: Batch): Promise<void> {
    const taken = takeBatch(batch.items);
    if (taken.length === 0) return;
    const settle = (fn: (item: BatchItem) => void) => {
      for (const item of taken) {
        this.#queued.delete(`${batch.place.sessionId}|${item.key}`);
        fn(item);
      }
    };
    try {
      // Every key recorded before the one post is sent; a key posted already (a re-delivery) drops out.
      const fresh: BatchItem[] = [];
      for (const item of taken) {
        const existing = item.begun ? undefined : await this.deps.begin(batch.place, item.key);
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
      settle((item) => item.resolve(ts));
    } catch (error) {
      settle((item) => item.reject(error));
      if (error instanceof CannotPostHereError) await this.deps.cannotPost(batch.place, error);
      else if (!(error instanceof PostWithdrawnError))
        this.deps.logger.warn({ err: error, sessionId: batch.place.sessionId }, 'a batch of posts failed');
    }
  }
}
