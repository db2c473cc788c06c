/**
 * The secrets no log line or span may carry: the configured ones, and every token and service key the
 * bot decrypts or encrypts (a workspace's Slack tokens, their refreshed pair, a linked key), told here the
 * moment they are in hand. Field redaction alone misses a secret inside a string (Bolt's stringified
 * lines, an error's message, a span's exception), so whole lines are scrubbed of every known secret.
 */

/** Shorter values are not scrubbed: they would mask ordinary words, and no secret of ours is that short. */
export const MIN_SECRET_LENGTH = 8;
/** A secret is looked for where its first characters are: one map lookup per position of a line. */
const PREFIX_LENGTH = MIN_SECRET_LENGTH;
/** Per owner (a field of an installation, a linked key), the current secret and the one it replaced. */
const KEPT_PER_OWNER = 2;
const MASK = '[redacted]';

/** What the cipher tells of each secret it handles, by its owner (its associated data). */
export interface SecretSink {
  remember(owner: string, secret: string): void;
}

export class SecretScrubber implements SecretSink {
  /** By owner: the latest secrets, newest first. Bounded by the owners (installations' fields, keys). */
  readonly #byOwner = new Map<string, string[]>();
  /** By first characters: the secrets that start so, longest first. Rebuilt when the secrets change. */
  #byPrefix: Map<string, string[]> | undefined;

  /** The settings' secrets (tokens, keys, passwords from the environment), each for good. */
  rememberConfigured(secrets: Array<string | undefined>): void {
    secrets.forEach((secret, i) => {
      if (secret !== undefined) this.remember(`configured ${i}`, secret);
    });
  }

  /** `secret` is `owner`'s now; the one it replaced stays scrubbed too (a line may still quote it). */
  remember(owner: string, secret: string): void {
    if (secret.length < MIN_SECRET_LENGTH) return;
    const kept = this.#byOwner.get(owner) ?? [];
    if (kept[0] === secret) return;
    this.#byOwner.set(owner, [secret, ...kept.filter((s) => s !== secret)].slice(0, KEPT_PER_OWNER));
    this.#byPrefix = undefined;
  }

  /** `text` with every known secret masked. */
  scrub(text: string): string {
    const index = this.#index();
    if (index.size === 0 || text.length < MIN_SECRET_LENGTH) return text;
    let out = '';
    let copied = 0;
    let at = 0;
    while (at <= text.length - MIN_SECRET_LENGTH) {
      const found = index.get(text.slice(at, at + PREFIX_LENGTH))?.find((s) => text.startsWith(s, at));
      if (found === undefined) {
        at += 1;
        continue;
      }
      out += text.slice(copied, at) + MASK;
      at += found.length;
      copied = at;
    }
    return copied === 0 ? text : out + text.slice(copied);
  }

  #index(): Map<string, string[]> {
    if (this.#byPrefix) return this.#byPrefix;
    const index = new Map<string, string[]>();
    for (const secret of new Set([...this.#byOwner.values()].flat())) {
      const prefix = secret.slice(0, PREFIX_LENGTH);
      index.set(
        prefix,
        [...(index.get(prefix) ?? []), secret].sort((a, b) => b.length - a.length),
      );
    }
    this.#byPrefix = index;
    return index;
  }
}
