import { isSuccessStatus, isTerminalStatus, parseTimestamp } from '@agent-sessions/core';
import { ACTIONS, encodeRef } from './ids.js';
import { escapeMrkdwn, formatDuration, formatUsd, mrkdwn, plain, progressBar } from './text.js';

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
}

/**
 * Not a service status: the bot's own, for a session the service stopped showing us (403/404). The
 * card and App Home show it as ended.
 */
export const UNREACHABLE_STATUS = 'unreachable';

const STATUS_LABEL: Record<string, string> = {
  [UNREACHABLE_STATUS]: '⚠️ No longer followed',
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

export const statusLabel = (status: string): string => STATUS_LABEL[status] ?? `❔ ${status}`;

/**
 * The card before the session exists: posted first, so a channel the bot may not post in refuses
 * before anything is started.
 */
export function startingCard(goal: string, startedBy: string): { text: string; blocks: unknown[] } {
  return {
    text: `Starting an agent session: ${goal.slice(0, 200)}`,
    blocks: [
      { type: 'header', text: plain(goal, 150) },
      { type: 'context', elements: [mrkdwn(`⏳ Starting… · started by <@${startedBy}>`)] },
    ],
  };
}

/** The session card: posted where the session started, edited in place as it changes. */
export function sessionCard(state: CardState): { text: string; blocks: unknown[] } {
  const terminal = isTerminalStatus(state.status) || state.status === UNREACHABLE_STATUS;
  const end = terminal && state.completedAt ? Date.parse(state.completedAt) : state.now;
  const elapsed = formatDuration(end - Date.parse(state.createdAt));
  const cost =
    state.budget && state.budget > 0
      ? `${formatUsd(state.totalCost)} of ${formatUsd(state.budget)}\n\`${progressBar(state.totalCost / state.budget)}\``
      : formatUsd(state.totalCost);
  const blocks: unknown[] = [
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
      elements: [mrkdwn(`Started by <@${state.startedBy}> · session \`${escapeMrkdwn(state.sessionId)}\``)],
    },
  ];
  if (!terminal) {
    const ref = encodeRef({ sessionId: state.sessionId });
    const resumable = state.status === 'paused' || state.status === 'cost_limit';
    blocks.push({
      type: 'actions',
      block_id: 'session_controls',
      elements: [
        resumable
          ? {
              type: 'button',
              action_id: state.status === 'cost_limit' ? ACTIONS.raiseBudget : ACTIONS.resume,
              text: plain(state.status === 'cost_limit' ? 'Raise budget' : 'Resume', 75),
              value: ref,
              style: 'primary',
            }
          : { type: 'button', action_id: ACTIONS.pause, text: plain('Pause', 75), value: ref },
        { type: 'button', action_id: ACTIONS.redirect, text: plain('Redirect', 75), value: ref },
        {
          type: 'button',
          action_id: ACTIONS.cancel,
          text: plain('Cancel', 75),
          value: ref,
          style: 'danger',
          confirm: {
            title: plain('Cancel this session?', 100),
            text: plain('The agent stops and its work so far is kept. This cannot be undone.', 300),
            confirm: plain('Cancel session', 30),
            deny: plain('Keep running', 30),
            style: 'danger',
          },
        },
      ],
    });
  }
  const verb = terminal ? (isSuccessStatus(state.status) ? 'finished' : 'ended') : 'is';
  return {
    text: `Agent session ${verb}: ${statusLabel(state.status)} — ${state.goal.slice(0, 200)}`,
    blocks,
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
  },
  snapshot:
    | { status?: string; cost?: unknown; rounds?: unknown; createdAt?: unknown; completedAt?: unknown }
    | undefined,
  now: number,
): CardState {
  const total = (snapshot?.cost as { totalCost?: unknown } | undefined)?.totalCost;
  return {
    sessionId: session.sessionId,
    goal: session.goal,
    status: snapshot?.status ?? session.status,
    startedBy: session.startedBy,
    totalCost: typeof total === 'number' ? total : 0,
    budget: session.budget,
    rounds: Array.isArray(snapshot?.rounds) ? snapshot.rounds.length : 0,
    createdAt: parseTimestamp(snapshot?.createdAt) ?? session.createdAt,
    now,
    completedAt: parseTimestamp(snapshot?.completedAt) ?? null,
  };
}
