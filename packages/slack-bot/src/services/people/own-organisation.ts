import type { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.js';
import { cacheKey } from '../../workspace.js';
import { SharedCalls } from '../shared-calls.js';
import { type BotIdentity, botIdentity, type SlackClient } from '../slack-out/outbound/index.js';
import { ttlCache } from '../ttl-cache.js';

/**
 * Who belongs to the bot's own workspace (or its Enterprise Grid organisation). Slack Connect puts people
 * of other organisations in a shared channel, and conversations.members lists them with everyone else:
 * taken as members, they could answer approvals and read sessions of a company that isn't theirs.
 * users.info says whose they are — `team_id` against auth.test's, and `is_stranger` for someone Slack
 * itself calls a stranger; `deleted` for someone deactivated. Each answer is kept a while; one that can't
 * be read counts as not ours.
 */
export class OwnOrganisation {
  readonly #self: () => Promise<BotIdentity>;
  /** Whether each person is ours, per workspace and person (`cacheKey`). */
  readonly #cache: LRUCache<string, boolean>;
  /** Lookups under way: checks of one person at once share one users.info (Tier 4, about 100 a minute). */
  readonly #asking = new SharedCalls<boolean>();

  constructor(
    private readonly slack: Pick<SlackClient, 'auth' | 'users'>,
    private readonly logger: Logger,
    ttlMs = 60_000,
    /** Who the bot is (the bot's one auth.test reader); asked of Slack here when not given. */
    self?: () => Promise<BotIdentity>,
  ) {
    this.#self = self ?? botIdentity(slack);
    this.#cache = ttlCache({ max: 5_000, ttlMs });
  }

  async includes(userId: string): Promise<boolean> {
    const key = cacheKey(userId);
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    return this.#asking.run(key, () => this.#ask(userId));
  }

  async #ask(userId: string): Promise<boolean> {
    try {
      const [self, info] = await Promise.all([this.#self(), this.slack.users.info({ user: userId })]);
      const user = info.user;
      const sameTeam = self.teamId !== undefined && user?.team_id === self.teamId;
      const sameOrg =
        self.enterpriseId !== undefined && user?.enterprise_user?.enterprise_id === self.enterpriseId;
      // A deactivated member is no longer one of ours: conversations.members may still list them.
      const local =
        user !== undefined && user.deleted !== true && user.is_stranger !== true && (sameTeam || sameOrg);
      this.#cache.set(cacheKey(userId), local);
      return local;
    } catch (error) {
      // Fail closed: someone we can't place is not counted as one of ours.
      this.logger.warn({ err: error, userId }, 'could not tell which workspace a member belongs to');
      return false;
    }
  }
}
