/**
 * The crash look-up: finding a post whose record a crash lost. A key recorded as being posted but with no
 * ts is looked for in the thread (by the message metadata every post carries) before it is posted again.
 */
import type { Clock } from '@agent-sessions/core';
import type { Logger } from '../../../logger.js';
import type { PostRepository } from '../../../store/posts.js';
import { cacheKey } from '../../../workspace.js';
import {
  type BotIdentity,
  botIdentity,
  isOwnMessage,
  type OutboundPriority,
  type SlackClient,
  type SlackMethod,
  slackErrorCode,
} from '../outbound/index.js';
import type { Place, ThreadMessage } from './thread-place.js';

/** Marks our thread messages so a post whose ts was never recorded (a crash) can be found again. */
export const POST_EVENT_TYPE = 'agent_session_post';

/** The mark on each of our posts: the session and every key the post carries (a batch carries several). */
export function postMetadata(place: Place, keys: string[]) {
  return {
    event_type: POST_EVENT_TYPE,
    event_payload: {
      session_id: place.sessionId,
      key: keys[0] ?? '',
      ...(keys.length > 1 ? { keys: JSON.stringify(keys) } : {}),
    },
  };
}

/** Thrown to make the follower re-deliver later: another process may still be posting this key. */
export class PostInProgressError extends Error {
  override name = 'PostInProgressError';
}

/** Slack won't let us read there (history needs membership, even where chat:write.public lets us post). */
const READ_REFUSED_ERRORS = new Set(['not_in_channel', 'channel_not_found', 'missing_scope']);

/** Our posts in a thread by key, and files by name (ts of each). */
export interface ThreadRead {
  keys: Map<string, string>;
  files: Map<string, string>;
}

/** A thread read answers look-ups this long; a key not in it is read again (it may be newer). */
const THREAD_READ_REUSE_MS = 60_000;

/** A Slack call through the outbound queue, counted in the metrics (the poster's). */
export type SlackCall = <T>(
  method: SlackMethod,
  priority: OutboundPriority,
  channel: string,
  call: () => Promise<T>,
) => Promise<T>;

export interface ThreadLookupOptions {
  slack: SlackClient;
  posts: PostRepository;
  logger: Logger;
  clock: Clock;
  call: SlackCall;
  /** A pending key younger than this may belong to a replica still posting it. */
  pendingGraceMs: number;
  /** Pages of conversations.replies read to find a post after a crash. */
  maxLookupPages: number;
  /** Who the bot is (the bot's one auth.test reader); asked of Slack here when not given. */
  self?: (() => Promise<BotIdentity>) | undefined;
}

export class ThreadLookup {
  /**
   * The latest read of each thread, reused for a while: after a crash every re-delivered event of a
   * session may ask about a pending key, and Slack may allow one thread read a minute.
   */
  readonly #threadReads = new Map<string, { at: number; read: Promise<ThreadRead> }>();
  /** A person's DM id (`D…`, for reads), per workspace: one person has a DM with the bot in each. */
  readonly #dmIds = new Map<string, string>();
  readonly #recovered = new Map<string, Promise<void>>();

  /** Who the bot is: only its own messages and files count as posts found after a crash. */
  readonly #self: () => Promise<BotIdentity>;

  constructor(private readonly deps: ThreadLookupOptions) {
    this.#self = deps.self ?? botIdentity(deps.slack);
  }

  /** A key recorded and not posted: found in the thread, still being posted (young), or to post again. */
  async whenPending(
    place: Place,
    key: string,
    since: string,
    filename?: string,
  ): Promise<string | undefined> {
    // Past the grace period we may post it again: only a read made after its poster's time ran out counts.
    const readAfter = Date.parse(since) + this.deps.pendingGraceMs;
    const found = await this.find(place, key, filename, Number.isFinite(readAfter) ? readAfter : true);
    if (found) {
      this.deps.logger.info({ sessionId: place.sessionId, key }, 'found an unrecorded post in the thread');
      await this.deps.posts.finish(place.sessionId, key, found);
      return found;
    }
    const age = this.deps.clock.now() - Date.parse(since);
    if (Number.isFinite(age) && age < this.deps.pendingGraceMs) {
      throw new PostInProgressError(`"${key}" is being posted (for ${age} ms); will look again`);
    }
    this.deps.logger.warn(
      { sessionId: place.sessionId, key },
      'a post was started and never made: posting it',
    );
    return undefined;
  }

  /** The session may come back to this process later: recover it again then. */
  forgetRecovered(sessionId: string): void {
    this.#recovered.delete(sessionId);
  }

  /**
   * After a crash: the session's keys recorded with a body and never posted are found in the thread (one
   * bounded read) or handed to `requeue`. Once per session per process, before anything else of it is queued.
   */
  recover(
    place: Place,
    requeue: (key: string, message: ThreadMessage) => void,
    queuedHere: (key: string) => boolean = () => false,
  ): Promise<void> {
    let done = this.#recovered.get(place.sessionId);
    if (!done) {
      done = this.#lookUpUnsent(place, requeue, queuedHere).catch((error: unknown) => {
        this.#recovered.delete(place.sessionId);
        throw error;
      });
      this.#recovered.set(place.sessionId, done);
    }
    return done;
  }

  async #lookUpUnsent(
    place: Place,
    requeue: (key: string, message: ThreadMessage) => void,
    queuedHere: (key: string) => boolean,
  ): Promise<void> {
    const { posts } = this.deps;
    const unsent = (await posts.unsent(place.sessionId)).filter((row) => !queuedHere(row.key));
    if (unsent.length === 0) return;
    // Read now, after the crash: everything the dead process posted is in it; kept for the look-ups after.
    const seen = await this.#readThread(place);
    this.#threadReads.set(placeKey(place), { at: this.deps.clock.now(), read: Promise.resolve(seen) });
    let requeued = 0;
    for (const row of unsent) {
      const ts = seen.keys.get(row.key);
      if (ts) {
        await posts.finish(place.sessionId, row.key, ts);
        continue;
      }
      let message: ThreadMessage;
      try {
        message = JSON.parse(row.body) as ThreadMessage;
      } catch {
        message = { text: row.body };
      }
      requeue(row.key, message);
      requeued++;
    }
    this.deps.logger.info(
      { sessionId: place.sessionId, found: unsent.length - requeued, requeued },
      'recovered posts left unsent by a crash',
    );
  }

  /**
   * Crash recovery only: reads the thread (bounded: a few pages, paced as history) for our metadata or a
   * file's name.
   */
  async find(
    place: Place,
    key: string,
    filename?: string,
    /** A read older than this won't do (it could miss a post made since); `true`: read now. */
    readAfter: number | true = 0,
  ): Promise<string | undefined> {
    const cached = this.#threadReads.get(placeKey(place));
    let seen: ThreadRead | undefined;
    const now = this.deps.clock.now();
    if (readAfter !== true && cached && cached.at >= readAfter && now - cached.at < THREAD_READ_REUSE_MS) {
      seen = await cached.read.catch(() => undefined);
    }
    // A read made after the crash holds everything the dead process posted: a key not in it was not posted.
    if (!seen) {
      const read = this.#readThread(place);
      this.#threadReads.set(placeKey(place), { at: this.deps.clock.now(), read });
      if (this.#threadReads.size > 500) this.#threadReads.delete(this.#threadReads.keys().next().value ?? '');
      seen = await read;
    }
    return seen.keys.get(key) ?? (filename ? seen.files.get(filename) : undefined);
  }

  /**
   * Our posts in a thread by key, and files by name; stops early once `stopAt` (a key or file) is seen.
   * A place with no thread (a DM to the starter, the escalation channel) is read from the channel's
   * history, newest first, keeping only this session's posts: a crash between Slack taking such a post
   * and our record of it must not send it twice either.
   */
  async #readThread(place: Place, stopAt?: string, filename?: string): Promise<ThreadRead> {
    try {
      const channel = place.cardTs ? place.channelId : await this.#conversationId(place.channelId);
      return await this.#readPages(place, channel, stopAt, filename);
    } catch (error) {
      const code = slackErrorCode(error);
      if (!code || !READ_REFUSED_ERRORS.has(code)) throw error;
      // A public channel the bot posts in without being a member (chat:write.public) can't be read: with no
      // look-up possible, a post whose record a crash lost may be made twice there. Inviting the bot ends it.
      this.deps.logger.warn({ sessionId: place.sessionId, code }, 'cannot read a channel to find lost posts');
      return { keys: new Map(), files: new Map() };
    }
  }

  async #readPages(place: Place, channel: string, stopAt?: string, filename?: string): Promise<ThreadRead> {
    const { slack } = this.deps;
    const keys = new Map<string, string>();
    const files = new Map<string, string>();
    const { cardTs } = place;
    let cursor: string | undefined;
    let pages = 0;
    const self = await this.#self();
    do {
      const query = { channel, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) };
      const page = await (cardTs
        ? this.deps.call('conversations.replies', 'urgent', place.channelId, () =>
            slack.conversations.replies({ ...query, ts: cardTs }),
          )
        : this.deps.call('conversations.history', 'urgent', place.channelId, () =>
            slack.conversations.history(query),
          ));
      for (const m of page.messages ?? []) {
        if (!m.ts || !isOwnMessage(m, self)) continue;
        const payload = m.metadata?.event_payload as { session_id?: unknown } | undefined;
        if (!cardTs && payload?.session_id !== place.sessionId) continue;
        if (m.metadata?.event_type === POST_EVENT_TYPE) {
          for (const k of keysOf(m.metadata.event_payload)) if (typeof k === 'string') keys.set(k, m.ts);
        }
        for (const f of m.files ?? []) {
          if (f.name) files.set(f.name, m.ts);
          if (f.title) files.set(f.title, m.ts);
        }
      }
      if ((stopAt && keys.has(stopAt)) || (filename && files.has(filename))) return { keys, files };
      cursor = page.response_metadata?.next_cursor || undefined;
      pages++;
    } while (cursor && pages < this.deps.maxLookupPages);
    if (cursor)
      this.deps.logger.warn(
        { sessionId: place.sessionId },
        'stopped reading a thread for lost posts: too long',
      );
    return { keys, files };
  }

  /** The conversation to read for a place: a user id stands for the bot's DM with them. */
  async #conversationId(channel: string): Promise<string> {
    if (!/^[UW][A-Z0-9]+$/.test(channel)) return channel;
    const known = this.#dmIds.get(cacheKey(channel));
    if (known) return known;
    const opened = await this.deps.call('conversations.open', 'urgent', channel, () =>
      this.deps.slack.conversations.open({ users: channel }),
    );
    const id = opened.channel?.id;
    if (!id) throw new Error('conversations.open answered without a channel id');
    this.#dmIds.set(cacheKey(channel), id);
    return id;
  }
}

/** What a thread read is cached under: a session posts in its thread, and at the top of other places. */
function placeKey(place: Place): string {
  return `${place.sessionId}|${place.channelId}|${place.cardTs ?? ''}`;
}

/**
 * The keys in our message metadata (the Web API types the payload as an empty object). A batch carries
 * all of them as a JSON list in `keys` (metadata values may not be lists of strings).
 */
function keysOf(payload: object | undefined): unknown[] {
  if (!payload) return [];
  let keys: unknown[] = [];
  if ('keys' in payload && typeof payload.keys === 'string') {
    try {
      const parsed: unknown = JSON.parse(payload.keys);
      if (Array.isArray(parsed)) keys = parsed;
    } catch {
      // Not ours after all: only `key` counts.
    }
  }
  return 'key' in payload ? [payload.key, ...keys] : keys;
}
