import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import {
  encryptionKeyId,
  KeyCipher,
  KeyDecryptError,
  maskKey,
  parseEncryptionKey,
} from '../../../src/services/keys/cipher.js';

const KEY = 'sk_live_0123456789abcdef_a1b2';
const OWNER = 'agent-sessions service key team:T1';

/** Flips one bit of the n-th dot-separated part's bytes. */
function flip(stored: string, part: number, byte = 0): string {
  const parts = stored.split('.');
  const bytes = Buffer.from(parts[part] as string, 'base64url');
  bytes[byte] = (bytes[byte] as number) ^ 1;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('KeyCipher (AES-256-GCM)', () => {
  const cipher = new KeyCipher(randomBytes(32));

  it('gives back what it encrypted, and never the same ciphertext twice', () => {
    const a = cipher.encrypt(KEY, OWNER);
    const b = cipher.encrypt(KEY, OWNER);
    expect(cipher.decrypt(a, OWNER)).toBe(KEY);
    expect(a).not.toBe(b);
    expect(a).not.toContain(KEY);
    expect(a.startsWith(`v1.${cipher.keyId}.`)).toBe(true);
  });

  it('refuses a ciphertext changed anywhere: nonce, tag, body', () => {
    const stored = cipher.encrypt(KEY, OWNER);
    for (const part of [2, 3, 4]) {
      expect(() => cipher.decrypt(flip(stored, part), OWNER)).toThrow(KeyDecryptError);
    }
    expect(() => cipher.decrypt(`${stored}x`, OWNER)).toThrow(KeyDecryptError);
    expect(() => cipher.decrypt('v1.abc', OWNER)).toThrow(KeyDecryptError);
  });

  it('refuses a ciphertext moved to another owner (the associated data binds it to its slot)', () => {
    const stored = cipher.encrypt(KEY, OWNER);
    expect(() => cipher.decrypt(stored, 'agent-sessions service key person:T1:U2')).toThrow(KeyDecryptError);
  });

  it('refuses a ciphertext made with a key it does not hold, naming only the key id', () => {
    const other = new KeyCipher(randomBytes(32));
    const stored = other.encrypt(KEY, OWNER);
    expect(() => cipher.decrypt(stored, OWNER)).toThrow(`made with encryption key ${other.keyId}`);
  });

  it('rotation: the previous key still decrypts, the current one encrypts', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = new KeyCipher(oldKey).encrypt(KEY, OWNER);
    const rotated = new KeyCipher(newKey, [oldKey]);
    expect(KeyCipher.keyIdOf(before)).toBe(encryptionKeyId(oldKey));
    expect(rotated.decrypt(before, OWNER)).toBe(KEY);
    const again = rotated.encrypt(KEY, OWNER);
    expect(KeyCipher.keyIdOf(again)).toBe(encryptionKeyId(newKey));
    // Once the previous key is dropped, only what was encrypted again can be read.
    const after = new KeyCipher(newKey);
    expect(after.decrypt(again, OWNER)).toBe(KEY);
    expect(() => after.decrypt(before, OWNER)).toThrow(KeyDecryptError);
  });
});

describe('the encryption key setting', () => {
  const bytes = randomBytes(32);

  it('takes 32 bytes as hex, base64 or base64url', () => {
    for (const text of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]) {
      expect(parseEncryptionKey(text, 'X').equals(bytes)).toBe(true);
    }
  });

  it('refuses anything else, naming the variable and never quoting the value', () => {
    for (const bad of [
      'short',
      randomBytes(16).toString('hex'),
      randomBytes(31).toString('base64'),
      `${bytes.toString('hex')}00`,
    ]) {
      expect(() => parseEncryptionKey(bad, 'AGENT_KEY_ENCRYPTION_KEY')).toThrow(
        /^AGENT_KEY_ENCRYPTION_KEY must be 32 random bytes/,
      );
      try {
        parseEncryptionKey(bad, 'AGENT_KEY_ENCRYPTION_KEY');
      } catch (error) {
        expect(String(error)).not.toContain(bad);
      }
    }
  });

  it('is checked with the rest of the configuration, each variable named', () => {
    expect(() => loadConfig({ AGENT_KEY_ENCRYPTION_KEY: 'not-a-key' })).toThrow(
      /AGENT_KEY_ENCRYPTION_KEY: AGENT_KEY_ENCRYPTION_KEY must be 32 random bytes/,
    );
    expect(() => loadConfig({ AGENT_KEY_ENCRYPTION_KEY_PREVIOUS: bytes.toString('hex') })).toThrow(
      /AGENT_KEY_ENCRYPTION_KEY is required with AGENT_KEY_ENCRYPTION_KEY_PREVIOUS/,
    );
    expect(() => loadConfig({ AGENT_KEYS: 'per-team' })).toThrow(
      /AGENT_KEYS must be per-workspace or per-person/,
    );
    const config = loadConfig({
      AGENT_KEYS: 'per-person',
      AGENT_ALLOW_SIGNUP: 'true',
      AGENT_KEY_ENCRYPTION_KEY: bytes.toString('base64'),
      AGENT_KEY_ENCRYPTION_KEY_PREVIOUS: `${randomBytes(32).toString('hex')}, ${randomBytes(32).toString('hex')}`,
    });
    expect(config.keys).toMatchObject({ mode: 'per-person', allowSignup: true });
    expect(config.keys?.previousEncryptionKeys).toHaveLength(2);
    expect(loadConfig({}).keys).toEqual({
      mode: 'per-workspace',
      allowSignup: false,
      previousEncryptionKeys: [],
    });
  });
});

describe('maskKey', () => {
  it('shows a prefix and the last four characters only', () => {
    expect(maskKey('sk_live_0123456789abcdef_a1b2')).toBe('sk_…a1b2');
    expect(maskKey('emu_e2e_secret_key_51f2c9a7')).toBe('emu_…c9a7');
    // A short key shows no characters of its own at all.
    expect(maskKey('abc123')).toBe('…');
  });
});
