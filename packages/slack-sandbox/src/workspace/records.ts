/** What the sandbox's Slack workspace holds, in Slack's own field names, and the changes it announces. */

export interface SandboxUser {
  id: string;
  name: string;
  real_name: string;
  is_bot: boolean;
  team_id: string;
  tz: string;
  profile: { display_name: string; real_name: string };
  /** A workspace admin or owner there, as users.info says (absent: neither). */
  is_admin?: boolean;
  is_owner?: boolean;
  /**
   * Deactivated by an admin: Slack keeps the account, users.info still answers with `deleted: true`,
   * and conversations.members still lists them in the channels they were in.
   */
  deleted?: boolean;
}

export interface SandboxChannel {
  id: string;
  name: string;
  is_private: boolean;
  is_im: boolean;
  /** Whether the bot is in it. Public channels take its posts anyway (chat:write.public); private ones don't. */
  is_member: boolean;
  /** Slack Connect: the channel is shared with another organisation (listed there under the same id). */
  is_ext_shared?: boolean;
  /** Archived (a code channel at its session's end): it takes no more posts. */
  is_archived?: boolean;
}

export interface SandboxMessage {
  type: 'message';
  channel: string;
  ts: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  reply_count?: number;
  edited?: { user: string; ts: string };
  files?: SandboxFile[];
  /** Slack message metadata ({event_type, event_payload}), as the bot sent it. */
  metadata?: unknown;
  /** Emoji reactions, as Slack lists them on a message. */
  reactions?: SandboxReaction[];
  /** A person's message: the id their Slack client gave it. */
  client_msg_id?: string;
  /** A system message's kind (`channel_join`, `channel_leave`) and who invited the one joining. */
  subtype?: string;
  inviter?: string;
  /** A streamed message (chat.startStream): `in_progress`, `stopped_by_user` or `completed`. */
  streaming_state?: 'in_progress' | 'stopped_by_user' | 'completed';
}

export interface SandboxReaction {
  name: string;
  users: string[];
  count: number;
}

export interface SandboxEphemeral {
  channel: string;
  user: string;
  ts: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  /** Where it came from: chat.postEphemeral, a response_url, or Slack itself (Slackbot's notices). */
  via: 'api' | 'response_url' | 'slack';
}

export interface SandboxView {
  id: string;
  team_id: string;
  type: 'modal' | 'home';
  user: string;
  hash: string;
  root_view_id: string;
  previous_view_id: string | null;
  closed: boolean;
  app_id: string;
  bot_id: string;
  [key: string]: unknown;
}

export interface SandboxFile {
  id: string;
  name: string;
  title: string;
  size: number;
  content: string;
  channels: string[];
  thread_ts?: string;
}

/** One Web API call as the event log shows it. */
export interface ApiCall {
  seq: number;
  /** When it was answered (ISO 8601). */
  at: string;
  method: string;
  channel?: string;
  /** The HTTP status answered (0 when the connection was dropped, or an event's ack timed out). */
  status: number;
  ok: boolean;
  error?: string;
  /** `Retry-After` in seconds, on a 429. */
  retryAfter?: number;
  /** Which of Slack's limits refused it. */
  limit?: string;
  /** Set when the failure was injected by a test or the admin endpoint. */
  injected?: boolean;
  dropped?: boolean;
  /** Set on an event Slack sent the bot (not a Web API call): its type is `method`, e.g. `app_mention`. */
  event?: { id: string; retry: number; reason: string };
}

export type WorkspaceChange =
  | { kind: 'message'; message: SandboxMessage }
  | { kind: 'message_changed'; message: SandboxMessage }
  | { kind: 'message_deleted'; channel: string; ts: string }
  | { kind: 'ephemeral'; ephemeral: SandboxEphemeral }
  | { kind: 'view'; view: SandboxView }
  | { kind: 'file'; file: SandboxFile }
  | { kind: 'api_call'; call: ApiCall }
  | { kind: 'membership'; channel: string; user: string; joined: boolean }
  | { kind: 'reaction'; channel: string; ts: string; name: string; user: string; added: boolean }
  /** Agent sessions, streams, prompts or the feature switch changed (see workspace.agent). */
  | { kind: 'agent' }
  /** A workflow's step ran or completed (see workspace.workflows). */
  | { kind: 'workflow' };
