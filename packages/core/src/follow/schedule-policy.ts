/**
 * How long a session may go unpolled. Busy sessions are polled often, quiet ones less, sessions that
 * wait on a person (or are paused, or out of budget) slowly until someone acts on them — then at once,
 * through `Follower.poke`. The budget does the rest: when more is due than the key allows, the most
 * overdue go first, so intervals stretch evenly instead of some sessions starving.
 */
export interface SchedulePolicy {
  /** Interval for an active session whose last poll found something new. */
  activeMinMs: number;
  /** Ceiling an active session's interval grows to while nothing changes. */
  activeMaxMs: number;
  /** Growth factor of an active session's interval per poll that found nothing new. */
  activeBackoff: number;
  /** A session waiting on a person, paused or in cost_limit. */
  needsPersonMs: number;
  /** A status we don't know: not terminal, so keep looking, but never in a tight loop. */
  unknownStatusMs: number;
  /** First retry after a failed poll; doubles per consecutive failure up to `errorMaxMs`. */
  errorBaseMs: number;
  errorMaxMs: number;
  /**
   * While the budget is saturated, an active session whose status did not change has its messages read
   * only every this many polls (a status change, a new round or a pending question is always read at
   * once). This is what keeps one poll ~1 request, so questions surface within one status interval.
   */
  messageReadEveryPollsWhenBusy: number;
}

export const defaultSchedulePolicy: SchedulePolicy = {
  activeMinMs: 1_000,
  activeMaxMs: 15_000,
  activeBackoff: 1.5,
  needsPersonMs: 300_000,
  unknownStatusMs: 10_000,
  errorBaseMs: 2_000,
  errorMaxMs: 300_000,
  messageReadEveryPollsWhenBusy: 4,
};

export type SessionActivity = 'active' | 'needs_person' | 'unknown' | 'terminal';

export interface PollOutcome {
  activity: SessionActivity;
  /** Did this poll find anything new (status, rounds, messages, updatedAt)? */
  changed: boolean;
  /** The interval used before this poll, for growth. */
  previousIntervalMs: number | undefined;
}

export function nextIntervalMs(policy: SchedulePolicy, outcome: PollOutcome): number {
  switch (outcome.activity) {
    case 'needs_person':
      return policy.needsPersonMs;
    case 'unknown':
      return policy.unknownStatusMs;
    case 'terminal':
      return 0;
    case 'active': {
      if (outcome.changed || outcome.previousIntervalMs === undefined) return policy.activeMinMs;
      const grown = Math.max(policy.activeMinMs, outcome.previousIntervalMs) * policy.activeBackoff;
      return Math.min(policy.activeMaxMs, Math.round(grown));
    }
  }
}

export function errorBackoffMs(policy: SchedulePolicy, consecutiveFailures: number): number {
  const exp = policy.errorBaseMs * 2 ** Math.max(0, consecutiveFailures - 1);
  // Jitter keeps a fleet of sessions that failed together from retrying together.
  const jittered = exp * (0.5 + Math.random() * 0.5);
  return Math.min(policy.errorMaxMs, Math.round(jittered));
}

export function validateSchedulePolicy(policy: SchedulePolicy): void {
  for (const [name, value] of Object.entries(policy)) {
    if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      throw new RangeError(`schedule.${name} must be a positive number, got ${String(value)}`);
    }
  }
  if (policy.activeMaxMs < policy.activeMinMs) {
    throw new RangeError('schedule.activeMaxMs must be >= schedule.activeMinMs');
  }
  if (policy.activeBackoff < 1) throw new RangeError('schedule.activeBackoff must be >= 1');
  if (policy.errorMaxMs < policy.errorBaseMs) {
    throw new RangeError('schedule.errorMaxMs must be >= schedule.errorBaseMs');
  }
  if (!Number.isInteger(policy.messageReadEveryPollsWhenBusy)) {
    throw new RangeError('schedule.messageReadEveryPollsWhenBusy must be a whole number');
  }
}
