/**
 * How a session's end becomes a step's completion: the outputs Slack is given on success (as the
 * manifest declares them), or the reason a person reads when the step fails.
 */
import { isSuccessStatus, isTerminalStatus } from '@agent-sessions/core';
import { CANT_POST_STATUS, UNREACHABLE_STATUS } from '../../blocks/session-card.js';
import {
  costText,
  elapsedText,
  roundsText,
  type SessionSummary,
  type SummarySession,
  summaryOf,
} from '../../blocks/session-summary.js';
import { plainInert } from '../../blocks/text.js';

/** Slack's answer to a completion: `outputs` for functions.completeSuccess, `error` for completeError. */
export type StepEnding = { kind: 'success'; outputs: StepOutputs } | { kind: 'error'; error: string };

/** The outputs both steps declare: `session_id` and `status` always, the rest when known. */
export interface StepOutputs {
  session_id: string;
  status: string;
  result: string;
  cost: number;
  permalink?: string;
}

/** What the service says of a session at its end (the client's full type has more). */
export interface EndedSession {
  status: string;
  error?: unknown;
  completionReport?: unknown;
  cost?: unknown;
  rounds?: unknown;
  createdAt?: unknown;
  completedAt?: unknown;
  updatedAt?: unknown;
}

/** The session as the bot recorded it, and the time the step ends: with the service's end, its summary. */
export interface EndingContext {
  recorded: SummarySession;
  now: number;
}

/** Slack shows a step's error to people in a Slackbot message: one readable paragraph, never too long. */
const MAX_ERROR = 1_000;
const clip = (text: string) => (text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 1)}…` : text);

const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/**
 * The `result` output: the report as a person reads it wherever the workflow's next step puts it (a
 * message, an email, a spreadsheet cell), so plain text with no Slack markup: the status as the card
 * words it, the summary and details, the error, then the session's cost in dollars, rounds and how long
 * it ran, as its card says them (each when known).
 */
export function resultText(session: EndedSession, summary: SessionSummary): string {
  const lines = [summary.label];
  const report = session.completionReport;
  if (typeof report === 'object' && report !== null && !Array.isArray(report)) {
    const {
      summary,
      details,
      rounds: _rounds,
      totalCost: _total,
      ...rest
    } = { ...report } as Record<string, unknown>;
    if (summary !== undefined) lines.push(asText(summary));
    if (Array.isArray(details)) for (const d of details) lines.push(`• ${asText(d)}`);
    const whole = summary === undefined && !Array.isArray(details);
    if (whole) lines.push(JSON.stringify(report, null, 2));
    else if (Object.keys(rest).length > 0) lines.push(JSON.stringify(rest, null, 2));
  } else if (report !== null && report !== undefined) lines.push(asText(report));
  if (typeof session.error === 'string' && session.error !== '') lines.push(`Error: ${session.error}`);
  // What the service did not say is left out: a next step's reader has no use for a dash.
  const facts = [
    summary.cost === undefined ? undefined : `Cost ${costText(summary)}`,
    summary.rounds === undefined ? undefined : roundsText(summary),
    summary.elapsedMs === undefined ? undefined : elapsedText(summary),
  ].filter((fact) => fact !== undefined);
  if (facts.length > 0) lines.push(facts.join(' · '));
  // The report and the error are the agent's and the service's words, read wherever the builder sends them.
  return plainInert(lines.join('\n'));
}

/** The ending of a session the service says is over; undefined while it goes on. */
export function endingOf(
  sessionId: string,
  session: EndedSession,
  permalink: string | undefined,
  context: EndingContext,
): StepEnding | undefined {
  if (!isTerminalStatus(session.status)) return undefined;
  const summary = summaryOf(context.recorded, session, context.now);
  const result = resultText(session, summary);
  if (isSuccessStatus(session.status)) {
    return {
      kind: 'success',
      outputs: {
        session_id: sessionId,
        // The spec spells a success two ways (completed, complete): a workflow's next step compares one.
        status: 'completed',
        result,
        cost: summary.cost ?? 0,
        ...(permalink ? { permalink } : {}),
      },
    };
  }
  const where = permalink ? ` Its thread: ${permalink}` : '';
  if (session.status === 'cancelled')
    return { kind: 'error', error: clip(`The agent session ${sessionId} was cancelled.${where}`) };
  // Slack shows the error to the runner in a Slackbot message: the service's words, unable to ping or spoof.
  const why =
    typeof session.error === 'string' && session.error !== '' ? `: ${plainInert(session.error)}` : '';
  return { kind: 'error', error: clip(`The agent session ${sessionId} failed${why}.${where}`) };
}

/** The ending of a session the bot stopped following: its own statuses, which the service never says. */
export function lostEnding(sessionId: string, status: string, permalink: string | undefined): StepEnding {
  const where = permalink ? ` Its thread: ${permalink}` : '';
  if (status === CANT_POST_STATUS)
    return {
      kind: 'error',
      error: clip(
        `The bot can no longer post in the channel of agent session ${sessionId}, so it stopped following it there; \`/agent status ${sessionId}\` shows where it is.`,
      ),
    };
  if (status === UNREACHABLE_STATUS)
    return {
      kind: 'error',
      error: clip(
        `The bot lost agent session ${sessionId}: the Agent Session Service no longer lets it see the session.${where}`,
      ),
    };
  return { kind: 'error', error: clip(`The agent session ${sessionId} ended as ${status}.${where}`) };
}

/** A refusal before any session (bad inputs, a channel not allowed, the budget ceiling). */
export function refusal(reason: string): StepEnding {
  return { kind: 'error', error: clip(reason) };
}
