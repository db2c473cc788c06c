/** Service keys per workspace or person: who links them, sign-up, and the keys that encrypt them at rest. */
import { z } from 'zod';
import type { TeamList } from '../services/installs/admission.js';
import { encryptionKeyProblems, type KeySettings } from '../services/keys/index.js';
import { blankAsUnset, commaSeparated, type Problem } from './fields.js';

/** What service keys take (services/keys/settings.ts), with where the operator's key is lent. */
export interface KeysConfig extends KeySettings {
  /**
   * AGENT_API_KEY_TEAMS: under OAuth, the workspaces AGENT_API_KEY serves while they have no key linked
   * (elsewhere a start is refused); undefined with one bot token, whose workspace it always serves.
   */
  apiKeyTeams?: TeamList;
}

export const keysSchema = z.object({
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
});

type KeysEnv = z.output<typeof keysSchema>;

/** Each encryption key checked at start: a bad one is named by its variable (never quoted). */
export function keysProblems(env: KeysEnv): Problem[] {
  return encryptionKeyProblems(env.AGENT_KEY_ENCRYPTION_KEY, env.AGENT_KEY_ENCRYPTION_KEY_PREVIOUS).map(
    ({ name, message }): Problem => [name, message],
  );
}

export function keysSettings(env: KeysEnv): KeySettings {
  return {
    mode: env.AGENT_KEYS,
    allowSignup: env.AGENT_ALLOW_SIGNUP === 'true',
    ...(env.AGENT_KEY_ENCRYPTION_KEY ? { encryptionKey: env.AGENT_KEY_ENCRYPTION_KEY } : {}),
    previousEncryptionKeys: env.AGENT_KEY_ENCRYPTION_KEY_PREVIOUS,
  };
}
