import { isSuccessStatus, isTerminalStatus, needsPerson, parseTimestamp } from '@agent-sessions/core';
import type { Button, KnownBlock } from '@slack/types';
import { safeMrkdwn, toolCallFields } from './agent-message.js';
import { ACTIONS, encodeRef } from './ids.js';
import {
  escapeMrkdwn,
  formatDuration,
  formatUsd,
  mrkdwn,
  plain,
  progressBar,
  type SlackMessage,
  truncate,
} from './text.js';

export interface CardState {
  sessionId: string;
  goal: string;
  status: string;
  startedBy: string;
  totalCost: number;
  budget: number | null;
  rounds: number;
  /** ISO time the session was created, and "now" (pure: the caller passes the clock). */
  createdAt: string;
  now: number;
  /** When it finished, for the elapsed time of a finished session. */
  completedAt?: string | null;
  /** The latest decision recorded ("<@U…> answered: Approved · 2026-…"), shown in the footer. */
  latestDecision?: string;
  /** Where it came from ("Started from this thread, with 12 earlier messages"), when not /agent start. */
  origin?: string | null;
  /** What the agent is doing now (its latest tool call or a short summary), while it works. */
  currentStep?: string | null;
}

/**
 * Not a service status: the bot's own, for a session the service stopped showing us (403/404). The
 * card and App Home show it as ended.
 */
export const UNREACHABLE_STATUS = 'unreachable';

/** The bot's own too: Slack refused every post in the session's channel (not_in_channel, archived…). */
export const CANT_POST_STATUS = 'cant_post_here';

const STATUS_LABEL: Record<string, string> = {
  [UNREACHABLE_STATUS]: '⚠️ No longer followed',
  [CANT_POST_STATUS]: "⚠️ The bot can't post in this channel any more: see `/agent status`",
  queued: '⏳ Queued',
  orchestrating: '🧭 Planning',
  running: '⚙️ Running',
  waiting_human: '🙋 Waiting for an answer',
  paused: '⏸️ Paused',
  cost_limit: '💸 Budget reached',
  completed: '✅ Completed',
  complete: '✅ Completed',
  cancelled: '🛑 Cancelled',
  error: '❌ Failed',
  failed: '❌ Failed',
};

/** A status as people read it, in mrkdwn: one the bot doesn't know is the service's word, escaped. */
export const statusLabel = (status: string): string =>
  (Object.hasOwn(STATUS_LABEL, status) ? STATUS_LABEL[status] : undefined) ?? `❔ ${escapeMrkdwn(status)}`;

/**
 * The card before the session exists: posted first, so a channel the bot may not post in refuses
 * before anything is started.
 */
export function startingCard(goal: string, startedBy: string, origin?: string): SlackMessage {
  return {
    text: `Starting an agent session: ${safeGoal(goal)}`,
    blocks: [
      { type: 'header', text: plain(goal, 150) },
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
  const terminal =
    isTerminalStatus(state.status) ||
    state.status === UNREACHABLE_STATUS ||
    state.status === CANT_POST_STATUS;
  const end = terminal && state.completedAt ? Date.parse(state.completedAt) : state.now;
  const elapsed = formatDuration(end - Date.parse(state.createdAt));
  const cost =
    state.budget && state.budget > 0
      ? `${formatUsd(state.totalCost)} of ${formatUsd(state.budget)}\n\`${progressBar(state.totalCost / state.budget)}\``
      : formatUsd(state.totalCost);
  const blocks: KnownBlock[] = [
    { type: 'header', text: plain(state.goal, 150) },
    {
      type: 'section',
      fields: [
        mrkdwn(`*Status*\n${statusLabel(state.status)}`, 2000),
        mrkdwn(`*Cost*\n${cost}`, 2000),
        mrkdwn(`*Rounds*\n${state.rounds}`, 2000),
        mrkdwn(`*Elapsed*\n${elapsed}`, 2000),
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
    text: `Agent session ${verb}: ${statusLabel(state.status)} — ${safeGoal(state.goal)}`,
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
  snapshot:
    | { status?: string; cost?: unknown; rounds?: unknown; createdAt?: unknown; completedAt?: unknown }
    | undefined,
  now: number,
  currentStep?: string,
): CardState {
  const total = totalCostOf(snapshot);
  return {
    sessionId: session.sessionId,
    goal: session.goal,
    status: snapshot?.status ?? session.status,
    startedBy: session.startedBy,
    totalCost: total ?? 0,
    budget: session.budget,
    rounds: Array.isArray(snapshot?.rounds) ? snapshot.rounds.length : 0,
    createdAt: parseTimestamp(snapshot?.createdAt) ?? session.createdAt,
    now,
    completedAt: parseTimestamp(snapshot?.completedAt) ?? null,
    origin: session.origin ?? null,
    currentStep: currentStep ?? null,
  };
}

/** The total cost in a session snapshot, when it has one (the snapshot's cost is the service's, loose). */
export function totalCostOf(snapshot: object | undefined): number | undefined {
  const cost = snapshot && 'cost' in snapshot ? snapshot.cost : undefined;
  if (typeof cost !== 'object' || cost === null || !('totalCost' in cost)) return undefined;
  return typeof cost.totalCost === 'number' ? cost.totalCost : undefined;
}
