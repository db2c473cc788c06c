import type { SqlExecutor } from './sql.js';

/** A person's message in a channel or thread, as an event brought it (or a thread read returned it). */
export interface ThreadMessage {
  channelId: string;
  /** The thread's root ts; equal to `ts` for a message at the channel's top level. */
  threadTs: string;
  ts: string;
  userId: string;
  text: string;
  files: Array<{ name: string; permalink: string }>;
}

/** How much is kept, per workspace. */
export interface ThreadCacheLimits {
  /** Messages kept per workspace: beyond it the oldest received go first. */
  messages: number;
  /** Messages received longer ago than this go. */
  retentionMs: number;
}

/**
 * The messages the bot received as events, kept per workspace for a while, so a mention in a thread finds
 * the thread here instead of reading it from Slack (whose reads may be one a minute). Bounded: at most
 * `messages` per workspace and none older than `retentionMs`, the oldest received dropped first, so a
 * thread whose root is still here has everything received after it too.
 */
export interface ThreadMessageRepository {
  /** Kept once per message (a mention comes as two events): true when it was new. */
  remember(workspace: string, message: ThreadMessage): Promise<boolean>;
  /**
   * A thread's messages kept here before `beforeTs`, oldest first (the newest `limit` of them), how many
   * are kept in all, and whether its root is one of them (then everything received after it is too).
   */
  thread(
    workspace: string,
    channelId: string,
    threadTs: string,
    beforeTs: string,
    limit: number,
  ): Promise<{ messages: ThreadMessage[]; kept: number; rootKept: boolean }>;
  /** Drops what is past the limits in a workspace; how many went. */
  prune(workspace: string, limits: ThreadCacheLimits): Promise<number>;
}

interface Row {
  channel_id: string;
  thread_ts: string;
  ts: string;
  user_id: string;
  text: string;
  files: unknown;
}

/** Slack's ts strings sort as numbers once padded (seconds of 10 digits, 6 of micros). */
export const tsSortKey = (ts: string): string => {
  const [seconds = '', micros = ''] = ts.split('.');
  return `${seconds.padStart(12, '0')}.${micros.padEnd(6, '0')}`;
};

export class SqlThreadMessageRepository implements ThreadMessageRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async remember(workspace: string, m: ThreadMessage): Promise<boolean> {
    const { rows } = await this.sql.query(
      `INSERT INTO thread_messages (workspace, channel_id, thread_ts, ts, sort_key, user_id, text, files)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
       ON CONFLICT (workspace, channel_id, ts) DO NOTHING RETURNING 1`,
      [workspace, m.channelId, m.threadTs, m.ts, tsSortKey(m.ts), m.userId, m.text, JSON.stringify(m.files)],
    );
    return rows.length > 0;
  }

  async thread(
    workspace: string,
    channelId: string,
    threadTs: string,
    beforeTs: string,
    limit: number,
  ): Promise<{ messages: ThreadMessage[]; kept: number; rootKept: boolean }> {
    const params = [workspace, channelId, threadTs, tsSortKey(beforeTs)];
    const counted = await this.sql.query<{ kept: number | string; root: boolean | null }>(
      `SELECT count(*) AS kept, bool_or(ts = thread_ts) AS root FROM thread_messages
       WHERE workspace = $1 AND channel_id = $2 AND thread_ts = $3 AND sort_key < $4`,
      params,
    );
    const { rows } = await this.sql.query<Row>(
      `SELECT channel_id, thread_ts, ts, user_id, text, files FROM (
         SELECT * FROM thread_messages
         WHERE workspace = $1 AND channel_id = $2 AND thread_ts = $3 AND sort_key < $4
         ORDER BY sort_key DESC LIMIT $5) newest
       ORDER BY sort_key`,
      [...params, limit],
    );
    const messages = rows.map((r) => ({
      channelId: r.channel_id,
      threadTs: r.thread_ts,
      ts: r.ts,
      userId: r.user_id,
      text: r.text,
      files: filesOf(r.files),
    }));
    const kept = Number(counted.rows[0]?.kept ?? 0);
    return { messages, kept, rootKept: counted.rows[0]?.root === true };
  }

  async prune(workspace: string, limits: ThreadCacheLimits): Promise<number> {
    const { rows } = await this.sql.query(
      `DELETE FROM thread_messages t WHERE t.workspace = $1 AND (
         t.received_at < now() - $2 * interval '1 millisecond'
         OR (t.channel_id, t.ts) IN (
           SELECT channel_id, ts FROM thread_messages WHERE workspace = $1
           ORDER BY received_at DESC, sort_key DESC OFFSET $3))
       RETURNING 1`,
      [workspace, limits.retentionMs, limits.messages],
    );
    return rows.length;
  }
}

function filesOf(raw: unknown): ThreadMessage['files'] {
  const list = typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw;
  if (!Array.isArray(list)) return [];
  return list.map((f: { name?: unknown; permalink?: unknown }) => ({
    name: String(f?.name ?? ''),
    permalink: String(f?.permalink ?? ''),
  }));
}
