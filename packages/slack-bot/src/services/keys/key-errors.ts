/** Why a key can't be used or linked: errors of the keys' own, in words for the person. */

/** A key a session needs isn't there: removed by its owner, unreadable, or refused by the service. */
export class KeyUnavailableError extends Error {
  override name = 'KeyUnavailableError';
  /** Read like the service's 401 by the follower: its error handler says so in the thread. */
  readonly status = 401;
  constructor(
    readonly reason: 'removed' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

export const NO_ENCRYPTION_KEY =
  'Keys can’t be linked on this bot: its operator has not set AGENT_KEY_ENCRYPTION_KEY, and a key is never stored unencrypted.';

/** Linking isn't possible as asked (no encryption key, not allowed): the message says why. */
export class KeyLinkError extends Error {
  override name = 'KeyLinkError';
}
