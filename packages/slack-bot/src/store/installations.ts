import type { Installation, InstallURLOptions } from '@slack/oauth';
import { workspaceKey } from '../workspace.js';
import type { SqlClient } from './sql.js';

/** An installation as Slack's OAuth flow gave it (tokens and all), as @slack/oauth shapes it. */
export type SlackInstallation = Installation<'v1' | 'v2', boolean>;

/**
 * The app's installations from Slack's OAuth flow, one per workspace or per organisation
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
   * A token refresh claimed by one replica across all: in one short transaction, the installation as
   * stored now, and `claimed` when `due` says so for it and no other claim is live (a claim lapses at its
   * deadline, so a replica that died holding one doesn't stop refreshes). `busy`: another replica holds
   * a live claim. The Slack call is made after, outside any transaction.
   */
  claimRefresh(
    key: string,
    due: (installation: SlackInstallation) => boolean,
    claim: RefreshClaim,
  ): Promise<ClaimAnswer>;
  /**
   * The refreshed installation saved, and the claim let go: only while `claim` still holds it (a claim
   * past its deadline still holds until another replica takes it).
   */
  finishRefresh(key: string, claim: string, next: SlackInstallation): Promise<boolean>;
  /** The claim let go without a change (the refresh failed). */
  releaseRefresh(key: string, claim: string): Promise<void>;
  /** How many times the installation's token was refreshed (operators, tests). */
  refreshes(key: string): Promise<number>;
  /** Every stored installation's key (the start-up pass that encrypts tokens at rest). */
  keys(): Promise<string[]>;
  /** Records that a pass over the store (by name) has run; once recorded, it stays. */
  recordPass(name: string): Promise<void>;
  /** Whether the pass has run, on any replica. */
  passDone(name: string): Promise<boolean>;
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

/** A claim on a token refresh: who holds it and for how long at most. */
export interface RefreshClaim {
  id: string;
  ttlMs: number;
}

/** What a claim found: the installation (undefined: none stored), and whether this one holds the claim. */
export type ClaimAnswer =
  | { state: 'claimed' | 'fresh' | 'busy'; installation: SlackInstallation }
  | { state: 'missing'; installation?: undefined };

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

  claimRefresh(
    key: string,
    due: (installation: SlackInstallation) => boolean,
    claim: RefreshClaim,
  ): Promise<ClaimAnswer> {
    return this.sql.transaction(async (tx): Promise<ClaimAnswer> => {
      const { rows } = await tx.query<InstallationRow & { busy: boolean }>(
        `SELECT installation, coalesce(refresh_claim_until > now(), false) AS busy
           FROM slack_installations WHERE key = $1 FOR UPDATE`,
        [key],
      );
      const row = rows[0];
      if (!row) return { state: 'missing' };
      const installation = readInstallation(row.installation, key);
      if (!due(installation)) return { state: 'fresh', installation };
      if (row.busy) return { state: 'busy', installation };
      await tx.query(
        `UPDATE slack_installations
            SET refresh_claim = $2, refresh_claim_until = now() + $3 * interval '1 millisecond'
          WHERE key = $1`,
        [key, claim.id, claim.ttlMs],
      );
      return { state: 'claimed', installation };
    });
  }

  async finishRefresh(key: string, claim: string, next: SlackInstallation): Promise<boolean> {
    const { rows } = await this.sql.query(
      `UPDATE slack_installations SET installation = $3, bot_expires_at = to_timestamp($4),
         refreshed = refreshed + 1, refresh_claim = NULL, refresh_claim_until = NULL, updated_at = now()
       WHERE key = $1 AND refresh_claim = $2 RETURNING key`,
      [key, claim, JSON.stringify(next), next.bot?.expiresAt ?? null],
    );
    return rows.length > 0;
  }

  async releaseRefresh(key: string, claim: string): Promise<void> {
    await this.sql.query(
      `UPDATE slack_installations SET refresh_claim = NULL, refresh_claim_until = NULL
       WHERE key = $1 AND refresh_claim = $2`,
      [key, claim],
    );
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

  async recordPass(name: string): Promise<void> {
    await this.sql.query('INSERT INTO store_passes (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
  }

  async passDone(name: string): Promise<boolean> {
    const { rows } = await this.sql.query('SELECT 1 FROM store_passes WHERE name = $1', [name]);
    return rows.length > 0;
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
