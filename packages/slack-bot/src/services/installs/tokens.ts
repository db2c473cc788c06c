import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthorizeResult, AuthorizeSourceData } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import type { InstallationRepository, SlackInstallation } from '../../store/index.js';
import { type Workspace, type WorkspaceIds, workspaceKey } from '../../workspace.js';
import { SharedCalls } from '../shared-calls.js';
import type { BotIdentity } from '../slack-out/outbound/index.js';

/** What oauth.v2.access answers to `grant_type=refresh_token`: the new token pair and its lifetime. */
export interface RefreshedToken {
  accessToken: string;
  refreshToken: string;
  /** Seconds. */
  expiresIn: number;
}

/** An installation as stored here: what the flow gave, plus how long its bot token lives. */
export type StoredInstallation = SlackInstallation & { botTokenLifetime?: number };

/** A workspace that has no installation (never installed, or uninstalled since). */
export class NotInstalledError extends Error {
  override name = 'NotInstalledError';
  /** As Slack answers a token of an uninstalled app, so callers treat it as Slack's own refusal. */
  readonly data = { ok: false, error: 'account_inactive' };
  constructor(readonly workspace: string) {
    super(`the app is not installed in ${workspace}`);
  }
}

export interface WorkspaceTokensOptions {
  installations: InstallationRepository;
  /** oauth.v2.access with the refresh token (token rotation). */
  exchange: (refreshToken: string) => Promise<RefreshedToken>;
  logger: Logger;
  /** Seconds since the epoch (tests move it). */
  now?: () => number;
  /**
   * Refresh when less than this is left of a token's life (seconds); by default the smaller of two hours
   * (as @slack/oauth does) and half the token's lifetime, so a short-lived token isn't refreshed on every call.
   */
  refreshBeforeSeconds?: number;
  /**
   * How long a replica's claim on a refresh lasts (ms): longer than the exchange's timeout, so a claim
   * lapses only when its replica died, and another may then refresh.
   */
  refreshClaimMs?: number;
  /** How often a replica that needs the token, while another refreshes it, looks again (ms). */
  claimPollMs?: number;
}

const TWO_HOURS = 7_200;
const TWELVE_HOURS = 43_200;
/** The exchange's own limit (oauth.v2.access, no retries): a claim outlives it by far. */
export const REFRESH_TIMEOUT_MS = 10_000;
const REFRESH_CLAIM_MS = 60_000;
const CLAIM_POLL_MS = 250;

/**
 * Each workspace's bot token, from the store: refreshed before it expires (token rotation), once across
 * replicas — a claim in the store that one replica holds while it calls Slack, outside any transaction
 * (a slow Slack holds no lock: on PGlite a held transaction would stop every query), and one refresh in
 * flight per workspace in this process. Another replica needing the token meanwhile uses the stored one
 * while it is still valid, else waits for the claim to end.
 */
export class WorkspaceTokens {
  readonly #inFlight = new SharedCalls<StoredInstallation | undefined>();
  readonly #now: () => number;

  constructor(private readonly options: WorkspaceTokensOptions) {
    this.#now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /** The installation for these ids (the org's for an org-wide install), its token fresh; undefined if none. */
  async installation(ids: WorkspaceIds | Workspace): Promise<StoredInstallation | undefined> {
    const key = 'key' in ids ? ids.key : workspaceKey(ids);
    if (key === undefined) return undefined;
    const found = (await this.options.installations.find(key)) as StoredInstallation | undefined;
    if (!found || !this.#due(found)) return found;
    return this.#refresh(key).catch((error: unknown) => {
      // A failed refresh leaves the stored pair as it was: its token serves until it expires.
      this.options.logger.warn({ err: error, workspace: key }, 'could not refresh a bot token');
      if ((found.bot?.expiresAt ?? 0) > this.#now()) return found;
      throw error;
    });
  }

  async botToken(workspace: Workspace): Promise<string> {
    const token = (await this.installation(workspace))?.bot?.token;
    if (!token) throw new NotInstalledError(workspace.key);
    return token;
  }

  /** Who the bot is in this workspace, from its installation (no auth.test needed). */
  async identity(workspace: Workspace): Promise<BotIdentity> {
    const found = await this.installation(workspace);
    if (!found) throw new NotInstalledError(workspace.key);
    return {
      ...(found.bot?.userId ? { userId: found.bot.userId } : {}),
      ...(found.bot?.id ? { botId: found.bot.id } : {}),
      ...((workspace.teamId ?? found.team?.id) ? { teamId: workspace.teamId ?? found.team?.id } : {}),
      ...(found.enterprise?.id ? { enterpriseId: found.enterprise.id } : {}),
    };
  }

  /**
   * Bolt's `authorize`: the token of the workspace a request comes from. An uninstall's own events may
   * arrive after the tokens are gone: they are let through tokenless, the rest refused.
   */
  readonly authorize = async (
    source: AuthorizeSourceData<boolean>,
    body?: unknown,
  ): Promise<AuthorizeResult> => {
    const ids = {
      teamId: source.teamId,
      enterpriseId: source.enterpriseId,
      isEnterpriseInstall: source.isEnterpriseInstall,
    };
    const found = await this.installation(ids);
    const ownIds = {
      ...(source.teamId ? { teamId: source.teamId } : {}),
      ...(source.enterpriseId ? { enterpriseId: source.enterpriseId } : {}),
    };
    if (!found?.bot) {
      if (isUninstallEvent(body)) return ownIds;
      throw new NotInstalledError(workspaceKey(ids) ?? 'an unknown workspace');
    }
    return {
      ...ownIds,
      botToken: found.bot.token,
      botId: found.bot.id,
      botUserId: found.bot.userId,
    };
  };

  /** Installation-time: how long the bot token lives, so its refresh comes at the right moment. */
  withLifetime(installation: SlackInstallation): StoredInstallation {
    const expiresAt = installation.bot?.expiresAt;
    if (expiresAt === undefined) return installation;
    return { ...installation, botTokenLifetime: Math.max(1, expiresAt - this.#now()) };
  }

  #due(installation: StoredInstallation): boolean {
    const bot = installation.bot;
    if (!bot?.refreshToken || bot.expiresAt === undefined) return false;
    const lifetime = installation.botTokenLifetime ?? TWELVE_HOURS;
    const before = this.options.refreshBeforeSeconds ?? Math.min(TWO_HOURS, lifetime / 2);
    return bot.expiresAt - this.#now() <= before;
  }

  #refresh(key: string): Promise<StoredInstallation | undefined> {
    return this.#inFlight.run(key, () => this.#refreshOnce(key));
  }

  /** Claims the refresh, or waits for whoever holds it while the stored token can't serve. */
  async #refreshOnce(key: string): Promise<StoredInstallation | undefined> {
    const claimMs = this.options.refreshClaimMs ?? REFRESH_CLAIM_MS;
    const claim = { id: randomUUID(), ttlMs: claimMs };
    const giveUp = Date.now() + claimMs + REFRESH_TIMEOUT_MS;
    for (;;) {
      const answer = await this.options.installations.claimRefresh(key, (i) => this.#due(i), claim);
      if (answer.state === 'missing') return undefined;
      const stored = answer.installation as StoredInstallation;
      if (answer.state === 'fresh') return stored;
      if (answer.state === 'claimed') return this.#exchange(key, claim.id, stored);
      // Another replica is refreshing: its token still serves, or this one waits for the new one.
      if ((stored.bot?.expiresAt ?? 0) > this.#now()) return stored;
      if (Date.now() > giveUp)
        throw new Error(`the bot token of ${key} is being refreshed by another replica`);
      await sleep(this.options.claimPollMs ?? CLAIM_POLL_MS);
    }
  }

  /** Under this replica's claim, outside any transaction: Slack's answer, saved while the claim holds. */
  async #exchange(key: string, claim: string, stored: StoredInstallation): Promise<StoredInstallation> {
    const { installations, logger } = this.options;
    const bot = stored.bot;
    if (!bot?.refreshToken) {
      await installations.releaseRefresh(key, claim);
      return stored;
    }
    let next: RefreshedToken;
    try {
      next = await this.options.exchange(bot.refreshToken);
    } catch (error) {
      await installations.releaseRefresh(key, claim).catch(() => {});
      throw error;
    }
    const refreshed: StoredInstallation = {
      ...stored,
      bot: {
        ...bot,
        token: next.accessToken,
        refreshToken: next.refreshToken,
        expiresAt: this.#now() + next.expiresIn,
      },
      botTokenLifetime: next.expiresIn,
    };
    if (await installations.finishRefresh(key, claim, refreshed)) {
      logger.info({ workspace: key, expiresIn: next.expiresIn }, 'refreshed a bot token');
      return refreshed;
    }
    // The claim lapsed and another replica took it: what the store holds now is the pair in use.
    logger.warn({ workspace: key }, 'a bot token refresh outlived its claim: the stored token is kept');
    return (await installations.find(key)) ?? refreshed;
  }
}

function isUninstallEvent(body: unknown): boolean {
  const type = (body as { event?: { type?: unknown } } | undefined)?.event?.type;
  return type === 'app_uninstalled' || type === 'tokens_revoked';
}
