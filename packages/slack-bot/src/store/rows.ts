import type { SessionRecord } from './records.js';

/** Timestamps come back as Date from both drivers; stored as ISO strings in records. */
export function iso(v: Date | string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const date = v instanceof Date ? v : new Date(v);
  // JSON (a joined row) carries PostgreSQL's own format: the same instant, written as records expect.
  return Number.isNaN(date.getTime()) ? String(v) : date.toISOString();
}

export interface SessionRow {
  session_id: string;
  channel_id: string;
  card_ts: string | null;
  started_by: string;
  goal: string;
  status: string;
  budget: number | string | null;
  finished: boolean;
  created_at: Date | string;
  thread_ts?: string | null;
  origin?: string | null;
  team_id?: string | null;
  enterprise_id?: string | null;
  workspace?: string | null;
  /** The session's code channel (`codeChannelId`); the column's name is the store's, kept as it is. */
  home_channel_id?: string | null;
  /** The service key slot it runs under, set when it starts and never changed (null: AGENT_API_KEY's). */
  key_ref?: string | null;
}

export function toSession(r: SessionRow): SessionRecord {
  return {
    sessionId: r.session_id,
    channelId: r.channel_id,
    cardTs: r.card_ts ?? null,
    startedBy: r.started_by,
    goal: r.goal,
    status: r.status,
    budget: r.budget === null || r.budget === undefined ? null : Number(r.budget),
    finished: Boolean(r.finished),
    createdAt: iso(r.created_at) ?? '',
    threadTs: r.thread_ts ?? null,
    origin: r.origin ?? null,
    ...(r.home_channel_id ? { codeChannelId: r.home_channel_id } : {}),
    ...(r.workspace
      ? { teamId: r.team_id ?? null, enterpriseId: r.enterprise_id ?? null, workspace: r.workspace }
      : {}),
  };
}
