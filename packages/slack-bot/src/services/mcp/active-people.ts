import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../../bounded-cache.js';
import type { Logger } from '../../logger.js';
import { inWorkspace, scopedKey } from '../../workspace.js';
import { SharedCalls } from '../shared-calls.js';
import { slackErrorCode } from '../slack-out/outbound/index.js';
import type { McpCaller } from './tokens.js';

/** What users.info says of a person, as far as this check reads it. */
export interface SlackUser {
  /** Deactivated: Slack keeps the account (users.info still answers), marked `deleted: true`. */
  deleted?: boolean;
}

export interface ActivePeopleSettings {
  /** How long Slack's answer that a person is active is taken as true: about a minute. */
  freshMs: number;
  /**
   * How long past `freshMs` a person Slack last called active is still let in while Slack can't be asked
   * (an outage, a rate limit). Past it, their requests are refused until Slack answers again.
   */
  staleMs: number;
}

/** A minute fresh; five more while Slack can't answer. */
export const ACTIVE_PEOPLE: ActivePeopleSettings = { freshMs: 60_000, staleMs: 5 * 60_000 };

/** People whose answer is kept, at most, per replica: an LRU, so a busy workspace can't grow it forever. */
const KEPT_AT_MOST = 10_000;

export type Standing =
  | { active: true }
  /** Slack says the person is deactivated or doesn't exist: their tokens are revoked. */
  | { active: false; gone: true; message: string }
  /** Slack couldn't be asked and nothing recent enough is known: try again later. */
  | { active: false; gone: false; message: string; retryAfterSeconds: number };

/**
 * Whether a token's person is still in Slack, asked of users.info in the token's workspace on each MCP
 * request and kept about a minute: a token is a way in that outlives nothing, so a person deactivated in
 * Slack (offboarded, or removed by an admin) stops acting through it from their next request, whatever
 * its expiry. A person Slack calls deactivated (`deleted: true`) or doesn't know (`user_not_found`) is
 * refused and every token of theirs in that workspace revoked, for every replica (the store holds them).
 *
 * When Slack can't be asked, the last "active" is served up to `staleMs` past its minute, then the
 * person is refused (fail closed) until Slack answers: a short outage doesn't stop every host at once,
 * and a long one doesn't let a leaver in for as long as it lasts (`user_change` revokes them as soon as
 * Slack delivers it).
 */
export class ActivePeople {
  readonly #known: LRUCache<string, { askedAt: number }>;
  readonly #asking = new SharedCalls<SlackUser | undefined>();
  readonly #settings: ActivePeopleSettings;

  constructor(
    private readonly deps: {
      /** users.info in the current workspace; undefined when Slack says `user_not_found`; throws otherwise. */
      usersInfo: (userId: string) => Promise<SlackUser | undefined>;
      /** Revokes every token of the person in that workspace; how many still worked. */
      revokePerson: (caller: McpCaller) => Promise<number>;
      logger: Logger;
      settings?: ActivePeopleSettings;
      now?: () => number;
    },
  ) {
    this.#settings = deps.settings ?? ACTIVE_PEOPLE;
    this.#known = boundedCache({ max: KEPT_AT_MOST });
  }

  async standing(caller: McpCaller): Promise<Standing> {
    const key = scopedKey(caller.workspace.key, caller.userId);
    const known = this.#known.get(key);
    const now = this.#now();
    if (known && now - known.askedAt < this.#settings.freshMs) return { active: true };
    let person: SlackUser | undefined;
    try {
      person = await this.#ask(caller);
    } catch (error) {
      return this.#unanswered(caller, known, error);
    }
    if (person && person.deleted !== true) {
      this.#known.set(key, { askedAt: this.#now() });
      return { active: true };
    }
    this.#known.delete(key);
    const revoked = await this.deps.revokePerson(caller);
    this.deps.logger.info(
      { userId: caller.userId, workspace: caller.workspace.key, revoked },
      'an MCP token’s person is deactivated in Slack: their tokens are revoked',
    );
    return {
      active: false,
      gone: true,
      message:
        'Slack says this token’s person is deactivated or no longer in the workspace: their tokens for agent hosts are revoked',
    };
  }

  /** One users.info at a time per person: a host's burst of calls asks Slack once. */
  #ask(caller: McpCaller): Promise<SlackUser | undefined> {
    const key = scopedKey(caller.workspace.key, caller.userId);
    return this.#asking.run(key, () =>
      inWorkspace(caller.workspace, () => this.deps.usersInfo(caller.userId)),
    );
  }

  #unanswered(caller: McpCaller, known: { askedAt: number } | undefined, error: unknown): Standing {
    const { freshMs, staleMs } = this.#settings;
    const age = known ? this.#now() - known.askedAt : undefined;
    if (age !== undefined && age < freshMs + staleMs) {
      this.deps.logger.warn(
        { err: error, userId: caller.userId },
        'users.info failed: the person’s last answer serves',
      );
      return { active: true };
    }
    this.deps.logger.warn(
      { err: error, userId: caller.userId },
      'users.info failed: an MCP request is refused',
    );
    return {
      active: false,
      gone: false,
      retryAfterSeconds: Math.ceil(freshMs / 1000),
      message:
        'Slack could not confirm that this token’s person is still active (users.info failed): try again shortly',
    };
  }

  #now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}

/**
 * users.info's answer as ActivePeople reads it: the user, or undefined for `user_not_found` (Slack no
 * longer knows them); any other failure is thrown, since it says nothing about the person.
 */
export async function slackUser(ask: () => Promise<{ user?: SlackUser }>): Promise<SlackUser | undefined> {
  try {
    return (await ask()).user;
  } catch (error) {
    if (slackErrorCode(error) === 'user_not_found') return undefined;
    throw error;
  }
}
