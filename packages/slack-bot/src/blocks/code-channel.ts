/**
 * What a session's own channel (a Slack code channel) shows: its context bar, its tabs (the plan and its
 * rounds, the questions waiting and answered), its commands, the report as canvas markdown. Pure: state
 * in, Slack's arguments out.
 */
import { isResumable } from '@agent-sessions/core';
import type { KnownBlock, RichTextBlock, TaskCardBlock } from '@slack/types';
import { agentMessageText, type MessageText, RENDER_MAX } from './agent-message.js';
import { safeMarkdown } from './markup.js';
import { type ReportedSession, reportAsMarkdown } from './report.js';
import {
  costText,
  elapsedText,
  roundsText,
  type SessionSummary,
  type SummarySnapshot,
  summaryLine,
  summaryOf,
} from './session-summary.js';
import { statusLabel } from './status-words.js';
import { type StreamPiece, streamPiecesOf, type TaskCall } from './stream-chunks.js';
import { escapeMrkdwn, truncate } from './text.js';

/**
 * What the channel's bar and plan tab are drawn from: the session, its latest snapshot and the time it is
 * drawn at (the elapsed time runs to `now` while it runs and stops at its end).
 */
export interface CodeChannelDisplay {
  sessionId: string;
  goal: string;
  status: string;
  startedBy: string;
  budget: number | null;
  createdAt: string;
  snapshot: (SummarySnapshot & { rounds?: unknown }) | undefined;
  now: number;
}

/** The session's summary as every other view of it reads it (its card, `/agent status`, App Home). */
const summaryOfDisplay = (state: CodeChannelDisplay): SessionSummary =>
  summaryOf(
    { goal: state.goal, status: state.status, budget: state.budget, createdAt: state.createdAt },
    state.snapshot,
    state.now,
  );

/**
 * A context bar item as `agents.conversations.setProperties` takes it. No `icon`: Slack's fixed set
 * (branch, folder, hierarchy…) names none of what the bar says (a status, a cost, rounds, a person).
 */
export interface ContextBarItem {
  key: string;
  label: string;
  item_type: 'info' | 'action';
}

/** The keys of the context bar's action items: a click comes back as `code_channel_action` with its key. */
export const CONTEXT_ACTIONS = { pauseOrResume: 'pause_resume', cancel: 'cancel' } as const;

/** A status in the card's words, without the emoji before them: the bar is words only. */
const statusWords = (status: string): string =>
  statusLabel(status).replace(/^\p{Extended_Pictographic}\uFE0F?\s*/u, '');

/**
 * Status, cost against budget, rounds, who started it; Pause/Resume and Cancel while it runs (5 at most);
 * once ended, how long it ran (the bar is drawn when something changes, so a running time would go
 * stale). The session's summary in words, as the card says them; the starter as a mention. Labels are
 * mrkdwn, as everything the bot writes: a status the bot doesn't know is the service's word, escaped.
 */
export function contextBar(state: CodeChannelDisplay): ContextBarItem[] {
  const summary = summaryOfDisplay(state);
  const { status } = summary;
  const items: ContextBarItem[] = [
    { key: 'status', label: truncate(statusWords(status), 128), item_type: 'info' },
    { key: 'cost', label: `Cost ${costText(summary)}`, item_type: 'info' },
    { key: 'rounds', label: roundsText(summary), item_type: 'info' },
  ];
  if (summary.ended)
    return [
      ...items,
      { key: 'elapsed', label: `Ran ${elapsedText(summary)}`, item_type: 'info' },
      { key: 'started_by', label: `Started by <@${state.startedBy}>`, item_type: 'info' },
    ];
  const resume = isResumable(status);
  return [
    ...items,
    { key: CONTEXT_ACTIONS.pauseOrResume, label: resume ? 'Resume' : 'Pause', item_type: 'action' },
    { key: CONTEXT_ACTIONS.cancel, label: 'Cancel', item_type: 'action' },
  ];
}

/** A round as the service reports it, in one line (its number, status and summary where given). */
function roundLine(round: unknown, index: number): string {
  const r = typeof round === 'object' && round !== null ? (round as Record<string, unknown>) : {};
  const n = typeof r.roundNumber === 'number' ? r.roundNumber : index + 1;
  const status = typeof r.status === 'string' ? ` · ${statusLabel(r.status)}` : '';
  const said = [r.summary, r.title, r.description].find((v) => typeof v === 'string') as string | undefined;
  return `*Round ${n}*${status}${said ? ` — ${escapeMrkdwn(truncate(said, 300))}` : ''}`;
}

/** The plan tab: the goal, the session's summary and who started it, then each round as a task. */
export function planView(state: CodeChannelDisplay): KnownBlock[] {
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
          text: `${summaryLine(summaryOfDisplay(state))} · started by <@${state.startedBy}>`,
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

/**
 * The report as a canvas: the goal and the report in Markdown, through the same rules as every message
 * (no pings, no mention or image syntax, each link showing where it goes).
 */
export function reportCanvas(goal: string, report: ReportedSession): string {
  return `# Report\n\n**Goal:** ${safeMarkdown(truncate(goal.replace(/\s+/g, ' ').trim(), 2000))}\n\n${reportAsMarkdown(report)}\n`;
}

/**
 * The report posted back to the origin thread when the channel is kept open: the report message with a
 * line naming the channel. Laid out as the report is (parts, or a file past RENDER_MAX), never raw.
 */
export function channelSummary(channelId: string, report: MessageText): MessageText {
  const lead = `Summary from <#${channelId}>:\n`;
  return {
    mrkdwn: report.mrkdwn === '' ? '' : `${lead}${report.mrkdwn}`,
    plain: `${lead}${report.plain}`,
  };
}

/** Slack's rule for channel names: lowercase letters, digits, hyphens and underscores, at most 80. */
export const CHANNEL_NAME_MAX = 80;

/**
 * The channel's name, from the goal: lowercase, each run of anything but letters and digits one hyphen
 * (accents dropped, so "Café" is "cafe"), cut at a word's end within Slack's 80 characters.
 */
export function channelName(goal: string): string {
  const words = goal
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const name = `agent-${words}`.replace(/-+$/, '');
  if (name.length <= CHANNEL_NAME_MAX) return name;
  const cut = name.slice(0, CHANNEL_NAME_MAX + 1);
  const end = cut.lastIndexOf('-');
  return (end > 'agent'.length ? cut.slice(0, end) : cut.slice(0, CHANNEL_NAME_MAX)).replace(/-+$/, '');
}

/** Cards in one message at most: Slack takes 50 blocks, and the words and a part label need room. */
const CARDS_MAX = 20;

const richText = (text: string): RichTextBlock => ({
  type: 'rich_text',
  elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }],
});

/**
 * A stream piece's tool result as the thread's stream shows its call once done: one task card, the call's
 * arguments (when `calls` knows it) as details, what it returned as output. Its calls are kept in `calls`
 * until then: a card that said "in progress" would stay so, a channel's posts not being a stream.
 */
function cardsOf(piece: StreamPiece, calls: Map<string, TaskCall>): TaskCardBlock[] {
  for (const call of piece.calls ?? []) calls.set(call.id, call);
  const { result } = piece;
  if (!result) return [];
  const call = calls.get(result.id);
  calls.delete(result.id);
  return [
    {
      type: 'task_card',
      task_id: result.id.slice(0, 255),
      title: call?.title ?? result.title,
      status: result.failed ? 'error' : 'complete',
      ...(call?.details ? { details: richText(call.details) } : {}),
      ...(result.output ? { output: richText(result.output) } : {}),
    },
  ];
}

/**
 * An agent message in its session's channel, shown as its thread's stream shows it (a channel has no
 * streams: they reply in threads): its words as Markdown, each tool call a task card once its result
 * comes, from the same pieces and the same rules as the stream. `calls` holds the session's calls
 * waiting for their result. `plain` is the classic text, for a file past RENDER_MAX. Undefined when
 * there is nothing to show yet (only tool calls, shown with their results).
 */
export function channelMessageText(
  message: Record<string, unknown>,
  options: { showReasoning: boolean; fallbackId: string },
  calls: Map<string, TaskCall> = new Map(),
): MessageText | undefined {
  const text = agentMessageText(message, options);
  if (!text || text.plain.length > RENDER_MAX) return text;
  const pieces = streamPiecesOf(message, options);
  const cards = pieces.flatMap((piece) => cardsOf(piece, calls));
  const shown = cards.slice(0, CARDS_MAX);
  const more = cards.length - shown.length;
  const words = pieces
    .map((p) => p.markdown ?? '')
    .join('')
    .trim();
  const markdown = more > 0 ? `${words}\n\n_(${more} more tool results not shown as cards)_`.trim() : words;
  if (markdown === '' && shown.length === 0) return undefined;
  return { ...text, markdown, trailer: shown };
}
