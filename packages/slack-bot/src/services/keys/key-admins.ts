import type { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.js';
import { scopedKey } from '../../workspace.js';
import { ttlCache } from '../ttl-cache.js';

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
 *
 * What Slack said of a person is cached for a minute (5,000 people at most) under the workspace asked about and the person
 * (`scopedKey`): on Enterprise Grid one user id is a member of several workspaces, admin of some only, and
 * users.info may answer differently for each. The cache holds Slack's answer, never the verdict: the
 * workspace check runs on every call, hit or miss.
 */
export class WorkspaceAdmins {
  /** users.info's answer (wrapped: "no such user" is an answer too) per workspace and person. */
  readonly #cache: LRUCache<string, { user: SlackUser | undefined }>;

  constructor(
    private readonly deps: {
      usersInfo: (userId: string) => Promise<SlackUser | undefined>;
      isApprover: (userId: string) => Promise<boolean>;
      ownTeam: () => Promise<string | undefined>;
      logger: Logger;
      ttlMs?: number;
    },
  ) {
    this.#cache = ttlCache({ max: 5_000, ttlMs: deps.ttlMs ?? 60_000 });
  }

  async includes(userId: string): Promise<boolean> {
    if (await this.deps.isApprover(userId).catch(() => false)) return true;
    try {
      const team = await this.deps.ownTeam();
      if (team === undefined) return false;
      return isAdminOf(team, await this.#user(team, userId));
    } catch (error) {
      this.deps.logger.warn({ err: error, userId }, 'could not tell whether a person is a workspace admin');
      return false;
    }
  }

  /** users.info's answer about `userId`, as asked for `team`: cached per workspace and person. */
  async #user(team: string, userId: string): Promise<SlackUser | undefined> {
    const key = scopedKey(team, userId);
    const cached = this.#cache.get(key);
    if (cached) return cached.user;
    const user = await this.deps.usersInfo(userId);
    this.#cache.set(key, { user });
    return user;
  }
}

/** A workspace admin or owner of `team` itself: not a guest, not a stranger, not deactivated. */
function isAdminOf(team: string, user: SlackUser | undefined): boolean {
  return (
    user !== undefined &&
    user.team_id === team &&
    user.deleted !== true &&
    user.is_stranger !== true &&
    user.is_restricted !== true &&
    user.is_ultra_restricted !== true &&
    (user.is_admin === true || user.is_owner === true || user.is_primary_owner === true)
  );
}
