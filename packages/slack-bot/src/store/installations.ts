import type { Installation, InstallURLOptions } from '@slack/oauth';
import { workspaceKey } from '../workspace.js';
import type { SqlClient } from './sql.js';

/** An installation as Slack's OAuth flow gave it (tokens and all), as @slack/oauth shapes it. */
export type SlackInstallation = Installation<'v1' | 'v2', boolean>;

/**
 * The app's installations from Slack's OAuth flow (issue #25), one per workspace or per organisation
 * (an org-wide install), shared by every replica; and the install flow's `state` values, each usable
 * once, by whichever replica the browser comes back to.
 */
export interface InstallationRepository {
  /** Adds or replaces the installation of its workspace (or organisation); returns its key. */
  save(installation: SlackInstallation): Promise<string>;
  find(key: string): Promise<SlackInstallation | undefined>;
  /** Deletes the installation and its tokens; whether there was one. */
  remove(key: string): Promise<boolean>;
  /**
   * One refresh across replicas: under the row's lock, `exchange` runs only when `due` still says so for
   * what is stored now (another replica may have refreshed while this one waited); what it returns is
   * saved before the lock goes. Returns the installation as stored afterwards.
   */
  refresh(
    key: string,
    due: (installation: SlackInstallation) => boolean,
    exchange: (installation: SlackInstallation) => Promise<SlackInstallation>,
  ): Promise<SlackInstallation | undefined>;
  /** How many times the installation's token was refreshed (operators, tests). */
  refreshes(key: string): Promise<number>;
  /** Every stored installation's key (the start-up pass that encrypts tokens at rest). */
  keys(): Promise<string[]>;
  /**
   * Under the row's lock: `change` sees what is stored now and returns what to store instead (undefined:
   * leave it). Not a refresh (the count stays). Whether the row was changed.
   */
  rewrite(
    key: string,
    change: (installation: SlackInstallation) => SlackInstallation | undefined,
  ): Promise<boolean>;
  saveState(state: string, options: InstallURLOptions, expiresAt: Date): Promise<void>;
  /** The state's install options, deleting it: a state is good once, and only until it expires. */
  takeState(state: string): Promise<InstallURLOptions | undefined>;
}

export class InstallationKeyError extends Error {
  override name = 'InstallationKeyError';
}

/** The key an installation is stored under (see workspaceKey). */
export function installationKey(installation: SlackInstallation): string {
  const key = workspaceKey({
    teamId: installation.team?.id,
    enterpriseId: installation.enterprise?.id,
    isEnterpriseInstall: installation.isEnterpriseInstall,
  });
  if (key === undefined) throw new InstallationKeyError('installation: team.id or enterprise.id is required');
  return key;
}

interface InstallationRow {
  installation: unknown;
}

/** A stored installation: checked for what the bot relies on (a bot token), named when it is not there. */
function readInstallation(value: unknown, key: string): SlackInstallation {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  const bot = (parsed as { bot?: { token?: unknown } } | null)?.bot;
  if (typeof parsed !== 'object' || parsed === null || typeof bot?.token !== 'string') {
    throw new InstallationKeyError(`slack_installations.installation of ${key}: bot.token is missing`);
  }
  return parsed as SlackInstallation;
}

export class SqlInstallationRepository implements InstallationRepository {
  constructor(private readonly sql: SqlClient) {}

  async save(installation: SlackInstallation): Promise<string> {
    const key = installationKey(installation);
    const expiresAt = installation.bot?.expiresAt;
    await this.sql.query(
      `INSERT INTO slack_installations
         (key, team_id, enterprise_id, is_enterprise, bot_user_id, bot_expires_at, installation)
       VALUES ($1, $2, $3, $4, $5, to_timestamp($6), $7)
       ON CONFLICT (key) DO UPDATE SET team_id = EXCLUDED.team_id, enterprise_id = EXCLUDED.enterprise_id,
         is_enterprise = EXCLUDED.is_enterprise, bot_user_id = EXCLUDED.bot_user_id,
         bot_expires_at = EXCLUDED.bot_expires_at, installation = EXCLUDED.installation, updated_at = now()`,
      [
        key,
        installation.team?.id ?? null,
        installation.enterprise?.id ?? null,
        installation.isEnterpriseInstall === true,
        installation.bot?.userId ?? null,
        expiresAt ?? null,
        JSON.stringify(installation),
      ],
    );
    return key;
  }

  async find(key: string): Promise<SlackInstallation | undefined> {
    const { rows } = await this.sql.query<InstallationRow>(
      'SELECT installation FROM slack_installations WHERE key = $1',
      [key],
    );
    return rows[0] ? readInstallation(rows[0].installation, key) : undefined;
  }

  async remove(key: string): Promise<boolean> {
    const { rows } = await this.sql.query('DELETE FROM slack_installations WHERE key = $1 RETURNING key', [
      key,
    ]);
    return rows.length > 0;
  }

  refresh(
    key: string,
    due: (installation: SlackInstallation) => boolean,
    exchange: (installation: SlackInstallation) => Promise<SlackInstallation>,
  ): Promise<SlackInstallation | undefined> {
    return this.sql.transaction(async (tx) => {
      const { rows } = await tx.query<InstallationRow>(
        'SELECT installation FROM slack_installations WHERE key = $1 FOR UPDATE',
        [key],
      );
      if (!rows[0]) return undefined;
      const stored = readInstallation(rows[0].installation, key);
      if (!due(stored)) return stored;
      const next = await exchange(stored);
      await tx.query(
        `UPDATE slack_installations SET installation = $2, bot_expires_at = to_timestamp($3),
           refreshed = refreshed + 1, updated_at = now() WHERE key = $1`,
        [key, JSON.stringify(next), next.bot?.expiresAt ?? null],
      );
      return next;
    });
  }

  async refreshes(key: string): Promise<number> {
    const { rows } = await this.sql.query<{ refreshed: number }>(
      'SELECT refreshed FROM slack_installations WHERE key = $1',
      [key],
    );
    return Number(rows[0]?.refreshed ?? 0);
  }

  async keys(): Promise<string[]> {
    const { rows } = await this.sql.query<{ key: string }>(
      'SELECT key FROM slack_installations ORDER BY key',
    );
    return rows.map((r) => r.key);
  }

  rewrite(
    key: string,
    change: (installation: SlackInstallation) => SlackInstallation | undefined,
  ): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const { rows } = await tx.query<InstallationRow>(
        'SELECT installation FROM slack_installations WHERE key = $1 FOR UPDATE',
        [key],
      );
      if (!rows[0]) return false;
      const next = change(readInstallation(rows[0].installation, key));
      if (!next) return false;
      await tx.query('UPDATE slack_installations SET installation = $2, updated_at = now() WHERE key = $1', [
        key,
        JSON.stringify(next),
      ]);
      return true;
    });
  }

  async saveState(state: string, options: InstallURLOptions, expiresAt: Date): Promise<void> {
    await this.sql.query('DELETE FROM oauth_states WHERE expires_at < now()');
    await this.sql.query('INSERT INTO oauth_states (state, options, expires_at) VALUES ($1, $2, $3)', [
      state,
      JSON.stringify(options),
      expiresAt,
    ]);
  }

  async takeState(state: string): Promise<InstallURLOptions | undefined> {
    const { rows } = await this.sql.query<{ options: unknown }>(
      'DELETE FROM oauth_states WHERE state = $1 AND expires_at > now() RETURNING options',
      [state],
    );
    const options = rows[0]?.options;
    if (options === undefined) return undefined;
    return (typeof options === 'string' ? JSON.parse(options) : options) as InstallURLOptions;
  }
}
