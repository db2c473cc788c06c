import { isSuccessStatus } from '@agent-sessions/core';
import type { ContextActionsBlock } from '@slack/types';
import { type MessageText, RENDER_MAX, safeMrkdwn } from './agent-message.js';
import { ACTIONS } from './ids.js';
import { statusLabel, totalCostOf } from './session-card.js';
import { formatUsd } from './text.js';

const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/**
 * The closing message of a session's thread: its completion report (any shape: summary and details when
 * it has them, else the whole report as JSON), or the error, with the final cost.
 */
export function finalReport(session: {
  status: string;
  error?: unknown;
  completionReport?: unknown;
  cost?: unknown;
  rounds?: unknown;
}): MessageText {
  const both = (f: (s: string) => string) => {
    const lines: string[] = [`*${statusLabel(session.status)}*`];
    const report = session.completionReport;
    if (report !== null && report !== undefined) {
      if (typeof report === 'object' && !Array.isArray(report)) {
        const fields: Record<string, unknown> = { ...report };
        const { summary, details, ...rest } = fields;
        if (summary !== undefined) lines.push(f(asText(summary)));
        if (Array.isArray(details)) for (const d of details) lines.push(`• ${f(asText(d))}`);
        const extra = Object.entries(rest).filter(([k]) => k !== 'rounds' && k !== 'totalCost');
        if (summary === undefined && !Array.isArray(details)) {
          lines.push(`\`\`\`${f(JSON.stringify(report, null, 2))}\`\`\``);
        } else if (extra.length > 0) {
          lines.push(`\`\`\`${f(JSON.stringify(Object.fromEntries(extra), null, 2))}\`\`\``);
        }
      } else lines.push(typeof report === 'string' ? f(report) : `\`\`\`${f(asText(report))}\`\`\``);
    }
    if (typeof session.error === 'string' && session.error) lines.push(`Error: ${f(session.error)}`);
    else if (!isSuccessStatus(session.status) && session.status !== 'cancelled' && !session.error) {
      lines.push('The service gave no error message.');
    }
    const cost = totalCostOf(session);
    const rounds = Array.isArray(session.rounds) ? session.rounds.length : undefined;
    const facts = [
      typeof cost === 'number' ? `cost ${formatUsd(cost)}` : undefined,
      rounds === undefined ? undefined : `${rounds} round${rounds === 1 ? '' : 's'}`,
    ].filter(Boolean);
    if (facts.length > 0) lines.push(`_${facts.join(' · ')}_`);
    return lines.join('\n');
  };
  const plain = both((s) => s);
  // Past the cap it goes out as a file, unrendered (see RENDER_MAX).
  return { mrkdwn: plain.length > RENDER_MAX ? '' : both(safeMrkdwn), plain, trailer: [feedbackButtons()] };
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
