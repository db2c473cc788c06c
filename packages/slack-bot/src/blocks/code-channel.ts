/**
 * What a session's own channel (a Slack code channel) shows: its context bar, its tabs (the plan and its
 * rounds, the questions waiting and answered), its commands, the report as canvas markdown. Pure: state
 * in, Slack's arguments out.
 */
import type { KnownBlock } from '@slack/types';
import { statusLabel, totalCostOf } from './session-card.js';
import { escapeMrkdwn, formatUsd, plainSafe, truncate } from './text.js';

export interface CodeChannelState {
  sessionId: string;
  goal: string;
  status: string;
  startedBy: string;
  startedByName?: string;
  budget: number | null;
  snapshot: { cost?: unknown; rounds?: unknown; status?: string } | undefined;
}

/** A context bar item as `agents.conversations.setProperties` takes it. */
export interface ContextBarItem {
  key: string;
  label: string;
  icon?: string;
  item_type: 'info' | 'action';
}

/** The keys of the context bar's action items: a click comes back as `code_channel_action` with its key. */
export const CONTEXT_ACTIONS = { pauseOrResume: 'pause_resume', cancel: 'cancel' } as const;

/** The statuses in which the bar offers Resume rather than Pause. */
const RESUMABLE = new Set(['paused', 'cost_limit']);
const ENDED = new Set(['completed', 'failed', 'cancelled', 'timed_out', 'error']);

const plainStatus = (status: string) =>
  statusLabel(status)
    .replace(/[*_`]/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Status, cost against budget, rounds, who started it; Pause/Resume and Cancel while it runs (5 at most). */
export function contextBar(state: CodeChannelState): ContextBarItem[] {
  const status = state.snapshot?.status ?? state.status;
  const cost = totalCostOf(state.snapshot ?? {}) ?? 0;
  const rounds = Array.isArray(state.snapshot?.rounds) ? state.snapshot.rounds.length : 0;
  const spent = state.budget === null ? formatUsd(cost) : `${formatUsd(cost)} of ${formatUsd(state.budget)}`;
  const items: ContextBarItem[] = [
    { key: 'status', label: truncate(plainStatus(status), 128), icon: 'terminal', item_type: 'info' },
    { key: 'cost', label: `Cost ${spent}`, icon: 'hierarchy', item_type: 'info' },
    { key: 'rounds', label: `${rounds} round${rounds === 1 ? '' : 's'}`, icon: 'branch', item_type: 'info' },
  ];
  const who = state.startedByName ?? state.startedBy;
  if (ENDED.has(status))
    return [...items, { key: 'started_by', label: truncate(`Started by ${who}`, 128), item_type: 'info' }];
  const resume = RESUMABLE.has(status);
  return [
    ...items,
    { key: CONTEXT_ACTIONS.pauseOrResume, label: resume ? '▶ Resume' : '⏸ Pause', item_type: 'action' },
    { key: CONTEXT_ACTIONS.cancel, label: '🛑 Cancel', item_type: 'action' },
  ];
}

/** A round as the service reports it, in one line (its number, status and summary where given). */
function roundLine(round: unknown, index: number): string {
  const r = typeof round === 'object' && round !== null ? (round as Record<string, unknown>) : {};
  const n = typeof r.roundNumber === 'number' ? r.roundNumber : index + 1;
  const status = typeof r.status === 'string' ? ` · ${escapeMrkdwn(r.status)}` : '';
  const said = [r.summary, r.title, r.description].find((v) => typeof v === 'string') as string | undefined;
  return `*Round ${n}*${status}${said ? ` — ${escapeMrkdwn(truncate(said, 300))}` : ''}`;
}

/** The plan tab: the goal, who started it and the budget, then each round as a task. */
export function planView(state: CodeChannelState): KnownBlock[] {
  const rounds = Array.isArray(state.snapshot?.rounds) ? state.snapshot.rounds : [];
  const shown = rounds.slice(-40);
  const lines = shown.map((r, i) => roundLine(r, rounds.length - shown.length + i));
  return [
    { type: 'header', text: { type: 'plain_text', text: 'Plan', emoji: true } },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*Goal*\n${escapeMrkdwn(truncate(state.goal, 2800))}` },
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `${statusLabel(state.snapshot?.status ?? state.status)} · started by <@${state.startedBy}>${state.budget === null ? '' : ` · budget ${formatUsd(state.budget)}`}`,
        },
      ],
    },
    { type: 'divider' },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(lines.length > 0 ? lines.join('\n') : '_No rounds yet._', 2900),
      },
    },
  ];
}

export interface QuestionLine {
  inputId: string;
  prompt: string;
  state: 'pending' | 'answering' | 'answered';
  answeredBy: string | null;
}

/** The questions tab: what waits for someone, then what was answered and by whom. */
export function questionsView(questions: QuestionLine[]): KnownBlock[] {
  const waiting = questions.filter((q) => q.state !== 'answered');
  const answered = questions.filter((q) => q.state === 'answered').slice(-20);
  const line = (q: QuestionLine) =>
    `• ${escapeMrkdwn(truncate(q.prompt, 300))}${q.answeredBy ? ` — answered by <@${q.answeredBy}>` : ''}`;
  return [
    { type: 'header', text: { type: 'plain_text', text: 'Questions', emoji: true } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(
          `*Waiting (${waiting.length})*\n${waiting.length > 0 ? waiting.map(line).join('\n') : '_Nothing waits for anyone._'}`,
          2900,
        ),
      },
    },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(
          `*Answered (${answered.length})*\n${answered.length > 0 ? answered.map(line).join('\n') : '_None yet._'}`,
          2900,
        ),
      },
    },
  ];
}

/** The agent's commands in its channel: the same words as `/agent`, without the session id. */
export const CHANNEL_COMMANDS = [
  { name: 'pause', description: 'Pause the agent' },
  { name: 'resume', description: 'Resume the agent' },
  { name: 'cancel', description: 'Cancel the session' },
  { name: 'redirect', description: 'Give the agent a new direction', argument_hint: '<new direction>' },
  { name: 'budget', description: 'Raise the budget (USD) and go on', argument_hint: '<amount>' },
  // Slack's own /status sets a person's status: the agent's takes another name.
  { name: 'agent-status', description: "The session's state and any question waiting" },
] as const;

/** The report as a canvas: the same words as the report message, as Markdown. */
export function reportMarkdown(goal: string, reportPlain: string): string {
  return `# Report\n\n**Goal:** ${plainSafe(truncate(goal, 2000))}\n\n${reportPlain.replace(/^\*(.+)\*$/m, '**$1**')}\n`;
}

/** The channel's name: Slack derives one from the origin message; ours says what the session is for. */
export function channelName(goal: string): string {
  return truncate(`agent ${goal.replace(/\s+/g, ' ').trim()}`, 80);
}
