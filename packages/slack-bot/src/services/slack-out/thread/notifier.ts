import type { Follower } from '@agent-sessions/core';
import type { Logger } from '../../../logger.js';
import type { LeaseRepository } from '../../../store/leases.js';
import type { SessionRecord } from '../../../store/records.js';
import type { OutboundQueue, SlackChat } from '../outbound/index.js';
import { threadPlace } from './thread-place.js';

/** The small things every service does after acting: tell a person privately, note in the thread, poke. */
export class Notifier {
  constructor(
    private readonly deps: {
      slack: SlackChat<'postEphemeral' | 'postMessage'>;
      follower: Pick<Follower, 'poke'>;
      leases: Pick<LeaseRepository, 'poke'>;
      logger: Logger;
      /** Paces these with the bot's other posts (answers and refusals go first in their channel). */
      outbound?: OutboundQueue;
    },
  ) {}

  #run<T>(
    channel: string,
    method: 'chat.postMessage' | 'chat.postEphemeral',
    run: () => Promise<T>,
  ): Promise<T> {
    const { outbound } = this.deps;
    return outbound ? outbound.run({ channel, priority: 'urgent', method, run }) : run();
  }

  /** Only `userId` sees it; where the bot can't post (often why it failed) it goes to the app's DM. */
  async tell(channelId: string, userId: string, text: string): Promise<void> {
    const { slack, logger } = this.deps;
    await this.#run(channelId, 'chat.postEphemeral', () =>
      slack.chat.postEphemeral({ channel: channelId, user: userId, text }),
    )
      .catch(() =>
        this.#run(userId, 'chat.postMessage', () => slack.chat.postMessage({ channel: userId, text })),
      )
      .catch((error: unknown) => logger.warn({ err: error, userId }, 'could not tell a person privately'));
  }

  /** A line in the session's thread (who did what). */
  async note(
    session: Pick<SessionRecord, 'sessionId' | 'channelId' | 'cardTs' | 'threadTs' | 'codeChannelId'>,
    text: string,
  ): Promise<void> {
    // The card's thread, or the session's own channel (at its top).
    const { channelId, cardTs: thread } = threadPlace(session);
    if (!thread && !session.codeChannelId) return;
    try {
      await this.#run(channelId, 'chat.postMessage', () =>
        this.deps.slack.chat.postMessage({
          channel: channelId,
          ...(thread ? { thread_ts: thread } : {}),
          text,
        }),
      );
    } catch (error) {
      this.deps.logger.warn(
        { err: error, sessionId: session.sessionId },
        'could not post a note in the thread',
      );
    }
  }

  /** After acting: poll the session at once so the card and thread catch up. */
  refresh(sessionId: string): void {
    // Followed by another replica (or not yet): it picks the poke up from the store.
    if (this.deps.follower.poke(sessionId)) return;
    this.deps.leases.poke(sessionId).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, sessionId }, 'could not poke a session');
    });
  }
}
