import type { InstallURLOptions } from '@slack/oauth';
import type { Logger } from '../../logger.js';
import type { InstallationRepository, SlackInstallation } from '../../store/index.js';
import { type ClaimAnswer, installationKey, type RefreshClaim } from '../../store/installations.js';
import { type KeyCipher, KeyDecryptError } from '../keys/index.js';

/**
 * Slack's tokens at rest: the installations' secret fields — bot and user tokens, their refresh
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

/** The pass that seals every stored token, recorded in the store once it has run. */
export const SEALING_PASS = 'seal-slack-tokens';

/**
 * A token stored in plain text after the sealing pass has run: nothing the bot writes looks like that,
 * so someone wrote it to the database without the encryption key. Refused; named, never quoted.
 */
export class UnsealedTokenError extends Error {
  override name = 'UnsealedTokenError';
  constructor(
    readonly key: string,
    field: Field,
  ) {
    super(
      `the Slack tokens of ${key} are refused: ${field.part}.${field.name} is stored unencrypted, though every token was encrypted at start; install the app in that workspace again`,
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
  /** Once the sealing pass has run (here or on another replica), a plain token is refused. */
  #sealed = false;

  constructor(
    private readonly inner: InstallationRepository,
    private readonly cipher: KeyCipher,
    private readonly logger?: Pick<Logger, 'error'>,
  ) {}

  /** Whether a plain token is still taken as it is: only until the sealing pass is recorded. */
  async #plainAllowed(): Promise<boolean> {
    if (!this.#sealed) this.#sealed = await this.inner.passDone(SEALING_PASS);
    return !this.#sealed;
  }

  seal(installation: SlackInstallation, key = installationKey(installation)): SlackInstallation {
    return mapSecrets(installation, (value, field) =>
      isSealed(value) ? value : this.cipher.encrypt(value, ownerOf(key, field)),
    );
  }

  /**
   * Decrypts each sealed field. A plain one is taken as it is only while `plainAllowed` (a row not yet
   * sealed at start); after the sealing pass it is refused and logged, by field, never its value.
   */
  open(installation: SlackInstallation, key: string, plainAllowed = false): SlackInstallation {
    return mapSecrets(installation, (value, field) => {
      if (!isSealed(value)) {
        if (plainAllowed) return value;
        const error = new UnsealedTokenError(key, field);
        this.logger?.error({ workspace: key, field: `${field.part}.${field.name}` }, error.message);
        throw error;
      }
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
    return stored && this.open(stored, key, await this.#plainAllowed());
  }

  remove(key: string): Promise<boolean> {
    return this.inner.remove(key);
  }

  async claimRefresh(
    key: string,
    due: (installation: SlackInstallation) => boolean,
    claim: RefreshClaim,
  ): Promise<ClaimAnswer> {
    const plain = await this.#plainAllowed();
    const answer = await this.inner.claimRefresh(key, (found) => due(this.open(found, key, plain)), claim);
    return answer.state === 'missing'
      ? answer
      : { state: answer.state, installation: this.open(answer.installation, key, plain) };
  }

  finishRefresh(key: string, claim: string, next: SlackInstallation): Promise<boolean> {
    return this.inner.finishRefresh(key, claim, this.seal(next, key));
  }

  releaseRefresh(key: string, claim: string): Promise<void> {
    return this.inner.releaseRefresh(key, claim);
  }

  recordPass(name: string): Promise<void> {
    return this.inner.recordPass(name);
  }

  passDone(name: string): Promise<boolean> {
    return this.inner.passDone(name);
  }

  refreshes(key: string): Promise<number> {
    return this.inner.refreshes(key);
  }

  keys(): Promise<string[]> {
    return this.inner.keys();
  }

  async rewrite(
    key: string,
    change: (installation: SlackInstallation) => SlackInstallation | undefined,
  ): Promise<boolean> {
    const plain = await this.#plainAllowed();
    return this.inner.rewrite(key, (found) => {
      const next = change(this.open(found, key, plain));
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
   * key, each under its row's lock (replicas may start together). Counts what it did, and records in the
   * store that it ran: after that, a token in plain text is refused.
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
          return this.seal(this.open(found, key, true), key);
        });
        if (kind === 'plain') encrypted++;
        if (kind === 'stale') reencrypted++;
      } catch (error) {
        if (!(error instanceof InstallationUnreadableError)) throw error;
        unreadable.push(key);
      }
    }
    // From here on no token is stored unsealed by the bot: a plain one is refused on every replica.
    await this.inner.recordPass(SEALING_PASS);
    this.#sealed = true;
    return { encrypted, reencrypted, unreadable };
  }
}
