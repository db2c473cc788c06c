import type { SqlExecutor } from './sql.js';

/** A channel's defaults for the sessions started in it (#23): each unset when null. */
export interface ChannelDefaults {
  budget: number | null;
  maxIterations: number | null;
  context: Record<string, unknown> | null;
}

export interface ChannelSettings extends ChannelDefaults {
  channelId: string;
  updatedBy: string;
  updatedAt: string;
}

/** `/agent settings`: one row per channel, the latest save kept. */
export interface ChannelSettingsRepository {
  get(channelId: string): Promise<ChannelSettings | undefined>;
  save(channelId: string, defaults: ChannelDefaults, userId: string): Promise<void>;
}

interface Row {
  channel_id: string;
  budget: number | string | null;
  max_iterations: number | string | null;
  context: unknown;
  updated_by: string;
  updated_at: Date | string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export class SqlChannelSettingsRepository implements ChannelSettingsRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async get(channelId: string): Promise<ChannelSettings | undefined> {
    const { rows } = await this.sql.query<Row>('SELECT * FROM channel_settings WHERE channel_id = $1', [
      channelId,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    const context = typeof row.context === 'string' ? JSON.parse(row.context) : row.context;
    return {
      channelId: row.channel_id,
      budget: row.budget === null ? null : Number(row.budget),
      maxIterations: row.max_iterations === null ? null : Number(row.max_iterations),
      context: isObject(context) ? context : null,
      updatedBy: row.updated_by,
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  async save(channelId: string, d: ChannelDefaults, userId: string): Promise<void> {
    await this.sql.query(
      `INSERT INTO channel_settings (channel_id, budget, max_iterations, context, updated_by)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (channel_id) DO UPDATE SET budget = excluded.budget,
         max_iterations = excluded.max_iterations, context = excluded.context,
         updated_by = excluded.updated_by, updated_at = now()`,
      [channelId, d.budget, d.maxIterations, d.context === null ? null : JSON.stringify(d.context), userId],
    );
  }
}
