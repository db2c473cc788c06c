import type { SessionsReader } from '@agent-sessions/core';
import { keyNotice } from '../../blocks/keys.js';
import type { Logger } from '../../logger.js';
import type { SessionRecord } from '../../store/records.js';
import type { ServiceKeyRepository } from '../../store/service-keys.js';
import { KeyUnavailableError, loanWithdrawnNotice } from './key-errors.js';
import type { SlotReaders } from './keyed-calls.js';
import type { ServiceKeys } from './service-keys.js';

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * A session whose key was removed or refused (401/403): its thread is told once (per key linked), with how
 * to fix it, and the session is followed no further until its slot holds another key — then the lease
 * keeper picks it up again by itself, on whichever replica holds it.
 */
export class KeyGuard {
  constructor(
    private readonly deps: {
      keys: ServiceKeys;
      readers: SlotReaders;
      repo: Pick<ServiceKeyRepository, 'refOf' | 'noticeOnce' | 'noticed'>;
      unfollow: (sessionId: string) => void;
      /** Posts once in the session's thread, by `key`. */
      notify: (session: SessionRecord, key: string, text: string) => Promise<void>;
      logger: Logger;
    },
  ) {}

  /** For the lease keeper: the reader to follow a session with, or `waiting` while its key is missing. */
  async readerFor(sessionId: string): Promise<SessionsReader | 'waiting'> {
    const ref = await this.deps.repo.refOf(sessionId);
    if (await this.deps.repo.noticed(sessionId, await this.deps.keys.versionOfSession(ref, sessionId)))
      return 'waiting';
    return this.deps.readers.readerOf(ref ?? null);
  }

  /** The follower's error for a session: true when it was about the key (and was dealt with here). */
  async onError(session: SessionRecord, error: unknown): Promise<boolean> {
    const status = statusOf(error);
    if (status !== 401 && status !== 403) return false;
    const { sessionId } = session;
    this.deps.unfollow(sessionId);
    const ref = await this.deps.repo.refOf(sessionId);
    const version = await this.deps.keys.versionOfSession(ref, sessionId);
    const reason =
      error instanceof KeyUnavailableError ? error.reason : status === 401 ? 'rejected' : 'forbidden';
    this.deps.logger.warn(
      { sessionId, ref, reason },
      'a session’s service key can’t be used: waiting for another',
    );
    if (await this.deps.repo.noticeOnce(sessionId, version, reason)) {
      const text =
        reason === 'withdrawn'
          ? loanWithdrawnNotice()
          : keyNotice({
              reason,
              startedBy: session.startedBy,
              slot: !ref ? 'configured' : ref.startsWith('person:') ? 'person' : 'workspace',
            });
      await this.deps
        .notify(session, `key-notice:${version}`, text)
        .catch((e: unknown) => this.deps.logger.warn({ err: e, sessionId }, 'could not post the key notice'));
    }
    return true;
  }
}
