import type { SlackClient } from './slack.js';

/** Who the bot is in Slack, as auth.test tells it. */
export interface BotIdentity {
  /** The bot user (`U…`): the author of what it posts and uploads. */
  userId?: string;
  /** The bot (`B…`): set on every message it posts. */
  botId?: string;
  /** Its workspace, and its Enterprise Grid organisation when it has one. */
  teamId?: string;
  enterpriseId?: string;
}

/**
 * auth.test, asked once and remembered; asked again after a failure, so a moment without Slack does not
 * leave the bot not knowing itself for the rest of its life.
 */
export function botIdentity(slack: Pick<SlackClient, 'auth'>): () => Promise<BotIdentity> {
  let known: Promise<BotIdentity> | undefined;
  return () => {
    known ??= slack.auth.test().then(
      (me) => ({
        ...(me.user_id ? { userId: me.user_id } : {}),
        ...(me.bot_id ? { botId: me.bot_id } : {}),
        ...(me.team_id ? { teamId: me.team_id } : {}),
        ...(me.enterprise_id ? { enterpriseId: me.enterprise_id } : {}),
      }),
      (error: unknown) => {
        known = undefined;
        throw error;
      },
    );
    return known;
  };
}

/**
 * Whether a message (or the file it shares) is the bot's own: posted by its bot id or its user. Anyone in a
 * channel can post a message carrying our metadata, or a file with the name we would give it; taken as
 * ours after a crash, such a message would stop the bot from posting what it never posted.
 */
export function isOwnMessage(message: { user?: string; bot_id?: string }, self: BotIdentity): boolean {
  if (self.botId !== undefined && message.bot_id === self.botId) return true;
  return self.userId !== undefined && message.user === self.userId;
}
