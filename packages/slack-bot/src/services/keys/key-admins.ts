import type { Logger } from '../../logger.js';

interface SlackUser {
  team_id?: string;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  is_stranger?: boolean;
  deleted?: boolean;
}

/**
 * Who manages the workspace's service key: Slack's own workspace admins and owners (users.info
 * `is_admin` / `is_owner` / `is_primary_owner`, of the bot's workspace, not a guest), and the bot's
 * configured approvers. Admins because the key is what the workspace's sessions are billed to, and they
 * are who installs apps there; approvers because the operator who set the bot up named them to decide
 * for it, and a workspace whose admins never open the bot must not be locked out. Fails closed: someone
 * Slack can't tell us about manages nothing.
 */
export class WorkspaceAdmins {
  readonly #cache = new Map<string, { admin: boolean; until: number }>();

  constructor(
    private readonly deps: {
      usersInfo: (userId: string) => Promise<SlackUser | undefined>;
      isApprover: (userId: string) => Promise<boolean>;
      homeTeam: () => Promise<string | undefined>;
      logger: Logger;
      ttlMs?: number;
    },
  ) {}

  async includes(userId: string): Promise<boolean> {
    if (await this.deps.isApprover(userId).catch(() => false)) return true;
    const cached = this.#cache.get(userId);
    if (cached && cached.until > Date.now()) return cached.admin;
    let admin = false;
    try {
      const [user, team] = await Promise.all([this.deps.usersInfo(userId), this.deps.homeTeam()]);
      admin =
        user !== undefined &&
        team !== undefined &&
        user.team_id === team &&
        user.deleted !== true &&
        user.is_stranger !== true &&
        user.is_restricted !== true &&
        user.is_ultra_restricted !== true &&
        (user.is_admin === true || user.is_owner === true || user.is_primary_owner === true);
    } catch (error) {
      this.deps.logger.warn({ err: error, userId }, 'could not tell whether a person is a workspace admin');
    }
    this.#cache.set(userId, { admin, until: Date.now() + (this.deps.ttlMs ?? 60_000) });
    return admin;
  }
}
