import type { Logger } from '../../logger.js';
import { cacheKey } from '../../workspace.js';
import { type BotIdentity, botIdentity, type SlackClient } from '../slack-out/outbound/index.js';

/**
 * Who belongs to the bot's own workspace (or its Enterprise Grid organisation). Slack Connect puts people
 * of other organisations in a shared channel, and conversations.members lists them with everyone else:
 * taken as members, they could answer approvals and read sessions of a company that isn't theirs.
 * users.info says whose they are — `team_id` against auth.test's, and `is_stranger` for someone Slack
 * itself calls a stranger. Each answer is kept a while; one that can't be read counts as not ours.
 */
export class HomeTeam {
  readonly #self: () => Promise<BotIdentity>;
  readonly #cache = new Map<string, { local: boolean; until: number }>();

  constructor(
    private readonly slack: Pick<SlackClient, 'auth' | 'users'>,
    private readonly logger: Logger,
    private readonly ttlMs = 60_000,
    /** Who the bot is (the bot's one auth.test reader); asked of Slack here when not given. */
    self?: () => Promise<BotIdentity>,
  ) {
    this.#self = self ?? botIdentity(slack);
  }

  async includes(userId: string): Promise<boolean> {
    const cached = this.#cache.get(cacheKey(userId));
    if (cached && cached.until > Date.now()) return cached.local;
    try {
      const [self, info] = await Promise.all([this.#self(), this.slack.users.info({ user: userId })]);
      const user = info.user;
      const sameTeam = self.teamId !== undefined && user?.team_id === self.teamId;
      const sameOrg =
        self.enterpriseId !== undefined && user?.enterprise_user?.enterprise_id === self.enterpriseId;
      const local = user !== undefined && user.is_stranger !== true && (sameTeam || sameOrg);
      this.#cache.set(cacheKey(userId), { local, until: Date.now() + this.ttlMs });
      if (this.#cache.size > 5_000) this.#cache.delete(this.#cache.keys().next().value ?? '');
      return local;
    } catch (error) {
      // Fail closed: someone we can't place is not counted as one of ours.
      this.logger.warn({ err: error, userId }, 'could not tell which workspace a member belongs to');
      return false;
    }
  }
}
