/** What the session publisher is given: the store, Slack's posting parts, and the policies it shows. */
import type { FollowedSession, HumanInputRequest } from '@agent-sessions/core';
import type { Logger } from '../../logger.js';
import type { FinalCardRepository } from '../../store/final-cards.js';
import type { PostRepository } from '../../store/posts.js';
import type { PromptRepository } from '../../store/prompts.js';
import type { SessionRecord } from '../../store/records.js';
import type { SessionRepository } from '../../store/sessions.js';
import type { BotMetrics } from '../ops/metrics.js';
import type { StreamPoster } from '../slack-out/agent-surface/index.js';
import type { OutboundQueue, SlackClient } from '../slack-out/outbound/index.js';
import type { CardUpdater, PostOwner, ThreadPoster } from '../slack-out/thread/index.js';

export interface SessionPublisherDeps {
  store: {
    sessions: Pick<SessionRepository, 'get' | 'update'>;
    prompts: Pick<PromptRepository, 'get' | 'save'>;
    posts: Pick<PostRepository, 'withPrefix' | 'unsentSessions'>;
    /** Final card edits owed (absent: an edit that fails stays undone). */
    finalCards?: Pick<FinalCardRepository, 'record' | 'owed' | 'owedSessions' | 'sent'>;
  };
  /**
   * Who sends a session's posts here (its lease, or its claim once finished), shared with the posters;
   * it also tells of posts that found their channel closed to the bot.
   */
  owner: PostOwner;
  poster: ThreadPoster;
  /** The queue the bot's own edits and DMs wait in, first in their channel. */
  outbound: OutboundQueue;
  /** The agent surface's streams: where the agent's work goes while a session's surface is `agent`. */
  streams?: StreamPoster;
  cards: CardUpdater;
  metrics: BotMetrics;
  logger: Logger;
  slack: SlackClient;
  showReasoning: boolean;
  /** Who may answer a question (the approval policy's line), shown on its prompt. */
  answerers?: (session: SessionRecord, request: HumanInputRequest) => string | undefined;
  /** The latest decision recorded on a session (the audit), for the card's footer. */
  latestDecision?: (sessionId: string) => Promise<string | undefined>;
  /** A follow error that is about the session's key: dealt with there (true), not as a lost session. */
  keyProblem?: (session: SessionRecord, error: Error) => Promise<boolean>;
  /** Sessions with a channel of their own (code channels): shown there as on the card, ended there. */
  codeChannels?: SessionCodeChannels;
  /** A session's state, question or end changed: the Home tabs of its workspace may show it. */
  homeChanged?: () => void;
  /** Runs a session's work as its workspace's (its token, its budgets). */
  inSession?: <T>(sessionId: string, fn: () => Promise<T>) => Promise<T>;
}

/** What a session's own channel is told: the card's state as it is drawn, and the end once the report is out. */
export interface SessionCodeChannels {
  /** The card is being drawn (its coalesced edit): the channel shows the same state. */
  shown(session: SessionRecord, snapshot: FollowedSession | undefined): void;
  /** The report is out (`reportTs` in the channel): its canvas, then the channel archived or kept open. */
  finished(session: SessionRecord, reportTs: string | undefined, report: FollowedSession): Promise<void>;
}
