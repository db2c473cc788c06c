/**
 * The service's statuses as Slack's agent session statuses, pure: one Slack status for every status the
 * contract lists, and a choice for every status it doesn't.
 */
import { safeMarkdown } from '../../../blocks/markup.js';
import { CANT_POST_STATUS, UNREACHABLE_STATUS } from '../../../blocks/session-card.js';

/** Slack's lifecycle statuses for an agent session (agents.sessions.setStatus). */
export type AgentSessionStatus = 'active' | 'processing' | 'suspended' | 'closed';

const PROCESSING = new Set(['running', 'orchestrating', 'queued']);
/** A person is needed (a question, a pause someone made, the budget): Slack shows it as suspended. */
const SUSPENDED = new Set(['waiting_human', 'paused', 'cost_limit']);
/**
 * Over, both spellings of the contract's terminal statuses, and the bot's own ends: a channel that refused
 * the session, a session the service no longer lets us see.
 */
const CLOSED = new Set([
  'completed',
  'complete',
  'failed',
  'error',
  'cancelled',
  'canceled',
  CANT_POST_STATUS,
  UNREACHABLE_STATUS,
]);

/**
 * running, orchestrating, queued → processing; waiting_human, paused, cost_limit → suspended; the
 * terminal statuses → closed. A status the contract doesn't list (`thinking`, `planning`…) is the service
 * working — the bot treats it as not terminal and steerable everywhere else — so it is `processing`: Slack
 * then shows the Stop button, which cancels whatever the service is doing.
 */
export function agentStatusOf(serviceStatus: string): AgentSessionStatus {
  if (SUSPENDED.has(serviceStatus)) return 'suspended';
  if (CLOSED.has(serviceStatus)) return 'closed';
  if (PROCESSING.has(serviceStatus)) return 'processing';
  return 'processing';
}

/** Slack's title limit for a session (setStatus's `title`, rename's 1–200 characters). */
export const TITLE_MAX = 200;

/**
 * A goal or a new direction as a session's title: one line, at most 200 characters, never empty; someone
 * else's words, so unable to ping anyone, and its links showing where they go.
 */
export function sessionTitle(text: string): string {
  const line = safeMarkdown(text.replace(/\s+/g, ' ')).trim();
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
