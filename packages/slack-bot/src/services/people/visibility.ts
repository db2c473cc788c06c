import { escapeMrkdwn } from '../../blocks/text.js';
import type { SessionRecord } from '../../store/records.js';
import { isDirectConversation } from './policy.js';

/** Reads the same list as acting: who is in a channel (from Slack, kept a while) and who approves. */
export interface VisibilitySources {
  members: {
    includes(channelId: string, userId: string): Promise<boolean>;
    /** Whether someone is in the channel at all; undefined when Slack can't tell. */
    inChannel?(channelId: string, userId: string): Promise<boolean | undefined>;
  };
  approvers: { includes(userId: string): Promise<boolean> };
}

/**
 * Who may see a session — its card, live numbers, waiting questions and history: whoever started it, the
 * approvers, and, for a session started in a channel, that channel's members (people of another
 * organisation in a Slack Connect channel excepted). A session started in a DM is its starter's and the
 * approvers'. Whatever AGENT_APPROVAL_POLICY says about acting, reading follows this one rule.
 */
export class SessionVisibility {
  constructor(private readonly sources: VisibilitySources) {}

  async maySee(userId: string, session: Pick<SessionRecord, 'startedBy' | 'channelId'>): Promise<boolean> {
    if (userId === session.startedBy) return true;
    if (await this.sources.approvers.includes(userId)) return true;
    if (isDirectConversation(session.channelId)) return false;
    return this.sources.members.includes(session.channelId, userId);
  }

  /**
   * Whether someone is in a channel, for starting a session there: a person starts one only where Slack
   * would let them post. Undefined when Slack can't tell (posting the card then decides); a DM is theirs.
   */
  async inChannel(userId: string, channelId: string): Promise<boolean | undefined> {
    if (isDirectConversation(channelId)) return true;
    return this.sources.members.inChannel?.(channelId, userId);
  }
}

/** The one answer for a session that doesn't exist and one the asker may not see: nothing tells them apart. */
export const notVisible = (sessionId: string): string =>
  `There is no session \`${escapeMrkdwn(sessionId)}\` that you can see.`;
