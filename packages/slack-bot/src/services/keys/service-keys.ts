import { randomUUID } from 'node:crypto';
import {
  AgentSessionsClient,
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
  type RequestTracer,
} from '@agent-sessions/core';
import type { Logger } from '../../logger.js';
import type { ServiceKeyRepository, StoredServiceKey } from '../../store/service-keys.js';
import { type KeyCipher, KeyDecryptError, maskKey } from './cipher.js';
import {
  KeyLinkError,
  KeyUnavailableError,
  LOAN_WITHDRAWN,
  LOAN_WITHDRAWN_FIX,
  NO_ENCRYPTION_KEY,
  NoKeySlotError,
} from './key-errors.js';

/** How long a key's check (or a signup) may take: the form it came from is answered before. */
export const KEY_CALL_TIMEOUT_MS = 10_000;

/** `per-workspace` (default): one key per workspace, linked by an admin. `per-person`: each starter's own. */
export type KeyMode = 'per-workspace' | 'per-person';

/** The slot a key fills; the session records this, never the key. */
export const workspaceRef = (teamId: string) => `team:${teamId}`;
export const personRef = (teamId: string, userId: string) => `person:${teamId}:${userId}`;
/** The team a slot belongs to (for metrics: by team id, never the key). */
export const teamOfRef = (ref: string) => ref.split(':')[1];
/** Associated data of a slot's ciphertext: moved to another slot, it no longer decrypts. */
const ownerOf = (ref: string) => `agent-sessions service key ${ref}`;

/** A start where the workspace has no key linked and the operator's key isn't lent to it. */
export const NO_KEY_HERE =
  'This workspace has no Agent Session Service key linked yet, and the app’s own key isn’t lent to it, so nothing was started. An admin of this workspace must link a key first: open my *Home* tab and press *Link a key*.';

export type KeyCheck = { ok: true } | { ok: false; problem: 'rejected' | 'unreachable'; message: string };

type Resolved =
  | { ok: true; client: AgentSessionsClient; version: string }
  | { ok: false; error: KeyUnavailableError; version: string };

export interface ServiceKeysOptions {
  repo: ServiceKeyRepository;
  /** Undefined: AGENT_KEY_ENCRYPTION_KEY is not set, and nothing can be linked. */
  cipher: KeyCipher | undefined;
  mode: KeyMode;
  serviceUrl: string;
  /** AGENT_API_KEY's client: sessions whose slot is empty (today's setups) run under it. */
  defaultClient: AgentSessionsClient;
  /**
   * Whether AGENT_API_KEY serves the current workspace while it has no key linked (AGENT_API_KEY_TEAMS,
   * under OAuth); where it answers false, a start is refused. Unset: it serves every start (one workspace).
   */
  defaultLent?: () => boolean;
  /**
   * Whether AGENT_API_KEY still serves a running session (its workspace still in AGENT_API_KEY_TEAMS,
   * under OAuth). Unset: always. Where it answers false, the session's calls are refused (`withdrawn`).
   */
  lentToSession?: (sessionId: string) => Promise<boolean>;
  /** The version of AGENT_API_KEY (a fingerprint): a notice about it is said once per configured key. */
  defaultVersion?: string;
  /** The workspace a person acts in when the request doesn't say (single-workspace: the bot's own). */
  ownTeam: () => Promise<string | undefined>;
  /**
   * The workspace the current request belongs to, when the bot serves several (OAuth installs): asked
   * before `ownTeam`. Never read from a payload's fields here: whoever calls it answers for it.
   */
  currentTeam?: () => string | undefined;
  logger: Logger;
  /** How long a slot's key, once read, serves before the store is asked again. Default 3 s. */
  cacheMs?: number;
  /** Told of every request of the keys' clients (a span each, `traceparent` sent). */
  tracer?: RequestTracer;
  newClient?: (apiKey: string) => AgentSessionsClient;
}

/**
 * The Agent Session Service keys the bot holds: which key a new session runs under, the key of
 * a running session (whoever acts on it), linking, checking and removing keys. A slot's key is read from
 * the store again every few seconds, so a key removed or replaced on one replica is seen by all.
 */
export class ServiceKeys {
  readonly mode: KeyMode;
  readonly #cache = new Map<string, Resolved & { at: number; stamp: string }>();
  readonly #cacheMs: number;
  readonly #newClient: (apiKey: string) => AgentSessionsClient;

  constructor(private readonly options: ServiceKeysOptions) {
    this.mode = options.mode;
    this.#cacheMs = options.cacheMs ?? 3_000;
    this.#newClient =
      options.newClient ??
      ((apiKey) =>
        new AgentSessionsClient({
          baseUrl: options.serviceUrl,
          apiKey,
          logger: options.logger.child({ component: 'client' }),
          ...(options.tracer ? { tracer: options.tracer } : {}),
        }));
  }

  get canLink(): boolean {
    return this.options.cipher !== undefined;
  }

  /**
   * The workspace a key slot is of: the one given, the current request's, else (one bot token) the bot's.
   * Under OAuth installs (`currentTeam` set) there is no fallback: NoKeySlotError, never a guessed slot.
   */
  async teamOf(teamId: string | undefined): Promise<string> {
    const given = teamId ?? this.options.currentTeam?.();
    if (given) return given;
    if (this.options.currentTeam) throw new NoKeySlotError();
    return (await this.options.ownTeam()) ?? 'unknown';
  }

  /** The slot of `userId`'s sessions in this mode (the workspace's, or their own). */
  async slotOf(userId: string, teamId?: string): Promise<string> {
    const team = await this.teamOf(teamId);
    return this.mode === 'per-person' ? personRef(team, userId) : workspaceRef(team);
  }

  /** What App Home shows of a slot's key: its mask and who linked it; nothing when empty. */
  async linked(
    ref: string,
  ): Promise<(Pick<StoredServiceKey, 'hint' | 'linkedBy' | 'linkedAt'> & { readable: boolean }) | undefined> {
    const row = await this.options.repo.get(ref);
    if (!row || row.ciphertext === '') return undefined;
    return {
      hint: row.hint,
      linkedBy: row.linkedBy,
      linkedAt: row.linkedAt,
      readable: (await this.#resolve(ref)).ok,
    };
  }

  /**
   * The key a session `userId` starts runs under: their own (per-person: required), the workspace's, or
   * AGENT_API_KEY while the workspace has none. The slot comes from who is starting, never from the payload.
   */
  async forStart(
    userId: string,
    teamId?: string,
  ): Promise<
    { ok: true; ref: string | undefined; client: AgentSessionsClient } | { ok: false; message: string }
  > {
    let ref: string;
    try {
      ref = await this.slotOf(userId, teamId);
    } catch (error) {
      if (error instanceof NoKeySlotError) return { ok: false, message: error.message };
      throw error;
    }
    const row = await this.options.repo.get(ref);
    if (!row || row.ciphertext === '') {
      if (this.mode === 'per-workspace' && this.options.defaultLent?.() === false)
        return { ok: false, message: NO_KEY_HERE };
      if (this.mode === 'per-workspace')
        return { ok: true, ref: undefined, client: this.options.defaultClient };
      return {
        ok: false,
        message:
          'Sessions here run under each person’s own Agent Session Service key, and you haven’t linked one yet: open my *Home* tab and press *Link a key*.',
      };
    }
    const resolved = await this.#resolve(ref);
    if (!resolved.ok) {
      const whose = this.mode === 'per-person' ? 'Your' : 'This workspace’s';
      return {
        ok: false,
        message: `${whose} linked service key can’t be read any more (the bot’s encryption key changed): link it again on my *Home* tab.`,
      };
    }
    return { ok: true, ref, client: resolved.client };
  }

  /**
   * The workspace's own key, whatever the mode: a start no person made (a workflow nobody ran) never
   * goes with someone's own key. The workspace's linked key, else AGENT_API_KEY where it serves the workspace.
   */
  async forWorkspace(
    teamId?: string,
  ): Promise<
    { ok: true; ref: string | undefined; client: AgentSessionsClient } | { ok: false; message: string }
  > {
    const ref = workspaceRef(await this.teamOf(teamId));
    const row = await this.options.repo.get(ref);
    if (!row || row.ciphertext === '') {
      if (this.options.defaultLent?.() === false) return { ok: false, message: NO_KEY_HERE };
      return { ok: true, ref: undefined, client: this.options.defaultClient };
    }
    const resolved = await this.#resolve(ref);
    if (!resolved.ok)
      return {
        ok: false,
        message:
          'This workspace’s linked service key can’t be read any more (the bot’s encryption key changed): link it again on my *Home* tab.',
      };
    return { ok: true, ref, client: resolved.client };
  }

  /** The client of a slot (null: AGENT_API_KEY's); throws KeyUnavailableError when its key is gone. */
  async clientOf(ref: string | null | undefined): Promise<AgentSessionsClient> {
    if (!ref) return this.options.defaultClient;
    const resolved = await this.#resolve(ref);
    if (!resolved.ok) throw resolved.error;
    return resolved.client;
  }

  /** The client a running session's calls go through, whoever acts: its starter's slot's key. */
  async clientForSession(sessionId: string): Promise<AgentSessionsClient> {
    return this.clientOfSession(await this.options.repo.refOf(sessionId), sessionId);
  }

  /**
   * The client of a call about `sessionId`, whose slot is `ref`: as clientOf, and AGENT_API_KEY's only
   * while it is still lent to the session's workspace. A withdrawn loan refuses the call (KeyUnavailableError,
   * `withdrawn`): the session was made under the operator's account, which no other key can reach.
   */
  async clientOfSession(ref: string | null | undefined, sessionId: string): Promise<AgentSessionsClient> {
    if (!ref && !(await this.#lentTo(sessionId)))
      throw new KeyUnavailableError('withdrawn', LOAN_WITHDRAWN, LOAN_WITHDRAWN_FIX);
    return this.clientOf(ref);
  }

  /**
   * clientOfSession's answer when it needs no read and no wait: AGENT_API_KEY's where no loan is checked,
   * or a slot's key read within the last few seconds. Undefined when only clientOfSession can say.
   */
  clientOfSessionNow(ref: string | null | undefined): AgentSessionsClient | undefined {
    if (!ref) return this.options.lentToSession ? undefined : this.options.defaultClient;
    const cached = this.#cache.get(ref);
    return cached?.ok && this.#fresh(cached, Date.now()) ? cached.client : undefined;
  }

  /** The version of the key a session's slot holds now (notices are said once per version). */
  async versionOf(ref: string | null | undefined): Promise<string> {
    if (!ref) return this.options.defaultVersion ?? 'default';
    return (await this.#resolve(ref)).version;
  }

  /** As versionOf, and AGENT_API_KEY's loan to the session's workspace: withdrawn, it is another version. */
  async versionOfSession(ref: string | null | undefined, sessionId: string): Promise<string> {
    const version = await this.versionOf(ref);
    return !ref && !(await this.#lentTo(sessionId)) ? `${version}:withdrawn` : version;
  }

  /** A slot's key read within the last `cacheMs` is served without asking the store again. */
  #fresh(cached: { at: number }, now: number): boolean {
    return now - cached.at < this.#cacheMs;
  }

  async #lentTo(sessionId: string): Promise<boolean> {
    return this.options.lentToSession ? this.options.lentToSession(sessionId) : true;
  }

  async #resolve(ref: string): Promise<Resolved> {
    const cached = this.#cache.get(ref);
    const now = Date.now();
    if (cached && this.#fresh(cached, now)) return cached;
    const row = await this.options.repo.get(ref);
    // What was read: a new link, a removal or a re-encryption (rotation) makes it read again.
    const stamp = `${row?.version ?? 'none'}|${row?.keyId ?? ''}`;
    if (cached && cached.stamp === stamp) {
      cached.at = now;
      return cached;
    }
    const version = row?.version ?? 'none';
    let resolved: Resolved;
    if (!row || row.ciphertext === '') {
      resolved = {
        ok: false,
        version,
        error: new KeyUnavailableError('removed', 'the service key this session runs under was removed'),
      };
    } else {
      try {
        const plain = this.#cipher().decrypt(row.ciphertext, ownerOf(ref));
        resolved = { ok: true, version, client: this.#newClient(plain) };
      } catch (error) {
        if (!(error instanceof KeyDecryptError) && !(error instanceof KeyLinkError)) throw error;
        this.options.logger.warn({ ref, reason: error.message }, 'a stored service key could not be read');
        resolved = {
          ok: false,
          // Unreadable with this replica's encryption key: a replica that can read it (mid-rotation) still
          // follows, and this one does once it runs with the key (the notice names this key).
          version: `${version}:unreadable:${this.options.cipher?.keyId ?? 'none'}`,
          error: new KeyUnavailableError(
            'unreadable',
            'the service key this session runs under can’t be read',
          ),
        };
      }
    }
    this.#cache.set(ref, { ...resolved, at: now, stamp });
    return resolved;
  }

  #cipher(): KeyCipher {
    if (!this.options.cipher) throw new KeyLinkError(NO_ENCRYPTION_KEY);
    return this.options.cipher;
  }

  /**
   * Asks the service whether it takes `apiKey`: there is no "who am I" endpoint, so it reads a session
   * that can't exist (404 or 403: the key is good; 401: it isn't). A form checking it closes at its ack's
   * budget whatever this takes (a late answer goes to the person's DM): the service gets its usual time.
   */
  async check(apiKey: string, timeoutMs = KEY_CALL_TIMEOUT_MS): Promise<KeyCheck> {
    const client = this.#newClient(apiKey);
    try {
      await client.sessions.get(`key-check-${randomUUID()}`, { timeoutMs, maxRetries: 0 });
      return { ok: true };
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof PermissionDeniedError) return { ok: true };
      if (error instanceof AuthenticationError)
        return {
          ok: false,
          problem: 'rejected',
          message: 'The service refused this key (401): check it and paste it again',
        };
      this.options.logger.warn({ err: error }, 'could not check a service key');
      return {
        ok: false,
        problem: 'unreachable',
        message: 'The service could not be reached to check this key; try again in a moment',
      };
    } finally {
      await client.close().catch(() => {});
    }
  }

  /** Stores a checked key in a slot, encrypted; the mask is what anyone will ever see of it again. */
  async link(input: {
    ref: string;
    teamId: string;
    userId: string | null;
    apiKey: string;
    by: string;
  }): Promise<string> {
    const cipher = this.#cipher();
    const hint = maskKey(input.apiKey);
    await this.options.repo.put({
      ref: input.ref,
      teamId: input.teamId,
      userId: input.userId,
      ciphertext: cipher.encrypt(input.apiKey, ownerOf(input.ref)),
      keyId: cipher.keyId,
      hint,
      linkedBy: input.by,
      version: randomUUID(),
    });
    this.#cache.delete(input.ref);
    this.options.logger.info({ ref: input.ref, by: input.by }, 'a service key was linked');
    return hint;
  }

  /** Removes a slot's key (a new version: sessions under it say so once, then wait for another). */
  async remove(ref: string, by: string): Promise<boolean> {
    const removed = await this.options.repo.delete(ref, randomUUID());
    this.#cache.delete(ref);
    if (removed) this.options.logger.info({ ref, by }, 'a service key was removed');
    return removed;
  }

  /**
   * Rotation: every key encrypted under a previous encryption key is decrypted with it and encrypted
   * again under the current one. Returns how many were re-encrypted and how many could not be read.
   */
  async reencryptAll(): Promise<{ reencrypted: number; unreadable: number }> {
    const cipher = this.options.cipher;
    if (!cipher) return { reencrypted: 0, unreadable: 0 };
    let reencrypted = 0;
    let unreadable = 0;
    for (const row of await this.options.repo.encryptedWithOther(cipher.keyId)) {
      try {
        const plain = cipher.decrypt(row.ciphertext, ownerOf(row.ref));
        const again = cipher.encrypt(plain, ownerOf(row.ref));
        if (await this.options.repo.reencrypt(row.ref, row.ciphertext, again, cipher.keyId)) reencrypted++;
      } catch (error) {
        if (!(error instanceof KeyDecryptError)) throw error;
        unreadable++;
      }
    }
    return { reencrypted, unreadable };
  }
}
