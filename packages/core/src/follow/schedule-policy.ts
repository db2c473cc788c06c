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
  /**
   * Ceiling of the interval for a status we don't know. The spec lists every waiting and terminal status,
   * so an unlisted one is most likely the service working (`thinking`, `planning`…): it is polled like an
   * active session — at once again after a change, backing off while nothing changes — up to this ceiling.
   */
  unknownStatusMs: number;
  /** First retry after a failed poll; doubles per consecutive failure up to `errorMaxMs`. */
  errorBaseMs: number;
  errorMaxMs: number;
  /**
   * While the budget is saturated, an active session that was quiet at its last poll (read status first)
   * whose status did not change has its messages read only every this many polls (a status change, a new
   * round or a pending question is always read at once).
   */
  messageReadEveryPollsWhenBusy: number;
  /**
   * While the budget is saturated, an active session that was chatty at its last poll (read messages
   * first) has its status read at least every this many polls; otherwise only when a message suggests
   * it changed (a question, a final report, a new round) or nothing new came. This is what keeps one
   * poll of a busy session ~1 request, so messages and questions surface within one interval.
   */
  statusReadEveryPollsWhenBusy: number;
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
  statusReadEveryPollsWhenBusy: 20,
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
      return backedOff(policy, outcome, policy.unknownStatusMs);
    case 'terminal':
      return 0;
    case 'active':
      return backedOff(policy, outcome, policy.activeMaxMs);
  }
}

function backedOff(policy: SchedulePolicy, outcome: PollOutcome, ceilingMs: number): number {
  const floor = Math.min(policy.activeMinMs, ceilingMs);
  if (outcome.changed || outcome.previousIntervalMs === undefined) return floor;
  const grown = Math.max(floor, outcome.previousIntervalMs) * policy.activeBackoff;
  return Math.min(ceilingMs, Math.round(grown));
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
  for (const name of ['messageReadEveryPollsWhenBusy', 'statusReadEveryPollsWhenBusy'] as const) {
    if (!Number.isInteger(policy[name])) throw new RangeError(`schedule.${name} must be a whole number`);
  }
}
