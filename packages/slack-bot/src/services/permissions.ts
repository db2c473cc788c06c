import type { Logger } from '../logger.js';
import type { SlackClient } from './slack.js';

export type Verdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Who may act on a session: the person who started it and the configured approvers — user ids (U…, W…)
 * and user groups (S…), whose members are looked up and kept for a minute.
 */
export class Permissions {
  readonly #users: Set<string>;
  readonly #groups: string[];
  readonly #allowedChannels: Set<string>;
  readonly #groupCache = new Map<string, { members: Set<string>; until: number }>();

  constructor(
    private readonly slack: SlackClient,
    options: { approvers: string[]; allowedChannels: string[]; groupTtlMs?: number },
    private readonly logger: Logger,
    private readonly groupTtlMs = options.groupTtlMs ?? 60_000,
  ) {
    this.#users = new Set(options.approvers.filter((id) => !id.startsWith('S')));
    this.#groups = options.approvers.filter((id) => id.startsWith('S'));
    this.#allowedChannels = new Set(options.allowedChannels);
  }

  /** Sessions may be started only in the allowed channels, when a list is configured. */
  channel(channelId: string): Verdict {
    if (this.#allowedChannels.size === 0 || this.#allowedChannels.has(channelId)) return { allowed: true };
    return {
      allowed: false,
      reason: `Agent sessions can't be started in this channel. Allowed: ${[...this.#allowedChannels].map((c) => `<#${c}>`).join(', ')}.`,
    };
  }

  async act(userId: string, session: { startedBy: string }): Promise<Verdict> {
    if (userId === session.startedBy || this.#users.has(userId)) return { allowed: true };
    for (const group of this.#groups) {
      if ((await this.#members(group)).has(userId)) return { allowed: true };
    }
    return {
      allowed: false,
      reason: `Only <@${session.startedBy}> (who started this session) and the configured approvers can do that.`,
    };
  }

  async #members(group: string): Promise<Set<string>> {
    const cached = this.#groupCache.get(group);
    if (cached && cached.until > Date.now()) return cached.members;
    try {
      const result = await this.slack.usergroups.users.list({ usergroup: group });
      const members = new Set(result.users ?? []);
      this.#groupCache.set(group, { members, until: Date.now() + this.groupTtlMs });
      return members;
    } catch (error) {
      // Fail closed: an approver group we can't read grants nothing.
      this.logger.warn({ err: error, group }, 'could not read an approver user group');
      return cached?.members ?? new Set();
    }
  }
}
