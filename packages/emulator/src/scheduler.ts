import type { EmulatorClock } from './clock.js';
import { ManualClock } from './clock.js';

interface Job {
  at: number;
  seq: number;
  run: () => void;
}

/**
 * One timer for every session's next step: a min-heap of jobs by virtual time. Thousands of sessions
 * cost one armed setTimeout, not thousands.
 */
export class Scheduler {
  #heap: Job[] = [];
  #seq = 0;
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Number.POSITIVE_INFINITY;
  #closed = false;

  constructor(readonly clock: EmulatorClock) {}

  get pending(): number {
    return this.#heap.length;
  }

  at(at: number, run: () => void): void {
    if (this.#closed) return;
    this.#push({ at, seq: this.#seq++, run });
    if (this.clock.mode === 'real') this.#arm();
  }

  after(ms: number, run: () => void): void {
    this.at(this.clock.now() + ms, run);
  }

  /** Manual clock: moves time forward by `ms`, running every job that falls due, in time order. */
  advance(ms: number): number {
    if (!(this.clock instanceof ManualClock)) throw new Error('advance needs the manual clock');
    const target = this.clock.now() + ms;
    for (;;) {
      const top = this.#heap[0];
      if (!top || top.at > target) break;
      this.#pop();
      this.clock.set(top.at);
      top.run();
    }
    this.clock.set(target);
    return target;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#heap = [];
  }

  #arm(): void {
    const top = this.#heap[0];
    if (!top) return;
    if (this.#timer && this.#armedFor <= top.at) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#armedFor = top.at;
    const delay = Math.min(2 ** 31 - 1, Math.ceil(this.clock.realDelayUntil(top.at)));
    this.#timer = setTimeout(() => this.#fire(), delay);
    this.#timer.unref?.();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    for (;;) {
      const top = this.#heap[0];
      if (!top || top.at > now) break;
      this.#pop();
      try {
        top.run();
      } catch (error) {
        console.error('emulator: a scheduled step failed', error);
      }
    }
    if (!this.#closed) this.#arm();
  }

  #less(a: Job, b: Job): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(job: Job): void {
    const h = this.#heap;
    h.push(job);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.#less(h[p] as Job, job)) break;
      h[i] = h[p] as Job;
      i = p;
    }
    h[i] = job;
  }

  #pop(): void {
    const h = this.#heap;
    const last = h.pop();
    if (!last || h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const c = r < h.length && this.#less(h[r] as Job, h[l] as Job) ? r : l;
      if (this.#less(last, h[c] as Job)) break;
      h[i] = h[c] as Job;
      i = c;
    }
    h[i] = last;
  }
}
