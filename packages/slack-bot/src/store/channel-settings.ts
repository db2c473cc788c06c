import type { SqlExecutor } from './sql.js';

/** A channel's defaults for the sessions started in it: each unset when null. */
export interface ChannelDefaults {
  budget: number | null;
  maxIterations: number | null;
  context: Record<string, unknown> | null;
  /** Each session in a channel of its own, archived or kept open at its end; null: in its thread. */
  codeChannel?: 'archive' | 'keep' | null;
}

export interface ChannelSettings extends ChannelDefaults {
  workspace: string;
  channelId: string;
  updatedBy: string;
  updatedAt: string;
}

/** Rows the migration could not place: how many a workspace took, how many were dropped. */
export interface AdoptedSettings {
  adopted: number;
  dropped: number;
}

/**
 * `/agent settings`: one row per workspace and channel, the latest save kept. Keyed by both because a
 * Slack Connect channel has one id in both organisations: each keeps its own defaults there.
 */
export interface ChannelSettingsRepository {
  get(workspace: string, channelId: string): Promise<ChannelSettings | undefined>;
  save(workspace: string, channelId: string, defaults: ChannelDefaults, userId: string): Promise<void>;
  /**
   * Rows the schema's migration could not place (saved by a single-token bot of an older version,
   * naming no workspace): `workspace`'s when the bot serves one, else deleted (no workspace can claim them).
   */
  adoptUnplaced(workspace: string | undefined): Promise<AdoptedSettings>;
}

interface Row {
  workspace: string;
  channel_id: string;
  budget: number | string | null;
  max_iterations: number | string | null;
  context: unknown;
  code_channel?: string | null;
  updated_by: string;
  updated_at: Date | string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The workspace column of a row the migration could not place. */
export const UNPLACED = '';

export class SqlChannelSettingsRepository implements ChannelSettingsRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async get(workspace: string, channelId: string): Promise<ChannelSettings | undefined> {
    if (workspace === UNPLACED) return undefined;
    const { rows } = await this.sql.query<Row>(
      'SELECT * FROM channel_settings WHERE workspace = $1 AND channel_id = $2',
      [workspace, channelId],
    );
    const row = rows[0];
    if (!row) return undefined;
    const context = typeof row.context === 'string' ? JSON.parse(row.context) : row.context;
    return {
      workspace: row.workspace,
      channelId: row.channel_id,
      budget: row.budget === null ? null : Number(row.budget),
      maxIterations: row.max_iterations === null ? null : Number(row.max_iterations),
      context: isObject(context) ? context : null,
      codeChannel: row.code_channel === 'archive' || row.code_channel === 'keep' ? row.code_channel : null,
      updatedBy: row.updated_by,
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  async save(workspace: string, channelId: string, d: ChannelDefaults, userId: string): Promise<void> {
    if (workspace === UNPLACED) throw new Error('channel settings need a workspace');
    await this.sql.query(
      `INSERT INTO channel_settings (workspace, channel_id, budget, max_iterations, context, updated_by, code_channel)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (workspace, channel_id) DO UPDATE SET budget = excluded.budget,
         max_iterations = excluded.max_iterations, context = excluded.context,
         code_channel = excluded.code_channel, updated_by = excluded.updated_by, updated_at = now()`,
      [
        workspace,
        channelId,
        d.budget,
        d.maxIterations,
        d.context === null ? null : JSON.stringify(d.context),
        userId,
        d.codeChannel ?? null,
      ],
    );
  }

  async adoptUnplaced(workspace: string | undefined): Promise<AdoptedSettings> {
    if (workspace === undefined || workspace === UNPLACED) {
      const { rows } = await this.sql.query<{ channel_id: string }>(
        'DELETE FROM channel_settings WHERE workspace = $1 RETURNING channel_id',
        [UNPLACED],
      );
      return { adopted: 0, dropped: rows.length };
    }
    // A row the workspace saved since wins over an unplaced one for the same channel.
    const { rows } = await this.sql.query<{ channel_id: string }>(
      `UPDATE channel_settings AS u SET workspace = $1 WHERE u.workspace = $2
         AND NOT EXISTS (SELECT 1 FROM channel_settings s WHERE s.workspace = $1 AND s.channel_id = u.channel_id)
       RETURNING u.channel_id`,
      [workspace, UNPLACED],
    );
    const left = await this.sql.query<{ channel_id: string }>(
      'DELETE FROM channel_settings WHERE workspace = $1 RETURNING channel_id',
      [UNPLACED],
    );
    return { adopted: rows.length, dropped: left.rows.length };
  }
}
