import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../bounded-cache.js';
import { iso } from './rows.js';
import type { SqlExecutor } from './sql.js';

/**
 * Personal tokens for MCP hosts (an agent host acting as one Slack person): only each token's SHA-256
 * is kept, with a short hint to show. A token is bound to one workspace (`workspace`, the installation's
 * key, with the team it was made in) and one person, and stops working at `expiresAt` or once revoked.
 */
export interface McpTokenRecord {
  id: string;
  workspace: string;
  teamId: string | null;
  enterpriseId: string | null;
  userId: string;
  /** The token's first characters, to tell tokens apart in App Home; never enough to use. */
  hint: string;
  /** The host that last used it (its MCP client name), when one did. */
  lastClient: string | null;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

/** One token's use, as `usedMany` notes it. */
export interface TokenUse {
  id: string;
  client: string | null;
  at: Date;
}

export interface McpTokenRepository {
  create(
    token: Omit<McpTokenRecord, 'createdAt' | 'lastUsedAt' | 'lastClient'> & { hash: string },
  ): Promise<void>;
  /** The token with this hash, unless revoked or expired at `now`. */
  findUsable(hash: string, now: Date): Promise<McpTokenRecord | undefined>;
  /** A person's tokens in a workspace that still work at `now`, newest first. */
  usableFor(workspace: string, userId: string, now: Date): Promise<McpTokenRecord[]>;
  /** Revokes one of the person's own tokens; false when they have no such token still working. */
  revoke(workspace: string, userId: string, id: string): Promise<boolean>;
  /** Notes a use: at most one write a minute per token, so a busy host doesn't write on every call. */
  used(id: string, client: string | null, now: Date): Promise<void>;
  /** Notes many tokens' uses in one write (each as `used` would). */
  usedMany(uses: TokenUse[]): Promise<void>;
  /** Revokes every token of a workspace (the app was removed from it); how many were still working. */
  revokeWorkspace(workspace: string): Promise<number>;
  /** Revokes every token of one person in a workspace (they left, or an admin said so); how many. */
  revokePerson(workspace: string, userId: string): Promise<number>;
  /**
   * Who in a workspace holds tokens that still work at `now` (what its admins see): at most `limit`
   * people, the most recently active first, and how many there are in all.
   */
  holdersIn(
    workspace: string,
    now: Date,
    limit: number,
  ): Promise<{ holders: McpTokenHolder[]; total: number }>;
}

/** One person's working tokens in a workspace, summed up. */
export interface McpTokenHolder {
  userId: string;
  tokens: number;
  lastUsedAt: string | null;
}

interface Row {
  id: string;
  workspace: string;
  team_id: string | null;
  enterprise_id: string | null;
  user_id: string;
  hint: string;
  last_client: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  last_used_at: Date | string | null;
}

const toRecord = (r: Row): McpTokenRecord => ({
  id: r.id,
  workspace: r.workspace,
  teamId: r.team_id,
  enterpriseId: r.enterprise_id,
  userId: r.user_id,
  hint: r.hint,
  lastClient: r.last_client,
  createdAt: iso(r.created_at) ?? '',
  expiresAt: iso(r.expires_at) ?? '',
  lastUsedAt: iso(r.last_used_at),
});

export class SqlMcpTokenRepository implements McpTokenRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async create(t: Parameters<McpTokenRepository['create']>[0]): Promise<void> {
    await this.sql.query(
      `INSERT INTO mcp_tokens (id, token_hash, workspace, team_id, enterprise_id, user_id, hint, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [t.id, t.hash, t.workspace, t.teamId, t.enterpriseId, t.userId, t.hint, t.expiresAt],
    );
  }

  async findUsable(hash: string, now: Date): Promise<McpTokenRecord | undefined> {
    const { rows } = await this.sql.query<Row>(
      'SELECT * FROM mcp_tokens WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2',
      [hash, now.toISOString()],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async usableFor(workspace: string, userId: string, now: Date): Promise<McpTokenRecord[]> {
    const { rows } = await this.sql.query<Row>(
      `SELECT * FROM mcp_tokens WHERE workspace = $1 AND user_id = $2 AND revoked_at IS NULL AND expires_at > $3
       ORDER BY created_at DESC, id`,
      [workspace, userId, now.toISOString()],
    );
    return rows.map(toRecord);
  }

  async revoke(workspace: string, userId: string, id: string): Promise<boolean> {
    const { rows } = await this.sql.query<{ id: string }>(
      `UPDATE mcp_tokens SET revoked_at = now()
       WHERE id = $1 AND workspace = $2 AND user_id = $3 AND revoked_at IS NULL RETURNING id`,
      [id, workspace, userId],
    );
    return rows.length > 0;
  }

  async used(id: string, client: string | null, now: Date): Promise<void> {
    await this.sql.query(
      `UPDATE mcp_tokens SET last_used_at = $2, last_client = coalesce($3, last_client)
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
      [id, now.toISOString(), client],
    );
  }

  async usedMany(uses: TokenUse[]): Promise<void> {
    if (uses.length === 0) return;
    await this.sql.query(
      `UPDATE mcp_tokens t SET last_used_at = u.at, last_client = coalesce(u.client, t.last_client)
         FROM unnest($1::text[], $2::timestamptz[], $3::text[]) AS u(id, at, client)
        WHERE t.id = u.id AND (t.last_used_at IS NULL OR t.last_used_at < u.at - interval '1 minute')`,
      [uses.map((u) => u.id), uses.map((u) => u.at.toISOString()), uses.map((u) => u.client)],
    );
  }

  async revokeWorkspace(workspace: string): Promise<number> {
    const { rows } = await this.sql.query<{ id: string }>(
      'UPDATE mcp_tokens SET revoked_at = now() WHERE workspace = $1 AND revoked_at IS NULL RETURNING id',
      [workspace],
    );
    return rows.length;
  }

  async revokePerson(workspace: string, userId: string): Promise<number> {
    const { rows } = await this.sql.query<{ id: string }>(
      `UPDATE mcp_tokens SET revoked_at = now()
       WHERE workspace = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id`,
      [workspace, userId],
    );
    return rows.length;
  }

  async holdersIn(
    workspace: string,
    now: Date,
    limit: number,
  ): Promise<{ holders: McpTokenHolder[]; total: number }> {
    const { rows } = await this.sql.query<{
      user_id: string;
      tokens: number | string;
      last_used_at: Date | string | null;
      total: number | string;
    }>(
      `SELECT user_id, count(*) AS tokens, max(last_used_at) AS last_used_at, count(*) OVER () AS total
       FROM mcp_tokens WHERE workspace = $1 AND revoked_at IS NULL AND expires_at > $2
       GROUP BY user_id ORDER BY max(coalesce(last_used_at, created_at)) DESC, user_id LIMIT $3`,
      [workspace, now.toISOString(), limit],
    );
    return {
      holders: rows.map((r) => ({
        userId: r.user_id,
        tokens: Number(r.tokens),
        lastUsedAt: iso(r.last_used_at),
      })),
      total: Number(rows[0]?.total ?? 0),
    };
  }
}

/**
 * How long a token found usable is taken as still usable on this replica without asking the store again.
 * A revoke on this replica (its owner, an admin, the person deactivated in Slack, the app uninstalled)
 * forgets it at once; one made on another replica is seen here within this long. Expiry is still
 * checked on every request.
 */
export const TOKEN_CHECK_KEPT_MS = 10_000;

/** Tokens kept at most: a busy replica's hosts, never a bound on how many may call. */
const TOKENS_KEPT_AT_MOST = 10_000;

/**
 * The repository with each token found usable kept a short while by its hash (TOKEN_CHECK_KEPT_MS), so a
 * host's calls (a wait admitted, a tool called) don't each read the store for it. Unknown, revoked and
 * expired tokens are never kept: a new token works at once and a guess costs what it did. Every revoke
 * through this repository forgets the tokens it revoked before it returns. One per store, so one per
 * replica, shared by the endpoint and App Home.
 */
export class CachedMcpTokenRepository implements McpTokenRepository {
  readonly #usable: LRUCache<string, McpTokenRecord>;
  /** Counts revokes seen here: a store read that began before one is not kept (it may predate the revoke). */
  #revokes = 0;

  constructor(
    private readonly inner: McpTokenRepository,
    options: { keptMs?: number; now?: () => number } = {},
  ) {
    const now = options.now ?? (() => Date.now());
    // The clock read at every check, never rounded: a test that moves it moves the cache's time too.
    this.#usable = boundedCache({
      max: TOKENS_KEPT_AT_MOST,
      ttl: options.keptMs ?? TOKEN_CHECK_KEPT_MS,
      ttlResolution: 0,
      perf: { now },
    });
  }

  create(token: Parameters<McpTokenRepository['create']>[0]): Promise<void> {
    return this.inner.create(token);
  }

  async findUsable(hash: string, now: Date): Promise<McpTokenRecord | undefined> {
    const kept = this.#usable.get(hash);
    if (kept) return Date.parse(kept.expiresAt) > now.getTime() ? kept : undefined;
    const revokesBefore = this.#revokes;
    const found = await this.inner.findUsable(hash, now);
    if (found && this.#revokes === revokesBefore) this.#usable.set(hash, found);
    return found;
  }

  usableFor(workspace: string, userId: string, now: Date): Promise<McpTokenRecord[]> {
    return this.inner.usableFor(workspace, userId, now);
  }

  async revoke(workspace: string, userId: string, id: string): Promise<boolean> {
    this.#forget((t) => t.id === id);
    const revoked = await this.inner.revoke(workspace, userId, id);
    // Forgotten again: a check that read the store while the revoke was on its way may have kept it.
    this.#forget((t) => t.id === id);
    return revoked;
  }

  async used(id: string, client: string | null, now: Date): Promise<void> {
    await this.inner.used(id, client, now);
    this.#noteUses([{ id, client, at: now }]);
  }

  async usedMany(uses: TokenUse[]): Promise<void> {
    await this.inner.usedMany(uses);
    this.#noteUses(uses);
  }

  #noteUses(uses: TokenUse[]): void {
    const byId = new Map(uses.map((u) => [u.id, u]));
    for (const [hash, t] of this.#usable.entries()) {
      const use = byId.get(t.id);
      if (use)
        // Its time kept unchanged (noUpdateTTL): a use never extends how long a revoke elsewhere goes unseen.
        this.#usable.set(
          hash,
          { ...t, lastUsedAt: use.at.toISOString(), lastClient: use.client ?? t.lastClient },
          { noUpdateTTL: true },
        );
    }
  }

  async revokeWorkspace(workspace: string): Promise<number> {
    this.#forget((t) => t.workspace === workspace);
    const revoked = await this.inner.revokeWorkspace(workspace);
    this.#forget((t) => t.workspace === workspace);
    return revoked;
  }

  async revokePerson(workspace: string, userId: string): Promise<number> {
    const theirs = (t: McpTokenRecord) => t.workspace === workspace && t.userId === userId;
    this.#forget(theirs);
    const revoked = await this.inner.revokePerson(workspace, userId);
    this.#forget(theirs);
    return revoked;
  }

  holdersIn(workspace: string, now: Date, limit: number) {
    return this.inner.holdersIn(workspace, now, limit);
  }

  #forget(matches: (token: McpTokenRecord) => boolean): void {
    this.#revokes += 1;
    for (const [hash, token] of this.#usable.entries()) if (matches(token)) this.#usable.delete(hash);
  }
}
