import { isSuccessStatus } from '@agent-sessions/core';
import type { MessageText } from './agent-message.js';
import { statusLabel } from './session-card.js';
import { escapeMrkdwn, formatUsd } from './text.js';

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
        const { summary, details, ...rest } = report as Record<string, unknown>;
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
    const cost = (session.cost as { totalCost?: unknown } | undefined)?.totalCost;
    const rounds = Array.isArray(session.rounds) ? session.rounds.length : undefined;
    const facts = [
      typeof cost === 'number' ? `cost ${formatUsd(cost)}` : undefined,
      rounds === undefined ? undefined : `${rounds} round${rounds === 1 ? '' : 's'}`,
    ].filter(Boolean);
    if (facts.length > 0) lines.push(`_${facts.join(' · ')}_`);
    return lines.join('\n');
  };
  return { mrkdwn: both(escapeMrkdwn), plain: both((s) => s) };
}

/** A request the bot could not turn into a prompt: shown with its raw content, never dropped. */
export function unreadableRequest(reason: string, raw: unknown): MessageText {
  const body = typeof raw === 'string' ? raw : JSON.stringify(raw, null, 2);
  const both = (f: (s: string) => string) =>
    `⚠️ The agent asked for input in a form this bot can't read (${f(reason)}). Answer it with the API or the n8n node; the request as sent:\n\`\`\`${f(body ?? '')}\`\`\``;
  return { mrkdwn: both(escapeMrkdwn), plain: both((s) => s) };
}
