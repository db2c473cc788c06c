import type { KnownBlock } from '@slack/types';
import type { SessionRecord } from '../../../store/records.js';

/** Where a post goes: a session's channel, under its card (no card: at the top, a DM or escalation). */
export type Place = Pick<SessionRecord, 'sessionId' | 'channelId' | 'cardTs'>;

/**
 * A session's place worked out from its record: not the record, since its channel and thread may be
 * other than the record's (a code channel's, a mention's thread). Who started the session comes along (a
 * stream's recipient), and whether the place is a channel of its own.
 */
export interface SessionPlace extends Place {
  startedBy: string;
  /** A channel of its own (a code channel): the place is its top, and its messages are shown as there. */
  codeChannelId: string | null;
}

/**
 * Where a session's messages go: the thread its card is in — a mention's thread when the card is a reply
 * there, else the card's own. Slack threads only under a thread's parent, never under a reply. A session
 * with a channel of its own (a code channel) posts there, at the top of the channel (no thread).
 */
export function threadPlace(
  session: Place &
    Pick<SessionRecord, 'threadTs' | 'codeChannelId'> &
    Partial<Pick<SessionRecord, 'startedBy'>>,
): SessionPlace {
  const { sessionId, startedBy = '', codeChannelId = null } = session;
  if (codeChannelId) return { sessionId, startedBy, codeChannelId, channelId: codeChannelId, cardTs: null };
  const cardTs = session.threadTs || session.cardTs;
  return { sessionId, startedBy, codeChannelId, channelId: session.channelId, cardTs };
}

export interface ThreadMessage {
  text: string;
  blocks?: KnownBlock[];
}

/** Slack will take nothing from us in this channel: following the session there is pointless. */
export const CHANNEL_GONE_ERRORS = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);
/** Slack refused what we sent, not where: the same content, shaped differently, gets through. */
export const CONTENT_ERRORS = new Set(['invalid_blocks', 'msg_blocks_too_long', 'msg_too_long']);

export class CannotPostHereError extends Error {
  override name = 'CannotPostHereError';
  constructor(
    readonly channelId: string,
    readonly code: string,
  ) {
    super(`Slack refused to post in ${channelId}: ${code}`);
  }
}

/** A post this process no longer makes: the session's lease went to another replica, which posts it. */
export class PostWithdrawnError extends Error {
  override name = 'PostWithdrawnError';

  /** The session's lease is another replica's now. */
  static moved(sessionId: string): PostWithdrawnError {
    return new PostWithdrawnError(`session ${sessionId} is followed by another replica now`);
  }
}
