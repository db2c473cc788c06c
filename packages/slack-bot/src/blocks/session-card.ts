import { isSuccessStatus, needsPerson } from '@agent-sessions/core';
import type { Button, KnownBlock } from '@slack/types';
import { safeMrkdwn, toolCallFields } from './agent-message.js';
import { ACTIONS, encodeRef } from './ids.js';
import {
  costWithBar,
  elapsedText,
  factsOf,
  NOT_KNOWN,
  type SummaryFacts,
  type SummarySnapshot,
  sessionSummary,
  shownGoal,
} from './session-summary.js';
import { escapeMrkdwn, mrkdwn, plain, type SlackMessage, truncate } from './text.js';

/**
 * The card's state: the session's facts (its summary is read from them, as every view's is) and what
 * only the card shows. `createdAt` and `now` give the elapsed time (pure: the caller passes the clock).
 */
export interface CardState extends SummaryFacts {
  sessionId: string;
  startedBy: string;
  now: number;
  /** The latest decision recorded ("<@U…> answered: Approved · 2026-…"), shown in the footer. */
  latestDecision?: string;
  /** Where it came from ("Started from this thread, with 12 earlier messages"), when not /agent start. */
  origin?: string | null;
  /** What the agent is doing now (its latest tool call or a short summary), while it works. */
  currentStep?: string | null;
}

export { totalCostOf } from './session-summary.js';
export { CANT_POST_STATUS, statusLabel, UNREACHABLE_STATUS } from './status-words.js';

/**
 * The card before the session exists: posted first, so a channel the bot may not post in refuses
 * before anything is started.
 */
export function startingCard(goal: string, startedBy: string, origin?: string): SlackMessage {
  return {
    text: `Starting an agent session: ${safeGoal(shownGoal(goal))}`,
    blocks: [
      { type: 'header', text: plain(shownGoal(goal), 150) },
      {
        type: 'context',
        elements: [
          mrkdwn(`⏳ Starting… · started by <@${startedBy}>${origin ? ` · ${escapeMrkdwn(origin)}` : ''}`),
        ],
      },
    ],
  };
}

/** The goal in a notification text: read as mrkdwn there, so escaped and unable to ping. */
const safeGoal = (goal: string): string => safeMrkdwn(goal.slice(0, 200));

/** The longest "now" line shown on the card: a glance, not the whole step (the thread has that). */
export const CURRENT_STEP_MAX = 150;

/**
 * The "now" line of an agent message: its latest tool call (`🔧 search_docs`), else the first line of
 * what it said. Undefined when the message says nothing worth showing there (a tool's result, a question).
 */
export function currentStepOf(message: Record<string, unknown>): string | undefined {
  if (message.name === 'human_input_needed') return undefined;
  const calls = message.toolCalls ?? message.tool_calls;
  if (Array.isArray(calls) && calls.length > 0) {
    const last: unknown = calls[calls.length - 1];
    const name = typeof last === 'object' && last !== null ? toolCallFields(last).name : last;
    if (typeof name === 'string' && name && name !== 'human_input_needed') return `🔧 ${name}`;
  }
  if (message.role === 'tool' || message.role === 'user') return undefined;
  const content = typeof message.content === 'string' ? message.content.trim() : '';
  const line = content.split('\n', 1)[0] ?? '';
  return line ? truncate(line, CURRENT_STEP_MAX) : undefined;
}

/** The session card: posted where the session started, edited in place as it changes. */
export function sessionCard(state: CardState): SlackMessage {
  const summary = sessionSummary(state, state.now);
  const terminal = summary.ended;
  const blocks: KnownBlock[] = [
    { type: 'header', text: plain(summary.goal, 150) },
    {
      type: 'section',
      fields: [
        mrkdwn(`*Status*\n${summary.label}`, 2000),
        mrkdwn(`*Cost*\n${costWithBar(summary)}`, 2000),
        mrkdwn(`*Rounds*\n${summary.rounds ?? NOT_KNOWN}`, 2000),
        mrkdwn(`*Elapsed*\n${elapsedText(summary)}`, 2000),
      ],
    },
    {
      type: 'context',
      elements: [
        mrkdwn(
          `Started by <@${state.startedBy}> · session \`${escapeMrkdwn(state.sessionId)}\`${state.origin ? ` · ${escapeMrkdwn(state.origin)}` : ''}`,
        ),
      ],
    },
  ];
  // While the agent waits on a person (a question, its budget, a pause) it is doing nothing: no "Now:".
  if (!terminal && !needsPerson(state.status) && state.currentStep) {
    // Escaped: whatever the agent wrote can't ping anyone or link anywhere from the card.
    blocks.splice(2, 0, {
      type: 'context',
      elements: [mrkdwn(`*Now:* ${safeMrkdwn(truncate(state.currentStep, CURRENT_STEP_MAX))}`)],
    });
  }
  if (state.latestDecision) {
    blocks.push({ type: 'context', elements: [mrkdwn(`Latest decision: ${state.latestDecision}`)] });
  }
  if (!terminal) {
    const ref = encodeRef({ sessionId: state.sessionId });
    const resumable = state.status === 'paused' || state.status === 'cost_limit';
    const resume: Button = {
      type: 'button',
      action_id: state.status === 'cost_limit' ? ACTIONS.raiseBudget : ACTIONS.resume,
      text: plain(state.status === 'cost_limit' ? 'Raise budget' : 'Resume', 75),
      value: ref,
      style: 'primary',
    };
    blocks.push({
      type: 'actions',
      block_id: 'session_controls',
      elements: [
        resumable
          ? resume
          : { type: 'button', action_id: ACTIONS.pause, text: plain('Pause', 75), value: ref },
        { type: 'button', action_id: ACTIONS.redirect, text: plain('Redirect', 75), value: ref },
        cancelButton(state.sessionId, 'Keep running'),
      ],
    });
  }
  const verb = terminal ? (isSuccessStatus(state.status) ? 'finished' : 'ended') : 'is';
  return {
    text: `Agent session ${verb}: ${summary.label} — ${safeGoal(summary.goal)}`,
    blocks,
  };
}

/** Cancel, behind Slack's own confirm dialog: a session can't be cancelled by a stray click. */
export function cancelButton(sessionId: string, deny: string): Button {
  return {
    type: 'button',
    action_id: ACTIONS.cancel,
    text: plain('Cancel', 75),
    value: encodeRef({ sessionId }),
    style: 'danger',
    confirm: {
      title: plain('Cancel this session?', 100),
      text: plain('The agent stops and its work so far is kept. This cannot be undone.', 300),
      confirm: plain('Cancel session', 30),
      deny: plain(deny, 30),
      style: 'danger',
    },
  };
}

/** The card's state from what the store knows and, when the session was polled, its latest snapshot. */
export function cardStateOf(
  session: {
    sessionId: string;
    goal: string;
    status: string;
    startedBy: string;
    budget: number | null;
    createdAt: string;
    origin?: string | null;
  },
  snapshot: SummarySnapshot | undefined,
  now: number,
  currentStep?: string,
): CardState {
  return {
    ...factsOf(session, snapshot),
    sessionId: session.sessionId,
    startedBy: session.startedBy,
    now,
    origin: session.origin ?? null,
    currentStep: currentStep ?? null,
  };
}
