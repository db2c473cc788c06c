/**
 * Session statuses and what they mean (docs/contract-decisions.md's table). The spec names the terminal statuses two
 * ways (completed/error in the status list, complete/failed in its polling guidance); both are terminal.
 * Pure: no timers, no I/O (the n8n node bundles this file).
 */

export const STATUS_LIST = [
  'queued',
  'orchestrating',
  'running',
  'waiting_human',
  'paused',
  'cost_limit',
  'completed',
  'cancelled',
  'error',
] as const;

export type KnownStatus = (typeof STATUS_LIST)[number] | 'complete' | 'failed';

export const TERMINAL_STATUSES: ReadonlySet<string> = new Set([
  'completed',
  'complete',
  'cancelled',
  'error',
  'failed',
]);
export const SUCCESS_STATUSES: ReadonlySet<string> = new Set(['completed', 'complete']);
/** A person must act: answer a question, raise the budget, or resume what someone paused. */
export const NEEDS_PERSON_STATUSES: ReadonlySet<string> = new Set(['waiting_human', 'cost_limit', 'paused']);
export const ACTIVE_STATUSES: ReadonlySet<string> = new Set(['queued', 'orchestrating', 'running']);
/** Stopped until someone resumes it: paused by a person, or stopped at its budget (resumed with more). */
export const RESUMABLE_STATUSES: ReadonlySet<string> = new Set(['paused', 'cost_limit']);
export const KNOWN_STATUSES: ReadonlySet<string> = new Set([...STATUS_LIST, 'complete', 'failed']);

export const isTerminalStatus = (status: string): boolean => TERMINAL_STATUSES.has(status);
export const isSuccessStatus = (status: string): boolean => SUCCESS_STATUSES.has(status);
export const needsPerson = (status: string): boolean => NEEDS_PERSON_STATUSES.has(status);
export const isActiveStatus = (status: string): boolean => ACTIVE_STATUSES.has(status);
export const isResumable = (status: string): boolean => RESUMABLE_STATUSES.has(status);
/** An unknown status is shown raw and treated as not terminal: following goes on, slowly. */
export const isKnownStatus = (status: string): boolean => KNOWN_STATUSES.has(status);
