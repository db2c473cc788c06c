/** Why a key can't be used or linked: errors of the keys' own, in words for the person. */

/**
 * A key a session needs isn't there: removed by its owner, unreadable, refused by the service, or the
 * operator's AGENT_API_KEY no longer lent to the session's workspace (`withdrawn`, AGENT_API_KEY_TEAMS).
 */
export class KeyUnavailableError extends Error {
  override name = 'KeyUnavailableError';
  /** Read like the service's 401 by the follower: its error handler says so in the thread. */
  readonly status = 401;
  constructor(
    readonly reason: 'removed' | 'unreadable' | 'withdrawn',
    message: string,
    /** How the person can fix it, when it is not "link a key on my Home tab". */
    readonly fix?: string,
  ) {
    super(message);
  }
}

/** A running session of a workspace AGENT_API_KEY is no longer lent to: its calls, and what they say. */
export const LOAN_WITHDRAWN =
  'the app’s own service key this session runs under is no longer lent to this workspace';
export const LOAN_WITHDRAWN_FIX =
  'the session waits until the bot’s operator lends the key to this workspace again (`AGENT_API_KEY_TEAMS`); sessions started after a workspace admin links a key on my Home tab run under that key';

/** Said once in the thread of a session whose loan was withdrawn (the other reasons: blocks/keys.ts). */
export const loanWithdrawnNotice = () =>
  `🔑 I’ve stopped following this session: ${LOAN_WITHDRAWN}. ${LOAN_WITHDRAWN_FIX[0]?.toUpperCase()}${LOAN_WITHDRAWN_FIX.slice(1)}; I pick the session up again as soon as the key is lent again.`;

export const NO_ENCRYPTION_KEY =
  'Keys can’t be linked on this bot: its operator has not set AGENT_KEY_ENCRYPTION_KEY, and a key is never stored unencrypted.';

/** Linking isn't possible as asked (no encryption key, not allowed): the message says why. */
export class KeyLinkError extends Error {
  override name = 'KeyLinkError';
}

export const NO_KEY_SLOT =
  'This request names no workspace (an organisation-wide install sends some without one), and a service key belongs to a workspace, so nothing was done: use the app from one of the organisation’s workspaces.';

/**
 * Under OAuth installs, a request whose workspace is unknown: no key slot is its, and none is guessed (a
 * shared `team:unknown` slot would let one tenant's sessions spend another's key).
 */
export class NoKeySlotError extends KeyLinkError {
  override name = 'NoKeySlotError';
  constructor() {
    super(NO_KEY_SLOT);
  }
}
