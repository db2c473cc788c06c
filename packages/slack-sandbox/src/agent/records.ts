/**
 * What the sandbox keeps of Slack's agent surfaces: agent sessions (a thread's status, title and
 * initiator), streaming messages (their chunks as Slack received them), suggested prompts and titles of
 * agent-view threads, and the Stop clicks. Field names follow Slack's where Slack has them.
 */

/** `agents.sessions.setStatus`'s statuses. */
export const SESSION_STATUSES = ['active', 'processing', 'suspended', 'closed'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/**
 * How the workspace answers the agent methods:
 * - `on`: the app is declared an agent in a workspace that has agent sessions (Slack today);
 * - `off`: it is not (or the workspace lacks the feature): `agents.sessions.*` answer `feature_disabled`,
 *   `assistant.threads.setSuggestedPrompts` `not_agent_app`, the other `assistant.threads.*`
 *   `missing_scope` (needed `assistant:write`); streaming, which every app has, still works;
 * - `unknown`: a Slack that has none of these methods: each answers `unknown_method`.
 */
export const AGENT_FEATURE_MODES = ['on', 'off', 'unknown'] as const;
export type AgentFeatureMode = (typeof AGENT_FEATURE_MODES)[number];

/** The methods a Slack without the agent platform does not know (mode `unknown`). */
export const AGENT_METHODS = [
  'agents.sessions.setStatus',
  'agents.sessions.rename',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
  'assistant.threads.setSuggestedPrompts',
  'assistant.threads.setTitle',
  'assistant.threads.setStatus',
] as const;

/** One change of a session's status, oldest first. */
export interface StatusChange {
  status: SessionStatus;
  /** ISO 8601. */
  at: string;
  /** Which call set it. */
  via: 'agents.sessions.setStatus' | 'chat.stopStream';
}

/** A thread-scoped agent session, keyed by its channel and the thread's root ts. */
export interface AgentSessionRecord {
  channel: string;
  threadTs: string;
  status: SessionStatus;
  title?: string;
  /** `initiator_user_id`, as given when the session was created. */
  initiator?: string;
  /** `icon_emoji` / `icon_url` / `username`, in effect until cleared with null. */
  icon_emoji?: string;
  icon_url?: string;
  username?: string;
  history: StatusChange[];
  /** Each title the session had through agents.sessions.rename, oldest first. */
  renames: string[];
}

export const TASK_STATUSES = ['pending', 'in_progress', 'complete', 'error'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface UrlSource {
  type: 'url';
  url: string;
  text: string;
}

/** A task as its `task_update` chunks left it (a later update with the same id replaces its fields). */
export interface StreamTask {
  id: string;
  title: string;
  status: TaskStatus;
  details?: string;
  output?: string;
  sources?: UrlSource[];
  /** Every status it went through, in order (tests read this to see tasks tick). */
  statuses: TaskStatus[];
}

/** The parts of a streamed message in the order they arrived. */
export type StreamPart =
  | { kind: 'text'; text: string }
  | { kind: 'task'; id: string }
  | { kind: 'blocks'; blocks: unknown[] };

/**
 * `in_progress` while it takes appends; `stopped_by_user` after a person clicked Stop (appends are
 * refused, chat.stopStream still closes it); `completed` after chat.stopStream.
 */
export type StreamState = 'in_progress' | 'stopped_by_user' | 'completed';

export interface StreamRecord {
  channel: string;
  /** The streamed message's own ts. */
  ts: string;
  threadTs: string;
  state: StreamState;
  /**
   * What the stream was first fed with (its start, or the first call that brought content): later calls
   * must use the same (`streaming_mode_mismatch`). Unset while none has.
   */
  mode?: 'markdown_text' | 'chunks';
  displayMode: 'timeline' | 'plan';
  recipientUserId?: string;
  recipientTeamId?: string;
  parts: StreamPart[];
  tasks: StreamTask[];
  planTitle?: string;
  /** chat.stopStream's `blocks`, shown after everything else. */
  finalBlocks: unknown[];
  /** How many calls fed it (start, appends, stop). */
  calls: number;
}

export interface SuggestedPrompt {
  title: string;
  message: string;
}

/** `assistant.threads.setSuggestedPrompts` for a conversation (threadTs absent: the conversation's own). */
export interface SuggestedPromptsRecord {
  channel: string;
  threadTs?: string;
  title?: string;
  prompts: SuggestedPrompt[];
}

/** An agent-view thread's title and loading status (assistant.threads.setTitle / setStatus). */
export interface AssistantThreadRecord {
  channel: string;
  threadTs: string;
  title?: string;
  status?: string;
  loadingMessages?: string[];
}

/** A person clicked Slack's Stop button on a processing session. */
export interface StopClick {
  channel: string;
  threadTs: string;
  user: string;
  /** The streams Slack stopped with the click (the event's `streaming_message_ts`). */
  streamingMessageTs: string[];
  at: string;
}
