/**
 * How a session's end becomes a step's completion: the outputs Slack is given on success (as the
 * manifest declares them), or the reason a person reads when the step fails.
 */
import { isSuccessStatus, isTerminalStatus } from '@agent-sessions/core';
import { finalReport } from '../../blocks/report.js';
import { CANT_POST_STATUS, totalCostOf, UNREACHABLE_STATUS } from '../../blocks/session-card.js';

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
}

/** Slack shows a step's error to people in a Slackbot message: one readable paragraph, never too long. */
const MAX_ERROR = 1_000;
const clip = (text: string) => (text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 1)}…` : text);

/** The ending of a session the service says is over; undefined while it goes on. */
export function endingOf(
  sessionId: string,
  session: EndedSession,
  permalink: string | undefined,
): StepEnding | undefined {
  if (!isTerminalStatus(session.status)) return undefined;
  const result = finalReport(session).plain;
  if (isSuccessStatus(session.status)) {
    return {
      kind: 'success',
      outputs: {
        session_id: sessionId,
        // The spec spells a success two ways (completed, complete): a workflow's next step compares one.
        status: 'completed',
        result,
        cost: totalCostOf(session) ?? 0,
        ...(permalink ? { permalink } : {}),
      },
    };
  }
  const where = permalink ? ` Its thread: ${permalink}` : '';
  if (session.status === 'cancelled')
    return { kind: 'error', error: clip(`The agent session ${sessionId} was cancelled.${where}`) };
  const why = typeof session.error === 'string' && session.error !== '' ? `: ${session.error}` : '';
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
