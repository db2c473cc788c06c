/**
 * What following needs of a client: two reads. `AgentSessionsClient` satisfies it; keeping it this narrow
 * lets one follower serve several API keys (one client each) and keeps the scheduler testable.
 */
export interface FollowedSession {
  sessionId: string;
  status: string;
  updatedAt?: unknown;
  completedAt?: unknown;
  rounds?: unknown[] | null;
  error?: string | null;
  [key: string]: unknown;
}

export interface FollowedMessage {
  roundId: string;
  [key: string]: unknown;
}

export interface FollowedMessagesPage {
  messages: FollowedMessage[];
  pagination: { count?: number; hasMore: boolean; lastRoundId: string | null };
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** The follower owns retries (a 429 pauses the whole key), so it asks the client for none. */
  maxRetries?: number;
}

export interface SessionsReader {
  sessions: {
    get(sessionId: string, options?: ReadOptions): Promise<FollowedSession>;
    messages(
      sessionId: string,
      query?: { limit?: number; after?: string },
      options?: ReadOptions,
    ): Promise<FollowedMessagesPage>;
  };
}
