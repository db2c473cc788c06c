import type { ServiceKeyRepository, StoredServiceKey } from '../../../src/store/service-keys.js';

/**
 * The store's key rows and notices in memory (no re-encryption): what the slot and lending rules read.
 * `slot` is every session's key slot (`refOf`): undefined (no such session) unless given; null for
 * sessions that run under the configured AGENT_API_KEY.
 */
export function keysRepo(
  slot?: string | null,
): ServiceKeyRepository & { rows: Map<string, StoredServiceKey> } {
  const rows = new Map<string, StoredServiceKey>();
  const notices = new Set<string>();
  return {
    rows,
    get: async (ref) => rows.get(ref),
    put: async (k) => {
      rows.set(k.ref, { ...k, linkedAt: new Date().toISOString() });
    },
    delete: async () => false,
    encryptedWithOther: async () => [],
    reencrypt: async () => false,
    refOf: async () => slot,
    noticeOnce: async (sessionId, version) => {
      const key = `${sessionId}|${version}`;
      if (notices.has(key)) return false;
      notices.add(key);
      return true;
    },
    noticed: async (sessionId, version) => notices.has(`${sessionId}|${version}`),
  };
}
