import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SecretSink } from '../../secret-scrubber.js';

/**
 * Service keys at rest: AES-256-GCM (node:crypto), a fresh 96-bit nonce per encryption, the 128-bit tag
 * checked on the way back. Each ciphertext carries the id of the encryption key that made it, so a key
 * can be rotated: the previous one still decrypts what it made, and `stale` tells what to encrypt again.
 * The associated data binds a ciphertext to its owner (workspace, person): copied to another row, it no
 * longer decrypts.
 *
 * Stored form: `v1.<key id>.<nonce>.<tag>.<ciphertext>`, the last three base64url.
 */
const VERSION = 'v1';

export class KeyConfigError extends Error {
  override name = 'KeyConfigError';
}

/** Decrypting failed: the text was changed, belongs to another owner, or no configured key made it. */
export class KeyDecryptError extends Error {
  override name = 'KeyDecryptError';
}

/**
 * A 32-byte key from its base64 (standard or url-safe) or hex form. Throws naming `name` and the rule;
 * never quotes the value.
 */
export function parseEncryptionKey(raw: string, name: string): Buffer {
  const text = raw.trim();
  let bytes: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(text)) bytes = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) bytes = Buffer.from(text, 'base64');
  if (bytes?.length !== 32) {
    throw new KeyConfigError(
      `${name} must be 32 random bytes, written as 64 hex digits or 44 characters of base64 (make one with \`openssl rand -base64 32\`)`,
    );
  }
  return bytes;
}

/**
 * Every problem with the configured encryption keys (AGENT_KEY_ENCRYPTION_KEY, and the previous ones kept
 * for rotation), each named by its variable; the values are never quoted.
 */
export function encryptionKeyProblems(
  current: string | undefined,
  previous: string[],
): Array<{ name: string; message: string }> {
  const problems: Array<{ name: string; message: string }> = [];
  const check = (name: string, value: string) => {
    try {
      parseEncryptionKey(value, name);
    } catch (error) {
      if (!(error instanceof KeyConfigError)) throw error;
      problems.push({ name, message: error.message });
    }
  };
  if (current) check('AGENT_KEY_ENCRYPTION_KEY', current);
  for (const value of previous) check('AGENT_KEY_ENCRYPTION_KEY_PREVIOUS', value);
  if (previous.length > 0 && !current) {
    problems.push({
      name: 'AGENT_KEY_ENCRYPTION_KEY',
      message:
        'AGENT_KEY_ENCRYPTION_KEY is required with AGENT_KEY_ENCRYPTION_KEY_PREVIOUS (the key to encrypt again with)',
    });
  }
  return problems;
}

/** A short public name for a key: the first 8 hex digits of its SHA-256 (tells keys apart, reveals nothing). */
export function encryptionKeyId(key: Buffer): string {
  return createHash('sha256').update('agent-sessions key id').update(key).digest('hex').slice(0, 8);
}

export class KeyCipher {
  readonly #current: { id: string; key: Buffer };
  readonly #keys = new Map<string, Buffer>();
  readonly #secrets: SecretSink | undefined;

  /**
   * `current` encrypts and decrypts; each of `previous` only decrypts (rotation). `secrets` is told of
   * every plain text the cipher handles, by its owner, so no log line or span carries it from then on.
   */
  constructor(current: Buffer, previous: Buffer[] = [], secrets?: SecretSink) {
    this.#secrets = secrets;
    this.#current = { id: encryptionKeyId(current), key: current };
    for (const key of previous) this.#keys.set(encryptionKeyId(key), key);
    this.#keys.set(this.#current.id, current);
  }

  /** The id of the key new ciphertexts are made with. */
  get keyId(): string {
    return this.#current.id;
  }

  encrypt(plain: string, owner: string): string {
    this.#secrets?.remember(owner, plain);
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, nonce);
    cipher.setAAD(Buffer.from(owner, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [nonce, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
    return [VERSION, this.#current.id, ...parts].join('.');
  }

  decrypt(stored: string, owner: string): string {
    const [version, id, nonce, tag, body, ...rest] = stored.split('.');
    if (version !== VERSION || !id || nonce === undefined || !tag || body === undefined || rest.length > 0)
      throw new KeyDecryptError('not a stored service key');
    const key = this.#keys.get(id);
    if (!key) throw new KeyDecryptError(`made with encryption key ${id}, which is not configured`);
    let plain: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(owner, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new KeyDecryptError('the stored key failed its integrity check');
    }
    this.#secrets?.remember(owner, plain);
    return plain;
  }

  /** The key id a stored ciphertext names (undefined when it isn't one). */
  static keyIdOf(stored: string): string | undefined {
    const [version, id] = stored.split('.');
    return version === VERSION ? id : undefined;
  }
}

/** What a person sees of a key once linked: its prefix (up to `_`) and last four, e.g. `sk_…a1b2`. */
export function maskKey(key: string): string {
  const prefix = /^[A-Za-z]{1,6}_/.exec(key)?.[0] ?? '';
  const tail = key.length >= 16 ? key.slice(-4) : '';
  return `${prefix}…${tail}`;
}
