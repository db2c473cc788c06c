import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { boundedCache } from '../../bounded-cache.js';
import type { McpTokenHolder, McpTokenRecord, McpTokenRepository, TokenUse } from '../../store/mcp-tokens.js';
import type { Workspace } from '../../workspace.js';

/** What a token's owner may be told about it: never the token, which is shown once when made. */
export type McpTokenInfo = Pick<
  McpTokenRecord,
  'id' | 'hint' | 'createdAt' | 'expiresAt' | 'lastUsedAt' | 'lastClient'
>;

/** Who a valid token acts as: one person in one workspace. */
export interface McpCaller {
  tokenId: string;
  userId: string;
  /** Its workspace as the store and Slack calls read it (`inWorkspace`). */
  workspace: Workspace;
  expiresAt: string;
  /** The host that last named itself with this token (`initialize`'s clientInfo). */
  lastClient?: string;
  /** When the token was last noted as used (ISO), if ever. */
  lastUsedAt?: string;
}

/** A token's use is written down at most this often (App Home shows it to the minute). */
const USE_NOTED_EVERY_MS = 60_000;

/**
 * Uses are written together, this long after the first of a batch: a burst of hosts (a thousand waits
 * opening at once) makes one write, not one per token (on PGlite, each write blocks the bot's thread).
 */
export const USES_WRITTEN_AFTER_MS = 1_000;

/** Tokens whose last noted use is remembered here, at most (past it, a use may be written again early). */
const NOTED_KEPT_AT_MOST = 10_000;

export interface McpTokenSettings {
  /** MCP_TOKEN_DAYS: how long a new token works. */
  ttlDays: number;
  /** OAuth installs: each workspace sees only its own sessions (`Workspace.isolated`). */
  isolated: boolean;
}

/**
 * Tokens that still work, per person in a workspace, at most: each is a way in to revoke if lost, and the
 * Home tab lists them all (with a Revoke button each).
 */
export const MAX_LIVE_TOKENS = 10;

/** Every token starts with it, so a leaked one is recognisable (secret scanners, logs). */
export const TOKEN_PREFIX = 'asm_mcp_';

/** A token as `mint` makes them: the prefix, then 32 random bytes in base64url (43 characters). */
const TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`);

/** Whether `token` has the shape of one of ours (it may still be unknown, revoked or expired). */
export const wellFormedToken = (token: string): boolean => TOKEN_SHAPE.test(token);

/** A token's SHA-256, as the store keeps it (the token itself is never kept). */
export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Personal MCP tokens: made for one person in one workspace (256 random bits, shown once), kept as their
 * SHA-256 (a token this long needs no slow hash: it can't be guessed, only stolen), checked on each
 * request, listed and revoked by their owner (and every one of a person's, when they leave Slack or a
 * workspace admin says so).
 */
export class McpTokens {
  /** When this replica last noted each token's use (ms), and with which client: one write a minute each. */
  readonly #noted = boundedCache<string, { at: number; client: string | undefined }>({
    max: NOTED_KEPT_AT_MOST,
  });
  /** Uses not yet written, by token id, and the write they wait for. */
  #batch: { uses: Map<string, TokenUse>; written: Promise<void> } | undefined;

  constructor(
    private readonly deps: {
      tokens: McpTokenRepository;
      settings: McpTokenSettings;
      now?: () => Date;
    },
  ) {}

  /** A new token for `userId` in `workspace`: the only time the token itself is seen. */
  async mint(workspace: Workspace, userId: string): Promise<{ token: string; info: McpTokenInfo }> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.#now();
    const expiresAt = new Date(now.getTime() + this.deps.settings.ttlDays * 86_400_000).toISOString();
    const id = randomUUID();
    const hint = `${token.slice(0, TOKEN_PREFIX.length + 4)}…`;
    await this.deps.tokens.create({
      id,
      hash: hashOf(token),
      workspace: workspace.key,
      teamId: workspace.teamId ?? null,
      enterpriseId: workspace.enterpriseId ?? null,
      userId,
      hint,
      expiresAt,
    });
    return {
      token,
      info: { id, hint, createdAt: now.toISOString(), expiresAt, lastUsedAt: null, lastClient: null },
    };
  }

  /** Who a bearer token acts as; undefined for a token that is unknown, revoked or expired. */
  async verify(token: string): Promise<McpCaller | undefined> {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    const found = await this.deps.tokens.findUsable(hashOf(token), this.#now());
    if (!found) return undefined;
    const workspace: Workspace = {
      ...(found.teamId ? { teamId: found.teamId } : {}),
      ...(found.enterpriseId ? { enterpriseId: found.enterpriseId } : {}),
      isEnterpriseInstall: found.enterpriseId !== null && found.workspace === found.enterpriseId,
      key: found.workspace,
      isolated: this.deps.settings.isolated,
    };
    // A use noted here and not yet written (or not yet read back) is newer than the record's.
    const lastClient = this.#noted.get(found.id)?.client ?? found.lastClient;
    return {
      ...{ tokenId: found.id, userId: found.userId, workspace, expiresAt: found.expiresAt },
      ...(lastClient ? { lastClient } : {}),
      ...(found.lastUsedAt ? { lastUsedAt: found.lastUsedAt } : {}),
    };
  }

  /**
   * Notes that a host used the token (shown in App Home); never fails the request it came with. Resolves
   * once written (with the other uses of its batch, USES_WRITTEN_AFTER_MS later).
   */
  async used(caller: McpCaller, client: string | undefined): Promise<void> {
    // Most calls change nothing App Home shows: no write (on PGlite, a write blocks the event loop). The
    // token's record may be a cached one from before this replica's last note: that note counts too.
    const now = this.#now().getTime();
    const noted = this.#noted.get(caller.tokenId);
    const lastAt = Math.max(
      caller.lastUsedAt ? Date.parse(caller.lastUsedAt) : -Infinity,
      noted?.at ?? -Infinity,
    );
    const lastClient = noted?.client ?? caller.lastClient;
    if (now - lastAt < USE_NOTED_EVERY_MS && (client === undefined || client === lastClient)) return;
    this.#noted.set(caller.tokenId, { at: now, client: client ?? lastClient });
    await this.#written(caller.tokenId, client ?? null, new Date(now));
  }

  /** Joins the batch of uses to write (one starts with the first use after the last write). */
  #written(id: string, client: string | null, at: Date): Promise<void> {
    if (!this.#batch) {
      const uses = new Map<string, TokenUse>();
      const written = new Promise<void>((resolve) =>
        setTimeout(() => {
          this.#batch = undefined;
          this.deps.tokens
            .usedMany([...uses.values()])
            .catch(() => {})
            .then(resolve);
        }, USES_WRITTEN_AFTER_MS).unref(),
      );
      this.#batch = { uses, written };
    }
    const before = this.#batch.uses.get(id);
    this.#batch.uses.set(id, { id, at, client: client ?? before?.client ?? null });
    return this.#batch.written;
  }

  async list(workspace: Workspace, userId: string): Promise<McpTokenInfo[]> {
    const found = await this.deps.tokens.usableFor(workspace.key, userId, this.#now());
    return found.map(({ id, hint, createdAt, expiresAt, lastUsedAt, lastClient }) => ({
      ...{ id, hint, createdAt, expiresAt, lastUsedAt, lastClient },
    }));
  }

  /** Revokes one of the person's own tokens (by its id); another's id is as unknown as a made-up one. */
  revoke(workspace: Workspace, userId: string, id: string): Promise<boolean> {
    return this.deps.tokens.revoke(workspace.key, userId, id);
  }

  /**
   * Revokes every token of `userId` in `workspace`, whoever asks: the person left Slack, or one of the
   * workspace's admins revoked them. How many still worked.
   */
  revokePerson(workspace: Workspace, userId: string): Promise<number> {
    return this.deps.tokens.revokePerson(workspace.key, userId);
  }

  /** Who holds working tokens in `workspace` (at most `limit` people, the most recently active first). */
  holders(workspace: Workspace, limit: number): Promise<{ holders: McpTokenHolder[]; total: number }> {
    return this.deps.tokens.holdersIn(workspace.key, this.#now(), limit);
  }

  #now(): Date {
    return this.deps.now?.() ?? new Date();
  }
}
