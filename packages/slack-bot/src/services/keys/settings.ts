import type { SecretSink } from '../../secret-scrubber.js';
import { KeyCipher, parseEncryptionKey } from './cipher.js';

/** What service keys take: whose key a session runs under, sign-up, and the keys that encrypt them at rest. */
export interface KeySettings {
  /** `per-workspace` (default): an admin links the workspace's key. `per-person`: each starter's own. */
  mode: 'per-workspace' | 'per-person';
  /** AGENT_ALLOW_SIGNUP: App Home may create an account with the service (`POST /api/auth/signup`). */
  allowSignup: boolean;
  /** AGENT_KEY_ENCRYPTION_KEY as written (checked: 32 bytes); unset: no key can be linked. */
  encryptionKey?: string;
  /** AGENT_KEY_ENCRYPTION_KEY_PREVIOUS: decrypt only; what they made is encrypted again at start. */
  previousEncryptionKeys: string[];
}

/**
 * The cipher of AGENT_KEY_ENCRYPTION_KEY (and the previous keys, decrypt only); undefined when unset.
 * `secrets` hears of every key and token it decrypts or encrypts (the logs' and spans' scrubber).
 */
export function keyCipherOf(settings: KeySettings | undefined, secrets?: SecretSink): KeyCipher | undefined {
  if (!settings?.encryptionKey) return undefined;
  return new KeyCipher(
    parseEncryptionKey(settings.encryptionKey, 'AGENT_KEY_ENCRYPTION_KEY'),
    settings.previousEncryptionKeys.map((k) => parseEncryptionKey(k, 'AGENT_KEY_ENCRYPTION_KEY_PREVIOUS')),
    secrets,
  );
}
