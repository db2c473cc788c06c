import type { Clock } from './clock.js';
import { DueQueue } from './due-queue.js';
import type { SessionFollower } from './session-follower.js';
import type { SessionsReader } from './sessions-reader.js';
import type { TokenBucket } from './token-bucket.js';

/** One API key's share of the work: its budget, its queue, its polls in flight. */
export class Lane {
  readonly bucket: TokenBucket;
  readonly queue = new DueQueue();
  readonly followers = new Map<string, SessionFollower>();
  readonly inFlight = new Map<string, Promise<void>>();
  /** Sessions poked while a poll of theirs was in flight: polled again as soon as it ends. */
  readonly pokedInFlight = new Set<string>();
  #wake: AbortController | undefined;
  loop: Promise<void> | undefined;

  constructor(
    readonly reader: SessionsReader,
    bucket: TokenBucket,
  ) {
    this.bucket = bucket;
  }

  wake(): void {
    this.#wake?.abort();
  }

  /** Sleeps until `ms` pass or something wakes the lane. */
  async idle(clock: Clock, ms: number): Promise<void> {
    const wake = new AbortController();
    this.#wake = wake;
    try {
      await clock.sleep(ms, wake.signal);
    } catch {
      // Woken early: the loop looks again.
    } finally {
      if (this.#wake === wake) this.#wake = undefined;
    }
  }
}
