import type { CreateSessionRequest, HumanInputAnswer, SessionsReader } from '@agent-sessions/core';
import type { SessionsCalls } from '../outcome.js';
import { type ServiceKeys, teamOfRef } from './service-keys.js';

/**
 * The service's calls as every service of the bot makes them, each sent with the key of the session it
 * names: the slot its starter's key fills, whoever acts. So an answer, a signal or a budget raise by
 * anyone goes with the starter's key, and nothing in a payload can choose another.
 * `create` has no session yet: it goes with AGENT_API_KEY here; StartingService asks `ServiceKeys.forStart`.
 */
export function keyedCalls(
  keys: ServiceKeys,
  fallback: Pick<SessionsCalls, 'create'>,
): { sessions: SessionsCalls } {
  const of = (sessionId: string) => keys.clientForSession(sessionId);
  return {
    sessions: {
      create: (body: CreateSessionRequest) => fallback.create(body),
      get: async (id) => (await of(id)).sessions.get(id),
      respond: async (id, inputId: string, answer: HumanInputAnswer) =>
        (await of(id)).sessions.respond(id, inputId, answer),
      pause: async (id, body) => (await of(id)).sessions.pause(id, body),
      resume: async (id, body) => (await of(id)).sessions.resume(id, body),
      cancel: async (id, body) => (await of(id)).sessions.cancel(id, body),
      redirect: async (id, body) => (await of(id)).sessions.redirect(id, body),
    },
  };
}

/**
 * What the follower reads a slot's sessions with: one reader per slot, so each key has its own lane and
 * request budget in core's Follower (one heavy team can't starve another). Each read takes the slot's
 * current key (a removed key fails the poll with KeyUnavailableError) and is counted for its team.
 */
export class SlotReaders {
  readonly #readers = new Map<string, SessionsReader>();
  /** Follower requests by team id (never by key): `/metrics`. */
  readonly requests = new Map<string, number>();

  constructor(
    private readonly keys: ServiceKeys,
    /** The team of AGENT_API_KEY's sessions (single-workspace: the bot's own). */
    private readonly ownTeam: () => Promise<string | undefined>,
  ) {}

  /** Slots with a reader, by team: each is one key's budget. */
  lanesByTeam(): Map<string, number> {
    const out = new Map<string, number>();
    for (const team of this.#teams.values()) out.set(team, (out.get(team) ?? 0) + 1);
    return out;
  }

  readonly #teams = new Map<string, string>();

  async #count(slot: string, ref: string | null): Promise<void> {
    let team = this.#teams.get(slot);
    if (!team) {
      team = (ref ? teamOfRef(ref) : await this.ownTeam().catch(() => undefined)) ?? 'unknown';
      this.#teams.set(slot, team);
    }
    this.requests.set(team, (this.requests.get(team) ?? 0) + 1);
  }

  /** The reader of a slot (null: AGENT_API_KEY's). The same object each time: the follower's lane key. */
  readerOf(ref: string | null): SessionsReader {
    const slot = ref ?? 'default';
    let reader = this.#readers.get(slot);
    if (!reader) {
      // Each read about its session: AGENT_API_KEY's slot serves a session only while lent to its workspace.
      const client = (sessionId: string) => this.keys.clientOfSession(ref, sessionId);
      reader = {
        sessions: {
          get: async (id, options) => {
            const c = await client(id);
            await this.#count(slot, ref);
            return c.sessions.get(id, options);
          },
          messages: async (id, query, options) => {
            const c = await client(id);
            await this.#count(slot, ref);
            return c.sessions.messages(id, query, options);
          },
        },
      };
      this.#readers.set(slot, reader);
    }
    return reader;
  }
}
