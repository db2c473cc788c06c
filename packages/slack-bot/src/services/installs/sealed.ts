import type { InstallURLOptions } from '@slack/oauth';
import type { InstallationRepository, SlackInstallation } from '../../store/index.js';
import { installationKey } from '../../store/installations.js';
import { type KeyCipher, KeyDecryptError } from '../keys/cipher.js';

/**
 * Slack's tokens at rest (issue #25): the installations' secret fields — bot and user tokens, their refresh
 * tokens, an incoming webhook's URL — encrypted with the service keys' cipher (AES-256-GCM, key from
 * AGENT_KEY_ENCRYPTION_KEY), each bound to its installation's key and its field: moved to another row or
 * field, it no longer decrypts. Everything else (ids, scopes, expiry) stays readable for the store's
 * queries. A decorator over the store's repository: what goes in is sealed, what comes out is opened.
 */
type Holder = { token?: string | undefined; refreshToken?: string | undefined; url?: string | undefined };
type Field = { part: 'bot' | 'user' | 'incomingWebhook'; name: 'token' | 'refreshToken' | 'url' };

const FIELDS: Field[] = [
  { part: 'bot', name: 'token' },
  { part: 'bot', name: 'refreshToken' },
  { part: 'user', name: 'token' },
  { part: 'user', name: 'refreshToken' },
  { part: 'incomingWebhook', name: 'url' },
];

/** Associated data of a field's ciphertext: the installation's key and the field's path. */
const ownerOf = (key: string, field: Field) =>
  `agent-sessions slack installation ${key} ${field.part}.${field.name}`;

/** A stored token none of the configured encryption keys can read (named, never quoted). */
export class InstallationUnreadableError extends Error {
  override name = 'InstallationUnreadableError';
  constructor(
    readonly key: string,
    field: Field,
    reason: string,
  ) {
    super(
      `the Slack tokens of ${key} can't be read (${field.part}.${field.name}: ${reason}): set the AGENT_KEY_ENCRYPTION_KEY that stored them (or AGENT_KEY_ENCRYPTION_KEY_PREVIOUS), or install the app in that workspace again`,
    );
  }
}

/** A copy of `installation` with each present secret field passed through `map`. */
function mapSecrets(
  installation: SlackInstallation,
  map: (value: string, field: Field) => string,
): SlackInstallation {
  const copy = { ...installation } as Record<string, unknown>;
  for (const field of FIELDS) {
    const holder = copy[field.part] as Holder | undefined;
    const value = holder?.[field.name];
    if (typeof value !== 'string' || value === '') continue;
    copy[field.part] = { ...holder, [field.name]: map(value, field) };
  }
  return copy as unknown as SlackInstallation;
}

/** Whether a stored value is one of the cipher's (else: plain text from before tokens were encrypted). */
const isSealed = (value: string) => value.startsWith('v1.') && value.split('.').length === 5;

export class SealedInstallations implements InstallationRepository {
  constructor(
    private readonly inner: InstallationRepository,
    private readonly cipher: KeyCipher,
  ) {}

  seal(installation: SlackInstallation, key = installationKey(installation)): SlackInstallation {
    return mapSecrets(installation, (value, field) =>
      isSealed(value) ? value : this.cipher.encrypt(value, ownerOf(key, field)),
    );
  }

  /** Decrypts each sealed field; a plain one (a row not yet sealed at start) is taken as it is. */
  open(installation: SlackInstallation, key: string): SlackInstallation {
    return mapSecrets(installation, (value, field) => {
      if (!isSealed(value)) return value;
      try {
        return this.cipher.decrypt(value, ownerOf(key, field));
      } catch (error) {
        if (error instanceof KeyDecryptError)
          throw new InstallationUnreadableError(key, field, error.message);
        throw error;
      }
    });
  }

  save(installation: SlackInstallation): Promise<string> {
    return this.inner.save(this.seal(installation));
  }

  async find(key: string): Promise<SlackInstallation | undefined> {
    const stored = await this.inner.find(key);
    return stored && this.open(stored, key);
  }

  remove(key: string): Promise<boolean> {
    return this.inner.remove(key);
  }

  async refresh(
    key: string,
    due: (installation: SlackInstallation) => boolean,
    exchange: (installation: SlackInstallation) => Promise<SlackInstallation>,
  ): Promise<SlackInstallation | undefined> {
    const stored = await this.inner.refresh(
      key,
      (found) => due(this.open(found, key)),
      async (found) => this.seal(await exchange(this.open(found, key)), key),
    );
    return stored && this.open(stored, key);
  }

  refreshes(key: string): Promise<number> {
    return this.inner.refreshes(key);
  }

  keys(): Promise<string[]> {
    return this.inner.keys();
  }

  rewrite(
    key: string,
    change: (installation: SlackInstallation) => SlackInstallation | undefined,
  ): Promise<boolean> {
    return this.inner.rewrite(key, (found) => {
      const next = change(this.open(found, key));
      return next && this.seal(next, key);
    });
  }

  saveState(state: string, options: InstallURLOptions, expiresAt: Date): Promise<void> {
    return this.inner.saveState(state, options, expiresAt);
  }

  takeState(state: string): Promise<InstallURLOptions | undefined> {
    return this.inner.takeState(state);
  }

  /**
   * The start-up pass: every stored installation with a token in plain text (stored before tokens were
   * encrypted) or encrypted under AGENT_KEY_ENCRYPTION_KEY_PREVIOUS is encrypted (again) under the current
   * key, each under its row's lock (replicas may start together). Counts what it did.
   */
  async sealStored(): Promise<{ encrypted: number; reencrypted: number; unreadable: string[] }> {
    let encrypted = 0;
    let reencrypted = 0;
    const unreadable: string[] = [];
    const current = this.cipher.keyId;
    for (const key of await this.inner.keys()) {
      let kind: 'plain' | 'stale' | undefined;
      try {
        await this.inner.rewrite(key, (found) => {
          kind = undefined;
          const values: string[] = [];
          mapSecrets(found, (value) => {
            values.push(value);
            return value;
          });
          if (values.some((v) => !isSealed(v))) kind = 'plain';
          else if (values.some((v) => v.split('.')[1] !== current)) kind = 'stale';
          if (!kind) return undefined;
          return this.seal(this.open(found, key), key);
        });
        if (kind === 'plain') encrypted++;
        if (kind === 'stale') reencrypted++;
      } catch (error) {
        if (!(error instanceof InstallationUnreadableError)) throw error;
        unreadable.push(key);
      }
    }
    return { encrypted, reencrypted, unreadable };
  }
}
