/**
 * The service's statuses as Slack's agent session statuses, pure: one Slack status for every status the
 * contract lists, and a choice for every status it doesn't.
 */
import { safeMarkdown } from '../../../blocks/markup.js';
import { shownGoal } from '../../../blocks/session-summary.js';
import { type StatusStage, statusStage } from '../../../blocks/status-words.js';

/** Slack's lifecycle statuses for an agent session (agents.sessions.setStatus). */
export type AgentSessionStatus = 'active' | 'processing' | 'suspended' | 'closed';

/**
 * Slack's status for each stage of the bot's vocabulary (`blocks/status-words.ts`), so the thread's badge
 * and the card say the same word: Running is processing (Slack shows its Stop button), Waiting (a question,
 * a pause, the budget) is suspended, Ended is closed.
 */
const SLACK_STATUS: Record<StatusStage, AgentSessionStatus> = {
  Running: 'processing',
  Waiting: 'suspended',
  Ended: 'closed',
};

/**
 * running, orchestrating, queued → processing; waiting_human, paused, cost_limit → suspended; the
 * terminal statuses and the bot's own ends → closed. A status the contract doesn't list (`thinking`,
 * `planning`…) is the service working — the bot treats it as not terminal and steerable everywhere else —
 * so it is `processing`: Slack then shows the Stop button, which cancels whatever the service is doing.
 */
export function agentStatusOf(serviceStatus: string): AgentSessionStatus {
  return SLACK_STATUS[statusStage(serviceStatus)];
}

/** Slack's title limit for a session (setStatus's `title`, rename's 1–200 characters). */
export const TITLE_MAX = 200;

/**
 * A goal or a new direction as a session's title (without the emulator's `scenario:` word): one line, at most 200 characters, never empty; someone
 * else's words, so unable to ping anyone, and its links showing where they go.
 */
export function sessionTitle(text: string): string {
  const line = safeMarkdown(shownGoal(text).replace(/\s+/g, ' ')).trim();
  if (line === '') return 'Agent session';
  return line.length <= TITLE_MAX ? line : `${line.slice(0, TITLE_MAX - 1)}…`;
}

/**
 * Told privately to whoever started a session in a channel the bot is not in: Slack shows an agent's
 * status and its Stop button only where the app is a member. Written for real Slack (`/invite`, or the
 * channel's Integrations), and said once per channel.
 */
export function notMemberNotice(channelId: string, botUserId: string | undefined): string {
  const me = botUserId ? `<@${botUserId}>` : 'the app';
  return `ℹ️ Your session runs, but <#${channelId}> can't show its status or a Stop button: ${me} is not a member of the channel. To get them for the next session here, add it: type \`/invite\` and pick ${me} in the channel, or open the channel's details → Integrations → Add apps. Meanwhile the card and its thread show where the session is.`;
}
