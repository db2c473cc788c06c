/**
 * One summary of a session: its status, cost against budget, rounds and elapsed time, read once from what
 * the store knows and the service's latest snapshot. Every view of a session (its card, `/agent status`,
 * App Home, its code channel, a workflow step's outputs) shows this summary, so no two of them disagree;
 * the elapsed time stops at the session's end.
 */
import { parseTimestamp } from '@agent-sessions/core';
import { isEndedStatus, statusLabel } from './status-words.js';
import { formatDuration, formatUsd, progressBar } from './text.js';

/** What a summary is read from: the session as the store has it. */
export interface SummarySession {
  goal: string;
  status: string;
  budget: number | null;
  createdAt: string;
}

/** The service's snapshot of a session (loose: only what a summary reads). */
export interface SummarySnapshot {
  status?: string;
  cost?: unknown;
  rounds?: unknown;
  createdAt?: unknown;
  completedAt?: unknown;
  updatedAt?: unknown;
}

export interface SessionSummary {
  /** The service's status when it was polled, else the store's (or the bot's own ends). */
  status: string;
  /** The status in the words people read (`statusLabel`). */
  label: string;
  ended: boolean;
  /** The goal as people read it: without the emulator's `scenario:<name>` word. */
  goal: string;
  /** Dollars spent; undefined when the service was never asked. */
  cost: number | undefined;
  budget: number | null;
  /** Rounds run (a round: the agent's turn of work between two points where it stops or asks). */
  rounds: number | undefined;
  /** From its creation to its end (to `now` while it runs); undefined when its end is not known. */
  elapsedMs: number | undefined;
}

/** A `scenario:<name>` word picks a scripted run on the local emulator; people read the goal without it. */
export function shownGoal(goal: string): string {
  const shown = goal
    .replace(/(^|\s)scenario:[a-z_]+(?=\s|$)/gi, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
  return shown === '' ? goal.trim() : shown;
}

/** The total cost in a session snapshot, when it has one (the snapshot's cost is the service's, loose). */
export function totalCostOf(snapshot: object | undefined): number | undefined {
  const cost = snapshot && 'cost' in snapshot ? snapshot.cost : undefined;
  if (typeof cost !== 'object' || cost === null || !('totalCost' in cost)) return undefined;
  return typeof cost.totalCost === 'number' ? cost.totalCost : undefined;
}

/** What a summary is made of: the session's facts, read from the store and the service's snapshot. */
export interface SummaryFacts extends SummarySession {
  /** Dollars spent; absent when not known. */
  totalCost?: number | undefined;
  /** Rounds run; absent when not known. */
  rounds?: number | undefined;
  /** When it ended, when the service said. */
  completedAt?: string | null | undefined;
}

/**
 * A session's facts from its record and, when the service was asked, its snapshot. Without a snapshot a
 * session that has not ended has spent nothing yet (it was just created); one that has ended has numbers
 * only the service knows, so they are left unknown rather than made up.
 */
export function factsOf(session: SummarySession, snapshot: SummarySnapshot | undefined): SummaryFacts {
  const status = snapshot?.status ?? session.status;
  const fresh = snapshot === undefined && !isEndedStatus(status);
  const completedAt = parseTimestamp(snapshot?.completedAt) ?? parseTimestamp(snapshot?.updatedAt);
  return {
    goal: session.goal,
    status,
    budget: session.budget,
    createdAt: parseTimestamp(snapshot?.createdAt) ?? session.createdAt,
    totalCost: totalCostOf(snapshot) ?? (snapshot !== undefined || fresh ? 0 : undefined),
    rounds: Array.isArray(snapshot?.rounds) ? snapshot.rounds.length : fresh ? 0 : undefined,
    completedAt: completedAt ?? null,
  };
}

/** The summary of a session's facts at `now`: its elapsed time runs while it runs and stops at its end. */
export function sessionSummary(facts: SummaryFacts, now: number): SessionSummary {
  const ended = isEndedStatus(facts.status);
  const end = ended ? (facts.completedAt ? Date.parse(facts.completedAt) : Number.NaN) : now;
  const elapsed = end - Date.parse(facts.createdAt);
  return {
    status: facts.status,
    label: statusLabel(facts.status),
    ended,
    goal: shownGoal(facts.goal),
    cost: facts.totalCost,
    budget: facts.budget,
    rounds: facts.rounds,
    elapsedMs: Number.isFinite(elapsed) ? Math.max(0, elapsed) : undefined,
  };
}

/** The summary of a session from its record and, when the service was asked, its latest snapshot. */
export const summaryOf = (
  session: SummarySession,
  snapshot: SummarySnapshot | undefined,
  now: number,
): SessionSummary => sessionSummary(factsOf(session, snapshot), now);

/** What is shown where a number is not known. */
export const NOT_KNOWN = '—';

/** `$0.032 of $2.00`, `$0.032` without a budget; always dollars. */
export function costText(summary: Pick<SessionSummary, 'cost' | 'budget'>): string {
  if (summary.cost === undefined) return NOT_KNOWN;
  return summary.budget !== null && summary.budget > 0
    ? `${formatUsd(summary.cost)} of ${formatUsd(summary.budget)}`
    : formatUsd(summary.cost);
}

/** The cost with a bar of how much of the budget it is, for the card. */
export function costWithBar(summary: Pick<SessionSummary, 'cost' | 'budget'>): string {
  if (summary.cost === undefined || summary.budget === null || !(summary.budget > 0))
    return costText(summary);
  return `${costText(summary)}\n\`${progressBar(summary.cost / summary.budget)}\``;
}

/** `2 rounds`, `1 round`. */
export function roundsText(summary: Pick<SessionSummary, 'rounds'>): string {
  if (summary.rounds === undefined) return `${NOT_KNOWN} rounds`;
  return `${summary.rounds} round${summary.rounds === 1 ? '' : 's'}`;
}

export const elapsedText = (summary: Pick<SessionSummary, 'elapsedMs'>): string =>
  summary.elapsedMs === undefined ? NOT_KNOWN : formatDuration(summary.elapsedMs);

/** The summary in one mrkdwn line: `🛑 Ended: cancelled · $0.032 of $2.00 · 2 rounds · 29s`. */
export const summaryLine = (summary: SessionSummary): string =>
  [summary.label, costText(summary), roundsText(summary), elapsedText(summary)].join(' · ');

/** What a round is, in the words the card's help and the docs use. */
export const ROUND_HELP =
  'A round is one stretch of the agent’s work: a session starts with one, and each time it goes on after waiting (an answer, a raised budget, a resume) a new round begins. A round holds many steps, each message or tool call, up to `--max-iterations` of them.';
