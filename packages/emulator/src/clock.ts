/**
 * The emulator's notion of time. In real mode virtual time runs `speed` times faster than the wall
 * clock; in manual mode it moves only through `advance` (the admin endpoint), so tests are deterministic.
 */
export interface EmulatorClock {
  readonly mode: 'real' | 'manual';
  /** Virtual epoch milliseconds. */
  now(): number;
  /** Wall-clock milliseconds until virtual time `at` (real mode), for arming a timer. */
  realDelayUntil(at: number): number;
}

export function realClock(speed: number, start = Date.now()): EmulatorClock {
  const wallStart = Date.now();
  return {
    mode: 'real',
    now: () => start + (Date.now() - wallStart) * speed,
    realDelayUntil: (at) => Math.max(0, (at - (start + (Date.now() - wallStart) * speed)) / speed),
  };
}

export class ManualClock implements EmulatorClock {
  readonly mode = 'manual' as const;
  #now: number;
  constructor(start = Date.now()) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  set(at: number): void {
    this.#now = Math.max(this.#now, at);
  }
  realDelayUntil(): number {
    return Number.POSITIVE_INFINITY;
  }
}
