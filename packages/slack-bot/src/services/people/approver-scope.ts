import type { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.js';
import { cacheKey, currentWorkspace } from '../../workspace.js';
import { type BotIdentity, botIdentity, type SlackClient } from '../slack-out/outbound/index.js';
import { ttlCache } from '../ttl-cache.js';
import { entriesIn, type WorkspaceEntry } from './workspace-entries.js';

/**
 * Which of AGENT_APPROVERS' entries apply where a check is made: under OAuth, the request's
 * (or session's) workspace; with one bot token, the bot's own — asked of Slack only when an entry has a
 * workspace prefix. Under OAuth an unprefixed user id counts only in the workspace Slack says that person
 * belongs to (users.info, cached a minute), so an id from one workspace grants nothing in another, and
 * while Slack says they are active (a deactivated approver grants nothing).
 */
export class ApproverScope {
  readonly #self: () => Promise<BotIdentity>;
  /** Whether each person belongs to the workspace asked about, per workspace and person (`cacheKey`). */
  readonly #belongs: LRUCache<string, boolean>;

  constructor(
    private readonly slack: Pick<SlackClient, 'auth' | 'users'>,
    private readonly logger: Logger,
    ttlMs = 60_000,
  ) {
    this.#self = botIdentity(slack);
    this.#belongs = ttlCache({ max: 5_000, ttlMs });
  }

  /** The entries that apply here. */
  async applying(entries: WorkspaceEntry[]): Promise<WorkspaceEntry[]> {
    const workspace = currentWorkspace();
    if (workspace?.isolated) return entriesIn(entries, workspace.teamId);
    if (!entries.some((e) => e.team !== undefined)) return entries;
    const own = await this.#self().catch((error: unknown) => {
      // Fail closed for the prefixed entries only: the unprefixed ones keep today's meaning.
      this.logger.warn({ err: error }, 'could not learn the bot’s workspace; prefixed approvers left out');
      return undefined;
    });
    return entriesIn(entries, own?.teamId);
  }

  /** The mentions' subset, without asking Slack: prefixed entries of other workspaces left out under OAuth. */
  shown(entries: WorkspaceEntry[]): WorkspaceEntry[] {
    const workspace = currentWorkspace();
    return workspace?.isolated ? entriesIn(entries, workspace.teamId) : entries;
  }

  /** Whether a user entry that applies counts for `userId` here (see the class). */
  async counts(entry: WorkspaceEntry, userId: string): Promise<boolean> {
    const workspace = currentWorkspace();
    if (entry.id !== userId) return false;
    if (entry.team !== undefined || !workspace?.isolated) return true;
    const key = cacheKey(userId);
    const cached = this.#belongs.get(key);
    if (cached !== undefined) return cached;
    try {
      const user = (await this.slack.users.info({ user: userId })).user;
      const yes =
        user !== undefined &&
        user.deleted !== true &&
        user.is_stranger !== true &&
        (user.team_id === workspace.teamId ||
          (workspace.enterpriseId !== undefined &&
            user.enterprise_user?.enterprise_id === workspace.enterpriseId));
      this.#belongs.set(key, yes);
      return yes;
    } catch (error) {
      this.logger.warn({ err: error, userId }, 'could not tell which workspace an approver belongs to');
      return false;
    }
  }
}
