import { currentWorkspace } from '../workspace.js';
import type { SqlExecutor } from './sql.js';

/**
 * A session's own channel: asked for (`wanted`), made (`open`), refused by Slack so the session stayed in
 * its thread (`thread`, with the reason), or done with at its end (`closed`: archived or kept open, as
 * `atEnd` said).
 */
export type CodeChannelState = 'wanted' | 'open' | 'thread' | 'closed';
export type CodeChannelEnd = 'archive' | 'keep';

export interface CodeChannelRecord {
  sessionId: string;
  workspace: string | null;
  channelId: string | null;
  state: CodeChannelState;
  atEnd: CodeChannelEnd;
  reason: string | null;
  /** The report's canvas, once made. */
  canvasId: string | null;
}

/**
 * One row per session that asked for a channel of its own: every step recorded once done, so a restart or
 * another replica picks up where it stopped (Slack's create is idempotent by session id besides).
 */
export interface CodeChannelRepository {
  /** Idempotent: a session's first wish stands. */
  want(sessionId: string, atEnd: CodeChannelEnd): Promise<void>;
  get(sessionId: string): Promise<CodeChannelRecord | undefined>;
  /** The channel made: recorded here and as the session's code channel (its thread's place from now on). */
  opened(sessionId: string, channelId: string): Promise<void>;
  /** Slack refused: the session stays in its thread, with why. */
  refused(sessionId: string, reason: string): Promise<void>;
  canvas(sessionId: string, canvasId: string): Promise<void>;
  /** The end done (archived, or the summary posted back). False when another process did it first. */
  close(sessionId: string): Promise<boolean>;
  /** A session's questions, waiting and answered, for its channel's questions tab. */
  questions(sessionId: string): Promise<SessionQuestion[]>;
}

export interface SessionQuestion {
  inputId: string;
  prompt: string;
  state: 'pending' | 'answering' | 'answered';
  answeredBy: string | null;
}

interface Row {
  session_id: string;
  workspace: string | null;
  channel_id: string | null;
  state: CodeChannelState;
  at_end: CodeChannelEnd;
  reason: string | null;
  canvas_id: string | null;
}

export class SqlCodeChannelRepository implements CodeChannelRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async want(sessionId: string, atEnd: CodeChannelEnd): Promise<void> {
    await this.sql.query(
      `INSERT INTO code_channels (session_id, workspace, at_end) VALUES ($1, $2, $3)
       ON CONFLICT (session_id) DO NOTHING`,
      [sessionId, currentWorkspace()?.key ?? null, atEnd],
    );
  }

  async get(sessionId: string): Promise<CodeChannelRecord | undefined> {
    const { rows } = await this.sql.query<Row>('SELECT * FROM code_channels WHERE session_id = $1', [
      sessionId,
    ]);
    const r = rows[0];
    if (!r) return undefined;
    return {
      sessionId: r.session_id,
      workspace: r.workspace,
      channelId: r.channel_id,
      state: r.state,
      atEnd: r.at_end,
      reason: r.reason,
      canvasId: r.canvas_id,
    };
  }

  async opened(sessionId: string, channelId: string): Promise<void> {
    await this.sql.query(
      `UPDATE code_channels SET channel_id = $2, state = 'open', updated_at = now()
        WHERE session_id = $1 AND state = 'wanted'`,
      [sessionId, channelId],
    );
    await this.sql.query(
      'UPDATE sessions SET home_channel_id = $2, updated_at = now() WHERE session_id = $1',
      [sessionId, channelId],
    );
  }

  async refused(sessionId: string, reason: string): Promise<void> {
    await this.sql.query(
      `UPDATE code_channels SET state = 'thread', reason = $2, updated_at = now()
        WHERE session_id = $1 AND state = 'wanted'`,
      [sessionId, reason],
    );
  }

  async canvas(sessionId: string, canvasId: string): Promise<void> {
    await this.sql.query(
      'UPDATE code_channels SET canvas_id = $2, updated_at = now() WHERE session_id = $1',
      [sessionId, canvasId],
    );
  }

  async questions(sessionId: string): Promise<SessionQuestion[]> {
    const { rows } = await this.sql.query<{
      input_id: string;
      request: unknown;
      state: SessionQuestion['state'];
      answered_by: string | null;
    }>(
      `SELECT input_id, request, state, answered_by FROM prompts WHERE session_id = $1
        ORDER BY answered_at NULLS LAST, input_id`,
      [sessionId],
    );
    return rows.map((r) => {
      const request = typeof r.request === 'string' ? JSON.parse(r.request) : r.request;
      const prompt =
        typeof request === 'object' && request !== null && 'prompt' in request ? String(request.prompt) : '';
      return { inputId: r.input_id, prompt, state: r.state, answeredBy: r.answered_by };
    });
  }

  async close(sessionId: string): Promise<boolean> {
    const { rows } = await this.sql.query<{ session_id: string }>(
      `UPDATE code_channels SET state = 'closed', updated_at = now()
        WHERE session_id = $1 AND state = 'open' RETURNING session_id`,
      [sessionId],
    );
    return rows.length > 0;
  }
}
