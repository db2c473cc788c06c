/**
 * The one vocabulary of a session's status. Each status has one label, and every label begins with the
 * word of its stage (Running, Waiting, Ended), the word Slack's own badge on the session's thread shows
 * for that stage: a person reads the same word on the card, in the thread, on App Home and in a code
 * channel.
 */
import { isTerminalStatus, needsPerson } from '@agent-sessions/core';
import { escapeMrkdwn } from './text.js';

/**
 * Not a service status: the bot's own, for a session the service stopped showing us (403/404). The
 * card and App Home show it as ended.
 */
export const UNREACHABLE_STATUS = 'unreachable';

/** The bot's own too: Slack refused every post in the session's channel (not_in_channel, archived…). */
export const CANT_POST_STATUS = 'cant_post_here';

/** A session's stage: what Slack's agent session status says, in the words people read everywhere. */
export type StatusStage = 'Running' | 'Waiting' | 'Ended';

const STATUS_LABEL: Record<string, string> = {
  [UNREACHABLE_STATUS]: '⚠️ Ended · No longer followed',
  [CANT_POST_STATUS]: "⚠️ Ended · The bot can't post in this channel any more: see `/agent status`",
  queued: '⏳ Running · Queued',
  orchestrating: '🧭 Running · Planning',
  running: '⚙️ Running',
  waiting_human: '🙋 Waiting for an answer',
  paused: '⏸️ Waiting · Paused',
  cost_limit: '💸 Waiting · Budget reached',
  completed: '✅ Ended · Completed',
  complete: '✅ Ended · Completed',
  cancelled: '🛑 Ended · Cancelled',
  error: '❌ Ended · Failed',
  failed: '❌ Ended · Failed',
};

/** Over: the service's terminal statuses (core's set) and the bot's own ends. */
export const isEndedStatus = (status: string): boolean =>
  isTerminalStatus(status) || status === UNREACHABLE_STATUS || status === CANT_POST_STATUS;

/**
 * The stage of a status. One the contract doesn't list (`thinking`…) is the service working: the bot
 * treats it as not ended and steerable everywhere.
 */
export function statusStage(status: string): StatusStage {
  if (isEndedStatus(status)) return 'Ended';
  if (needsPerson(status)) return 'Waiting';
  return 'Running';
}

/** A status as people read it, in mrkdwn: one the bot doesn't know is the service's word, escaped. */
export const statusLabel = (status: string): string =>
  (Object.hasOwn(STATUS_LABEL, status) ? STATUS_LABEL[status] : undefined) ??
  `❔ ${statusStage(status)} · ${escapeMrkdwn(status)}`;
