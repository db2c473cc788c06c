import { isSuccessStatus } from '@agent-sessions/core';
import type { ContextActionsBlock } from '@slack/types';
import { type MessageText, RENDER_MAX, safeMrkdwn } from './agent-message.js';
import { ACTIONS } from './ids.js';
import { safeMarkdown } from './markup.js';
import { statusLabel, totalCostOf } from './session-card.js';
import { formatUsd } from './text.js';

const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** A session as its report is written: its status, report, error, cost and rounds. */
export interface ReportedSession {
  status: string;
  error?: unknown;
  completionReport?: unknown;
  cost?: unknown;
  rounds?: unknown;
}

/** How one dialect writes the report: someone else's text made safe, emphasis, a fenced block. */
interface ReportDialect {
  esc: (s: string) => string;
  bold: (s: string) => string;
  italic: (s: string) => string;
  fence: (s: string) => string;
}

const fenced = (s: string) => `\`\`\`${s}\`\`\``;
const MRKDWN: ReportDialect = {
  esc: safeMrkdwn,
  bold: (s) => `*${s}*`,
  italic: (s) => `_${s}_`,
  fence: fenced,
};
const PLAIN: ReportDialect = { ...MRKDWN, esc: (s) => s };
/** Standard Markdown (a canvas): a fence on its own lines, as CommonMark reads one. */
const MARKDOWN: ReportDialect = {
  esc: safeMarkdown,
  bold: (s) => `**${s}**`,
  italic: (s) => `_${s}_`,
  fence: (s) => `\n\`\`\`\n${s}\n\`\`\``,
};

/** The report's lines in one dialect (any shape: summary and details when it has them, else JSON). */
function reportLines(session: ReportedSession, d: ReportDialect): string {
  // The status's label is mrkdwn: escaped where unknown, so made safe again for Markdown.
  const label = d === MARKDOWN ? safeMarkdown(statusLabel(session.status)) : statusLabel(session.status);
  const lines: string[] = [d.bold(label)];
  const report = session.completionReport;
  if (report !== null && report !== undefined) {
    if (typeof report === 'object' && !Array.isArray(report)) {
      const fields: Record<string, unknown> = { ...report };
      const { summary, details, ...rest } = fields;
      if (summary !== undefined) lines.push(d.esc(asText(summary)));
      if (Array.isArray(details)) for (const item of details) lines.push(`• ${d.esc(asText(item))}`);
      const extra = Object.entries(rest).filter(([k]) => k !== 'rounds' && k !== 'totalCost');
      if (summary === undefined && !Array.isArray(details)) {
        lines.push(d.fence(d.esc(JSON.stringify(report, null, 2))));
      } else if (extra.length > 0) {
        lines.push(d.fence(d.esc(JSON.stringify(Object.fromEntries(extra), null, 2))));
      }
    } else lines.push(typeof report === 'string' ? d.esc(report) : d.fence(d.esc(asText(report))));
  }
  if (typeof session.error === 'string' && session.error) lines.push(`Error: ${d.esc(session.error)}`);
  else if (!isSuccessStatus(session.status) && session.status !== 'cancelled' && !session.error) {
    lines.push('The service gave no error message.');
  }
  const cost = totalCostOf(session);
  const rounds = Array.isArray(session.rounds) ? session.rounds.length : undefined;
  const facts = [
    typeof cost === 'number' ? `cost ${formatUsd(cost)}` : undefined,
    rounds === undefined ? undefined : `${rounds} round${rounds === 1 ? '' : 's'}`,
  ].filter(Boolean);
  if (facts.length > 0) lines.push(d.italic(facts.join(' · ')));
  return lines.join('\n');
}

/**
 * The closing message of a session's thread: its completion report, or the error, with the final cost.
 * Past RENDER_MAX it is not rendered: `mrkdwn` is empty and the report goes out as a file.
 */
export function finalReport(session: ReportedSession): MessageText {
  const plain = reportLines(session, PLAIN);
  const mrkdwn = plain.length > RENDER_MAX ? '' : reportLines(session, MRKDWN);
  return { mrkdwn, plain, trailer: [feedbackButtons()] };
}

/**
 * The report in standard Markdown, for a canvas: the same rules as every other path (no pings, each link
 * showing where it goes). Past RENDER_MAX, its first RENDER_MAX characters and where the whole text is.
 */
export function reportAsMarkdown(session: ReportedSession): string {
  const plain = reportLines(session, PLAIN);
  if (plain.length <= RENDER_MAX) return reportLines(session, MARKDOWN);
  const more = (plain.length - RENDER_MAX).toLocaleString('en-US');
  return `${safeMarkdown(plain.slice(0, RENDER_MAX))}…\n\n_(${more} more characters: the whole report is the file posted with it)_`;
}

/** Slack's 👍/👎 under the report; a press arrives as a block action (ACTIONS.feedback) with its value. */
export const FEEDBACK_VALUES = { good: 'good', bad: 'bad' } as const;

export function feedbackButtons(): ContextActionsBlock {
  return {
    type: 'context_actions',
    block_id: 'session_feedback',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: ACTIONS.feedback,
        positive_button: {
          text: { type: 'plain_text', text: '👍' },
          value: FEEDBACK_VALUES.good,
          accessibility_label: 'This session went well',
        },
        negative_button: {
          text: { type: 'plain_text', text: '👎' },
          value: FEEDBACK_VALUES.bad,
          accessibility_label: 'This session went badly',
        },
      },
    ],
  };
}

/** A request the bot could not turn into a prompt: shown with its raw content, never dropped. */
export function unreadableRequest(reason: string, raw: unknown): MessageText {
  const body = typeof raw === 'string' ? raw : JSON.stringify(raw, null, 2);
  const both = (f: (s: string) => string) =>
    `⚠️ The agent asked for input in a form this bot can't read (${f(reason)}). Answer it with the API or the n8n node; the request as sent:\n\`\`\`${f(body ?? '')}\`\`\``;
  const plain = both((s) => s);
  return { mrkdwn: plain.length > RENDER_MAX ? '' : both(safeMrkdwn), plain };
}
