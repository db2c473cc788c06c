/** Why a read of a session's messages stopped: what the caller is told, and where it may go on from. */

/** Reading messages could not go on: the service's paging made no progress, or the page cap was hit. */
export class MessagesPagingError extends Error {
  override name = 'MessagesPagingError';
  constructor(
    readonly reason: 'no_progress' | 'page_cap',
    message: string,
    /** The `after` the read had reached: a read from here goes on where this one stopped. */
    readonly after: string | null,
  ) {
    super(message);
  }
}

export function noProgressError(after: string | null): MessagesPagingError {
  return new MessagesPagingError(
    'no_progress',
    `reading messages made no progress: the page read with after=${after ?? '(none)'} says hasMore ` +
      'but neither it nor pagination.lastRoundId leads further',
    after,
  );
}
