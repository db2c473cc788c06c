import { z } from 'zod';
import { commaSeparated } from '../../config-lists.js';
import type { TeamList } from '../../team-list.js';
import { encryptionKeyProblems, KeyCipher, parseEncryptionKey } from './cipher.js';

/** Service keys' settings, as `config.ts` reads them from the environment. */
export interface KeysConfig {
  /** `per-workspace` (default): an admin links the workspace's key. `per-person`: each starter's own. */
  mode: 'per-workspace' | 'per-person';
  /** AGENT_ALLOW_SIGNUP: App Home may create an account with the service (`POST /api/auth/signup`). */
  allowSignup: boolean;
  /** AGENT_KEY_ENCRYPTION_KEY as written (checked: 32 bytes); unset: no key can be linked. */
  encryptionKey?: string;
  /** AGENT_KEY_ENCRYPTION_KEY_PREVIOUS: decrypt only; what they made is encrypted again at start. */
  previousEncryptionKeys: string[];
  /**
   * AGENT_API_KEY_TEAMS: under OAuth, the workspaces AGENT_API_KEY serves while they have no key linked
   * (elsewhere a start is refused); undefined with one bot token, whose workspace it always serves.
   */
  apiKeyTeams?: TeamList;
}

const blankAsUnset = <T extends z.ZodType>(inner: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), inner);

/** The variables, spread into config.ts's schema. */
export const keysEnv = {
  AGENT_KEYS: blankAsUnset(
    z
      .enum(['per-workspace', 'per-person'], { error: 'AGENT_KEYS must be per-workspace or per-person' })
      .default('per-workspace'),
  ),
  AGENT_ALLOW_SIGNUP: blankAsUnset(
    z.enum(['true', 'false'], { error: 'AGENT_ALLOW_SIGNUP must be true or false' }).default('false'),
  ),
  AGENT_KEY_ENCRYPTION_KEY: blankAsUnset(z.string().optional()),
  AGENT_KEY_ENCRYPTION_KEY_PREVIOUS: z.string().optional().transform(commaSeparated),
};

interface KeysEnv {
  AGENT_KEYS: KeysConfig['mode'];
  AGENT_ALLOW_SIGNUP: 'true' | 'false';
  AGENT_KEY_ENCRYPTION_KEY?: string | undefined;
  AGENT_KEY_ENCRYPTION_KEY_PREVIOUS: string[];
}

/** Each encryption key checked at start: a bad one is named by its variable (never quoted). */
export function keysEnvProblems(env: KeysEnv): Array<{ code: 'custom'; path: string[]; message: string }> {
  return encryptionKeyProblems(env.AGENT_KEY_ENCRYPTION_KEY, env.AGENT_KEY_ENCRYPTION_KEY_PREVIOUS).map(
    ({ name, message }) => ({ code: 'custom', path: [name], message }),
  );
}

export function keysConfigOf(env: KeysEnv): KeysConfig {
  return {
    mode: env.AGENT_KEYS,
    allowSignup: env.AGENT_ALLOW_SIGNUP === 'true',
    ...(env.AGENT_KEY_ENCRYPTION_KEY ? { encryptionKey: env.AGENT_KEY_ENCRYPTION_KEY } : {}),
    previousEncryptionKeys: env.AGENT_KEY_ENCRYPTION_KEY_PREVIOUS,
  };
}

/** The cipher of AGENT_KEY_ENCRYPTION_KEY (and the previous keys, decrypt only); undefined when unset. */
export function keyCipherOf(config: KeysConfig | undefined): KeyCipher | undefined {
  if (!config?.encryptionKey) return undefined;
  return new KeyCipher(
    parseEncryptionKey(config.encryptionKey, 'AGENT_KEY_ENCRYPTION_KEY'),
    config.previousEncryptionKeys.map((k) => parseEncryptionKey(k, 'AGENT_KEY_ENCRYPTION_KEY_PREVIOUS')),
  );
}
