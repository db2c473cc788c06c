import { AbortError } from '../http/errors.js';
import { sleep } from '../http/sleep.js';

/**
 * Time as the follower sees it. Injected so tests can move time by hand instead of waiting, and so a
 * scheduler never reads `Date.now()` directly.
 */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with an `AbortError` (cause: the signal's reason) as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortError(signal: AbortSignal): AbortError {
  return new AbortError('aborted', { cause: signal.reason });
}

/** Real time: `Date.now()` and core's one abortable sleep. */
export const systemClock: Clock = { now: () => Date.now(), sleep };

interface PendingSleep {
  wakeAt: number;
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * A clock that moves only when told to. `advance(ms)` wakes every sleeper whose time has come, in order,
 * letting each one's continuation run before the next wakes.
 */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: PendingSleep[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** How many sleeps are waiting: lets a test wait until the code under test has gone to sleep. */
  get pendingSleeps(): number {
    return this.#sleepers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      const sleeper: PendingSleep = {
        wakeAt: this.#now + Math.max(0, ms),
        resolve,
        reject,
        signal,
        onAbort: undefined,
      };
      if (signal) {
        sleeper.onAbort = () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(abortError(signal));
        };
        signal.addEventListener('abort', sleeper.onAbort, { once: true });
      }
      this.#sleepers.push(sleeper);
    });
  }

  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      const due = this.#sleepers.filter((s) => s.wakeAt <= target).sort((a, b) => a.wakeAt - b.wakeAt)[0];
      if (!due) break;
      this.#sleepers = this.#sleepers.filter((s) => s !== due);
      this.#now = Math.max(this.#now, due.wakeAt);
      if (due.onAbort) due.signal?.removeEventListener('abort', due.onAbort);
      due.resolve();
      // Let the woken code run (and perhaps sleep again) before the next sleeper wakes.
      await flushMicrotasks();
    }
    this.#now = target;
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise<void>((resolve) => setImmediate(resolve));
}
