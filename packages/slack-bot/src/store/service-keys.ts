import type { SqlExecutor } from './sql.js';

/**
 * Agent Session Service keys linked in App Home: one per workspace, or one per person under
 * `AGENT_KEYS=per-person`. Only ciphertext is stored (services/keys/cipher.ts), with a masked hint to show.
 * `ref` names the slot (`team:T1`, `person:T1:U1`), never the key: sessions record it, so a session keeps
 * running under whatever key its slot holds, and a key linked again fixes the sessions a removed one
 * stopped. `version` changes at every link: a session's notice about a bad key is said once per version.
 */
export interface StoredServiceKey {
  ref: string;
  teamId: string;
  /** Null: the workspace's key. */
  userId: string | null;
  ciphertext: string;
  /** The encryption key's id (rotation). */
  keyId: string;
  hint: string;
  linkedBy: string;
  linkedAt: string;
  version: string;
}

export interface ServiceKeyRepository {
  get(ref: string): Promise<StoredServiceKey | undefined>;
  /** Links (or replaces) the slot's key. */
  put(key: Omit<StoredServiceKey, 'linkedAt'>): Promise<void>;
  /**
   * Removes the slot's key: its ciphertext and hint are erased and the slot gets a new `version` (so the
   * sessions under it say once that it is gone). True when there was a key to remove.
   */
  delete(ref: string, version: string): Promise<boolean>;
  /** Keys encrypted under another key than `keyId`: what a rotation re-encrypts. */
  encryptedWithOther(keyId: string): Promise<StoredServiceKey[]>;
  /** Replaces one ciphertext, unless the key was linked again meanwhile (then false). */
  reencrypt(ref: string, was: string, ciphertext: string, keyId: string): Promise<boolean>;
  /** The session's key slot (null: the configured AGENT_API_KEY; undefined: no such session). */
  refOf(sessionId: string): Promise<string | null | undefined>;
  /** Records that the session was told its key (at `version`) can't be used; true the first time only. */
  noticeOnce(sessionId: string, version: string, reason: string): Promise<boolean>;
  /** Whether the session was told its key at `version` can't be used (it waits for another). */
  noticed(sessionId: string, version: string): Promise<boolean>;
}

interface Row {
  ref: string;
  team_id: string;
  user_id: string | null;
  ciphertext: string;
  key_id: string;
  hint: string;
  linked_by: string;
  linked_at: Date | string;
  version: string;
}

const toKey = (r: Row): StoredServiceKey => ({
  ref: r.ref,
  teamId: r.team_id,
  userId: r.user_id,
  ciphertext: r.ciphertext,
  keyId: r.key_id,
  hint: r.hint,
  linkedBy: r.linked_by,
  linkedAt: new Date(r.linked_at).toISOString(),
  version: r.version,
});

export class SqlServiceKeyRepository implements ServiceKeyRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async get(ref: string): Promise<StoredServiceKey | undefined> {
    const { rows } = await this.sql.query<Row>('SELECT * FROM service_keys WHERE ref = $1', [ref]);
    return rows[0] ? toKey(rows[0]) : undefined;
  }

  async put(k: Omit<StoredServiceKey, 'linkedAt'>): Promise<void> {
    await this.sql.query(
      `INSERT INTO service_keys (ref, team_id, user_id, ciphertext, key_id, hint, linked_by, version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (ref) DO UPDATE SET team_id = excluded.team_id, user_id = excluded.user_id,
         ciphertext = excluded.ciphertext, key_id = excluded.key_id, hint = excluded.hint,
         linked_by = excluded.linked_by, version = excluded.version, linked_at = now()`,
      [k.ref, k.teamId, k.userId, k.ciphertext, k.keyId, k.hint, k.linkedBy, k.version],
    );
  }

  async delete(ref: string, version: string): Promise<boolean> {
    const { rows } = await this.sql.query(
      `UPDATE service_keys SET ciphertext = '', key_id = '', hint = '', version = $2
       WHERE ref = $1 AND ciphertext <> '' RETURNING ref`,
      [ref, version],
    );
    return rows.length > 0;
  }

  async encryptedWithOther(keyId: string): Promise<StoredServiceKey[]> {
    const { rows } = await this.sql.query<Row>(
      "SELECT * FROM service_keys WHERE key_id <> $1 AND ciphertext <> ''",
      [keyId],
    );
    return rows.map(toKey);
  }

  async reencrypt(ref: string, was: string, ciphertext: string, keyId: string): Promise<boolean> {
    const { rows } = await this.sql.query(
      `UPDATE service_keys SET ciphertext = $3, key_id = $4 WHERE ref = $1 AND ciphertext = $2 RETURNING ref`,
      [ref, was, ciphertext, keyId],
    );
    return rows.length > 0;
  }

  async refOf(sessionId: string): Promise<string | null | undefined> {
    const { rows } = await this.sql.query<{ key_ref: string | null }>(
      'SELECT key_ref FROM sessions WHERE session_id = $1',
      [sessionId],
    );
    return rows[0] ? rows[0].key_ref : undefined;
  }

  async noticeOnce(sessionId: string, version: string, reason: string): Promise<boolean> {
    const { rows } = await this.sql.query(
      `INSERT INTO session_key_notices (session_id, version, reason) VALUES ($1, $2, $3)
       ON CONFLICT (session_id, version) DO NOTHING RETURNING session_id`,
      [sessionId, version, reason],
    );
    return rows.length > 0;
  }

  async noticed(sessionId: string, version: string): Promise<boolean> {
    const { rows } = await this.sql.query(
      'SELECT 1 FROM session_key_notices WHERE session_id = $1 AND version = $2',
      [sessionId, version],
    );
    return rows.length > 0;
  }
}
