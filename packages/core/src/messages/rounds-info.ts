/**
 * What a session's status says about its rounds, for `applyPage` to judge which rounds may still grow.
 * The round objects are free-form in the contract, so each fact is taken only where it is there.
 */

import { roundIdOf } from '../round-id.js';

/** What the session's status says about its rounds; every field is optional. */
export interface RoundsInfo {
  /** Round ids in creation order, as the status's `rounds` array lists them. */
  order?: readonly string[];
  /** Rounds whose round object says they ended (a final status, or a completedAt/endedAt). */
  ended?: readonly string[];
  /** Rounds whose round object says they are still going (a status that isn't final). */
  running?: readonly string[];
  /**
   * Of `running`, the rounds whose status says they wait on someone (a person's answer, a resume): they
   * say nothing more until that comes.
   */
  waiting?: readonly string[];
  /** The session is terminal: no round grows any more. */
  terminal?: boolean;
  /** How many messages a round has, where its round object says so (a `messageCount`). */
  counts?: Readonly<Record<string, number>>;
}

/** Round statuses that say a round is over (lower-cased). */
const ENDED_ROUND_STATUSES: ReadonlySet<string> = new Set([
  'completed',
  'complete',
  'cancelled',
  'canceled',
  'error',
  'failed',
  'done',
  'finished',
  'responded',
  'superseded',
  'succeeded',
  'success',
  'stopped',
  'aborted',
]);

/** Round statuses that say a round waits on someone before it goes on (lower-cased). */
const WAITING_ROUND_STATUSES: ReadonlySet<string> = new Set(['waiting_human', 'paused', 'cost_limit']);

const present = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/**
 * What a session status's round objects say: creation order (the array's order), and which rounds ended
 * or still run. The objects are free-form in the contract, so each fact is taken only where it is there.
 */
export function roundsInfoOf(rounds: unknown, sessionStatusIsTerminal = false): RoundsInfo {
  const order: string[] = [];
  const ended: string[] = [];
  const running: string[] = [];
  const waiting: string[] = [];
  const counts: Record<string, number> = {};
  for (const round of Array.isArray(rounds) ? rounds : []) {
    const id = roundIdOf(round);
    if (id === undefined) continue;
    order.push(id);
    const r = round as Record<string, unknown>;
    const count = r.messageCount;
    if (typeof count === 'number' && Number.isInteger(count) && count >= 0) counts[id] = count;
    const status = typeof r.status === 'string' ? r.status.toLowerCase() : undefined;
    if (
      (status !== undefined && ENDED_ROUND_STATUSES.has(status)) ||
      present(r.completedAt) ||
      present(r.endedAt)
    ) {
      ended.push(id);
    } else if (status !== undefined) {
      running.push(id);
      if (WAITING_ROUND_STATUSES.has(status)) waiting.push(id);
    }
  }
  return { order, ended, running, waiting, terminal: sessionStatusIsTerminal, counts };
}
