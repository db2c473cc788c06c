import type { HumanInputAnswer, HumanInputRequest } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import { refKeyOf } from '../refs.js';
import type { SessionRecord } from './records.js';
import {
  blocksSchema,
  type ClaimResult,
  humanInputAnswerSchema,
  humanInputRequestSchema,
  type PromptInSession,
  type PromptRecord,
  type PromptState,
  parseColumn,
} from './records.js';
import { iso, type SessionRow, toSession } from './rows.js';
import type { SqlExecutor } from './sql.js';
import { scopedTo } from './workspace-filter.js';

export interface NewPrompt {
  sessionId: string;
  inputId: string;
  channelId: string;
  messageTs: string | null;
  request: HumanInputRequest;
  refKey: string;
  /** The agent's messages the prompt's post carries (see PromptRecord.carried); a saved value is kept. */
  carried?: KnownBlock[];
}

/** A session and the questions it waits on, read together. */
export interface SessionWithPending {
  session: SessionRecord;
  pending: PromptRecord[];
  /**
   * The service key slot the session runs under (null: AGENT_API_KEY's), read in the same query: its
   * calls to the service then need no read of their own. Undefined when the reader didn't say.
   */
  keyRef?: string | null;
}

/** Where a prompt is found from a click: its ids, or the short key that stood in for a long ref. */
export type PromptLocator = { sessionId: string; inputId: string } | { refKey: string };

/** Questions posted in Slack, and who answered them: the first answer wins, across replicas. */
export interface PromptRepository {
  /** Records a prompt (again: the request as now read; a saved ts kept when none is given). */
  save(prompt: NewPrompt): Promise<void>;
  get(sessionId: string, inputId: string): Promise<PromptRecord | undefined>;
  /** The prompt and its session in one read, its ts filled from the posted message when not saved. */
  find(locator: PromptLocator): Promise<PromptInSession | undefined>;
  /** Questions of a session nobody has answered yet, oldest first. */
  pending(sessionId: string): Promise<PromptRecord[]>;
  /**
   * The session (as `SessionRepository.get` reads it: within the current workspace when isolated) with
   * its questions nobody has answered yet (as `pending`), in one read; undefined without the session.
   */
  sessionWithPending(sessionId: string): Promise<SessionWithPending | undefined>;
  /** First answer wins: exactly one caller (across clicks, users and replicas) gets `claimed: true`. */
  claim(sessionId: string, inputId: string, userId: string, staleAfterMs?: number): Promise<ClaimResult>;
  /** The service took the answer (null: it was answered elsewhere). Returns when it was recorded. */
  complete(sessionId: string, inputId: string, answer: HumanInputAnswer | null): Promise<string | null>;
  /** The service refused or failed: the prompt is answerable again. */
  release(sessionId: string, inputId: string, userId: string): Promise<void>;
}

interface PromptRow {
  session_id: string;
  input_id: string;
  channel_id: string;
  message_ts: string | null;
  request: unknown;
  state: PromptState;
  answered_by: string | null;
  answered_at: Date | string | null;
  answer: unknown;
  ref_key: string | null;
  carried?: unknown;
}

type JoinedRow = PromptRow & { shown_ts: string | null; session: SessionRow };

function toPrompt(r: PromptRow): PromptRecord {
  const where = `prompts(${r.session_id}, ${r.input_id})`;
  return {
    sessionId: r.session_id,
    inputId: r.input_id,
    channelId: r.channel_id,
    messageTs: r.message_ts ?? null,
    request: parseColumn(humanInputRequestSchema, r.request, `${where}.request`),
    state: r.state,
    answeredBy: r.answered_by ?? null,
    answeredAt: iso(r.answered_at),
    answer:
      r.answer === null || r.answer === undefined
        ? null
        : parseColumn(humanInputAnswerSchema, r.answer, `${where}.answer`),
    // Prompts saved before keys were stored get theirs computed.
    refKey: r.ref_key ?? refKeyOf(r.session_id, r.input_id),
    ...(r.carried === null || r.carried === undefined
      ? {}
      : { carried: parseColumn(blocksSchema, r.carried, `${where}.carried`) }),
  };
}

export class SqlPromptRepository implements PromptRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async save(p: NewPrompt): Promise<void> {
    await this.sql.query(
      `INSERT INTO prompts (session_id, input_id, channel_id, message_ts, request, ref_key, carried)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (session_id, input_id) DO UPDATE
         SET message_ts = coalesce(EXCLUDED.message_ts, prompts.message_ts), ref_key = EXCLUDED.ref_key,
             request = EXCLUDED.request, carried = coalesce(EXCLUDED.carried, prompts.carried)`,
      [
        p.sessionId,
        p.inputId,
        p.channelId,
        p.messageTs,
        JSON.stringify(p.request),
        p.refKey,
        p.carried ? JSON.stringify(p.carried) : null,
      ],
    );
  }

  async get(sessionId: string, inputId: string): Promise<PromptRecord | undefined> {
    const { rows } = await this.sql.query<PromptRow>(
      'SELECT * FROM prompts WHERE session_id = $1 AND input_id = $2',
      [sessionId, inputId],
    );
    return rows[0] ? toPrompt(rows[0]) : undefined;
  }

  async find(locator: PromptLocator): Promise<PromptInSession | undefined> {
    // A crash between posting the prompt and saving its ts leaves only the posted-messages record.
    const where = 'refKey' in locator ? 'p.ref_key = $1' : 'p.session_id = $1 AND p.input_id = $2';
    const params: unknown[] = 'refKey' in locator ? [locator.refKey] : [locator.sessionId, locator.inputId];
    const { rows } = await this.sql.query<JoinedRow>(
      `SELECT p.*, coalesce(p.message_ts, pm.ts) AS shown_ts, to_jsonb(s) AS session
         FROM prompts p
         JOIN sessions s ON s.session_id = p.session_id
         LEFT JOIN posted_messages pm ON pm.session_id = p.session_id AND pm.key = 'input:' || p.input_id
        WHERE ${where}${scopedTo('s', params)}`,
      params,
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      ...toPrompt({ ...row, message_ts: row.shown_ts }),
      session: toSession(row.session),
    };
  }

  async pending(sessionId: string): Promise<PromptRecord[]> {
    const { rows } = await this.sql.query<PromptRow>(
      `SELECT * FROM prompts WHERE session_id = $1 AND state <> 'answered' ORDER BY created_at`,
      [sessionId],
    );
    return rows.map((r) => toPrompt(r));
  }

  async sessionWithPending(sessionId: string): Promise<SessionWithPending | undefined> {
    const params: unknown[] = [sessionId];
    const { rows } = await this.sql.query<{ session: SessionRow; pending: PromptRow[] }>(
      `SELECT to_jsonb(s) AS session,
              coalesce((SELECT jsonb_agg(to_jsonb(p) ORDER BY p.created_at) FROM prompts p
                         WHERE p.session_id = s.session_id AND p.state <> 'answered'), '[]'::jsonb) AS pending
         FROM sessions s
        WHERE s.session_id = $1${scopedTo('s', params)}`,
      params,
      { prepare: true },
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      session: toSession(row.session),
      pending: row.pending.map(toPrompt),
      keyRef: row.session.key_ref ?? null,
    };
  }

  async claim(
    sessionId: string,
    inputId: string,
    userId: string,
    staleAfterMs = 60_000,
  ): Promise<ClaimResult> {
    // One UPDATE decides: the row changes for exactly one caller. A claim older than staleAfterMs belongs
    // to a replica that died mid-answer and may be taken over.
    const { rows } = await this.sql.query<{ session_id: string }>(
      `UPDATE prompts SET state = 'answering', answered_by = $3, claimed_at = now()
       WHERE session_id = $1 AND input_id = $2
         AND (state = 'pending' OR (state = 'answering' AND claimed_at < now() - $4 * interval '1 millisecond'))
       RETURNING session_id`,
      [sessionId, inputId, userId, staleAfterMs],
    );
    if (rows.length > 0) return { claimed: true };
    const prompt = await this.get(sessionId, inputId);
    if (!prompt) return { claimed: false, state: 'missing', answeredBy: null, answeredAt: null };
    return {
      claimed: false,
      state: prompt.state === 'pending' ? 'answering' : prompt.state,
      answeredBy: prompt.answeredBy,
      answeredAt: prompt.answeredAt,
    };
  }

  async complete(
    sessionId: string,
    inputId: string,
    answer: HumanInputAnswer | null,
  ): Promise<string | null> {
    const { rows } = await this.sql.query<{ answered_at: Date | string | null }>(
      `UPDATE prompts SET state = 'answered', answered_at = now(), answer = $3
        WHERE session_id = $1 AND input_id = $2 RETURNING answered_at`,
      [sessionId, inputId, answer === null ? null : JSON.stringify(answer)],
    );
    return iso(rows[0]?.answered_at);
  }

  async release(sessionId: string, inputId: string, userId: string): Promise<void> {
    await this.sql.query(
      `UPDATE prompts SET state = 'pending', answered_by = NULL, claimed_at = NULL
       WHERE session_id = $1 AND input_id = $2 AND state = 'answering' AND answered_by = $3`,
      [sessionId, inputId, userId],
    );
  }
}
