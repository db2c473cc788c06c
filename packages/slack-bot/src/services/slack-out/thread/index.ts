/**
 * A session's classic place in a channel: its card, edited as it changes, and its thread, where the
 * agent's chatter is batched and posted exactly once (a crash is looked up in the thread), with the notes
 * and ephemerals the services send people there. Calls go through the outbound queue.
 */
export { type CardMessage, type CardRank, CardUpdater, type CardUpdaterOptions } from './card-updater.js';
export { Notifier } from './notifier.js';
export { PostOwner, type PostOwnerDeps } from './post-owner.js';
export { POST_EVENT_TYPE, postMetadata } from './thread-lookup.js';
export {
  CannotPostHereError,
  CHANNEL_GONE_ERRORS,
  type Place,
  PostWithdrawnError,
  type SessionPlace,
  type ThreadMessage,
  threadPlace,
} from './thread-place.js';
export { ThreadPoster, type ThreadPosterDeps, type ThreadPosterOptions } from './thread-poster.js';
