import { AgentSessionsError } from './http/errors.js';
import type { RequestOptions, SleepFunction } from './http/request.js';
import type { SessionStatus } from './schemas/responses/index.js';
import { isTerminalStatus, needsPerson } from './status.js';

export interface WaitOptions {
  /** `finished` (default): a terminal status. `needs-person`: also waiting_human, cost_limit or paused. */
  until?: 'finished' | 'needs-person';
  /** Between polls. Default 2 s. */
  intervalMs?: number;
  /** Overall deadline. Default 10 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The session did not reach the awaited state in time; `lastStatus` is what it was last seen as. */
export class WaitTimeoutError extends AgentSessionsError {
  override name = 'WaitTimeoutError';
  constructor(
    readonly sessionId: string,
    readonly lastStatus: SessionStatus,
    timeoutMs: number,
  ) {
    super(`session ${sessionId} was still ${lastStatus.status} after ${timeoutMs} ms`);
  }
}

function checkPositive(name: string, value: number): void {
  if (!(Number.isFinite(value) && value > 0))
    throw new RangeError(`${name} must be a positive number, got ${value}`);
}

/** What the wait loop needs: a read, an abortable sleep and a clock (a `Sessions` has all three). */
export interface WaitableSessions {
  get(sessionId: string, options?: RequestOptions): Promise<SessionStatus>;
  sleep: SleepFunction;
  now: () => number;
}

/**
 * Polls a session until it finishes (or needs a person) and returns its last status. An unknown status is
 * polled at the same interval as any other (never a busy loop; `sessions.get` logs it once); every sleep
 * is abortable. Pure: the sleep and the clock come from `sessions` (the n8n node passes its own).
 */
export async function waitForCompletion(
  sessions: WaitableSessions,
  sessionId: string,
  options: WaitOptions = {},
): Promise<SessionStatus> {
  const until = options.until ?? 'finished';
  if (until !== 'finished' && until !== 'needs-person') {
    throw new RangeError(`until must be 'finished' or 'needs-person', got ${String(until)}`);
  }
  const intervalMs = options.intervalMs ?? 2_000;
  const timeoutMs = options.timeoutMs ?? 600_000;
  checkPositive('intervalMs', intervalMs);
  checkPositive('timeoutMs', timeoutMs);
  const deadline = sessions.now() + timeoutMs;
  for (;;) {
    const status = await sessions.get(sessionId, options.signal ? { signal: options.signal } : {});
    if (isTerminalStatus(status.status)) return status;
    if (until === 'needs-person' && needsPerson(status.status)) return status;
    const remaining = deadline - sessions.now();
    if (remaining <= 0) throw new WaitTimeoutError(sessionId, status, timeoutMs);
    await sessions.sleep(Math.min(intervalMs, remaining), options.signal);
  }
}
