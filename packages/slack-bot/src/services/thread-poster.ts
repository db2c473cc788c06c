import { createHash } from 'node:crypto';
import { type Clock, systemClock } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import { layoutText, type MessageText } from '../blocks/agent-message.js';
import { escapeMrkdwn, splitText } from '../blocks/text.js';
import type { Logger } from '../logger.js';
import type { PostRepository } from '../store/posts.js';
import type { SessionRecord } from '../store/records.js';
import type { BotMetrics } from './metrics.js';
import { type OutboundMethod, type OutboundPriority, OutboundQueue, queuedChat } from './outbound.js';
import { type SlackClient, slackErrorCode } from './slack.js';

/** Marks our thread messages so a post whose ts was never recorded (a crash) can be found again. */
export const POST_EVENT_TYPE = 'agent_session_post';

/** Thrown to make the follower re-deliver later: another process may still be posting this key. */
export class PostInProgressError extends Error {
  override name = 'PostInProgressError';
}

/** Slack will take nothing from us in this channel: following the session there is pointless. */
export const CHANNEL_GONE_ERRORS = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);
/** Slack won't let us read there (history needs membership, even where chat:write.public lets us post). */
const READ_REFUSED_ERRORS = new Set(['not_in_channel', 'channel_not_found', 'missing_scope']);
/** Slack refused what we sent, not where: the same content, shaped differently, gets through. */
export const CONTENT_ERRORS = new Set(['invalid_blocks', 'msg_blocks_too_long', 'msg_too_long']);

export class CannotPostHereError extends Error {
  override name = 'CannotPostHereError';
  constructor(
    readonly channelId: string,
    readonly code: string,
  ) {
    super(`Slack refused to post in ${channelId}: ${code}`);
  }
}

export interface ThreadPosterOptions {
  /**
   * A key marked as being posted but with no ts may belong to a replica still posting it. Younger than
   * this, we wait (the follower re-delivers); older, its poster is gone and we post once more.
   */
  pendingGraceMs?: number;
  /** An unknown Slack error is retried this many times in all… */
  maxAttempts?: number;
  /** …and not once the post is older than this; then a "couldn't post" note says so. */
  maxRetryAgeMs?: number;
  /** The first retry's wait; each next one waits twice as long. */
  retryBaseMs?: number;
  /** Pages of conversations.replies read to find a post after a crash (Slack may give 15 a page). */
  maxLookupPages?: number;
  clock?: Clock;
}

type Place = Pick<SessionRecord, 'sessionId' | 'channelId' | 'cardTs'>;

/**
 * Where a session's messages go: the thread its card is in — a mention's thread when the card is a reply
 * there (#14), else the card's own. Slack threads only under a thread's parent, never under a reply.
 */
export function threadPlace<T extends Place & Pick<SessionRecord, 'threadTs'>>(session: T): T {
  return session.threadTs ? { ...session, cardTs: session.threadTs } : session;
}

export interface ThreadMessage {
  text: string;
  blocks?: KnownBlock[];
}

/** Block text a batched post may carry: Slack refuses past ~13,200 (`msg_blocks_too_long`). */
const BATCH_BLOCK_CHARS = 11_000;
const BATCH_MAX_BLOCKS = 45;
// Slack shows a message's text whole up to about 4,000 characters; a batch stays as short as one section.
const BATCH_TEXT_CHARS = 3_000;
/** A plain-text fallback part: well inside Slack's 40,000 and shown without truncation. */
const PLAIN_PART_CHARS = 3_500;

/** Our posts in a thread by key, and files by name (ts of each). */
interface ThreadRead {
  keys: Map<string, string>;
  files: Map<string, string>;
}

/** A thread read answers look-ups this long; a key not in it is read again (it may be newer). */
const THREAD_READ_REUSE_MS = 60_000;

interface Item {
  key: string;
  message: ThreadMessage;
  /** Its key is recorded already (enqueued with its body, or recovered after a crash). */
  begun: boolean;
  resolve: (ts: string) => void;
  reject: (error: unknown) => void;
}

interface Batch {
  place: Place;
  items: Item[];
  scheduled: boolean;
}

/**
 * Posts into a session's thread exactly once per key, across restarts, retries and replicas: the key is
 * recorded before posting and its ts after; a key left without a ts is looked up in the thread (by the
 * message metadata we attach) before posting again. Every call goes through the outbound queue; the
 * agent's chatter that piles up behind it goes out as one post (all its keys recorded first).
 */
export class ThreadPoster {
  readonly #pendingGraceMs: number;
  readonly #maxAttempts: number;
  readonly #maxRetryAgeMs: number;
  readonly #maxLookupPages: number;
  readonly #retryBaseMs: number;
  readonly #clock: Clock;
  readonly #batches = new Map<string, Batch>();
  /** `session|key` of everything waiting in a batch of this process. */
  readonly #queued = new Set<string>();
  readonly #recovered = new Map<string, Promise<void>>();
  /**
   * The latest read of each thread, reused for a while: after a crash every re-delivered event of a
   * session may ask about a pending key, and Slack may allow one thread read a minute.
   */
  readonly #threadReads = new Map<string, { at: number; read: Promise<ThreadRead> }>();
  /** A person's DM id by user id (posts go to `U…`; reads need the `D…` that conversations.open gives). */
  readonly #dmIds = new Map<string, string>();
  readonly outbound: OutboundQueue;
  /** Told when a batch sent in the background finds its channel closed to us. */
  onCannotPost: ((place: Place, error: CannotPostHereError) => Promise<void>) | undefined;

  constructor(
    private readonly slack: SlackClient,
    private readonly posts: PostRepository,
    private readonly logger: Logger,
    private readonly metrics: BotMetrics,
    options: ThreadPosterOptions = {},
    outbound?: OutboundQueue,
  ) {
    this.#pendingGraceMs = options.pendingGraceMs ?? 15_000;
    this.#maxAttempts = options.maxAttempts ?? 3;
    this.#maxRetryAgeMs = options.maxRetryAgeMs ?? 60_000;
    this.#maxLookupPages = options.maxLookupPages ?? 5;
    this.#retryBaseMs = options.retryBaseMs ?? 1_000;
    this.#clock = options.clock ?? systemClock;
    this.outbound = outbound ?? new OutboundQueue(logger, metrics, { pacing: 'off' });
  }

  /** Posts a message in the thread unless this key was posted; returns its ts either way. */
  async post(
    place: Place,
    key: string,
    message: ThreadMessage,
    priority: OutboundPriority = 'urgent',
  ): Promise<string> {
    const existing = await this.#begin(place, key);
    if (existing) return existing;
    return this.#deliver(place, [key], message, priority);
  }

  /**
   * Posts text as one message, several (labelled parts), or a file — whatever keeps all of it. The
   * agent's chatter: behind other posts of its channel, and batched with the session's next messages
   * while it waits.
   */
  async postText(
    place: Place,
    key: string,
    text: MessageText,
    priority: OutboundPriority = 'chatter',
  ): Promise<string[]> {
    const stem = `agent-${place.sessionId}-${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
    const laid = layoutText(text, stem);
    if (laid.kind === 'text') {
      const [only] = laid.parts;
      if (laid.parts.length === 1 && only && priority === 'chatter' && this.outbound.pacing === 'on') {
        return [await this.#batched(place, key, only)];
      }
      const out: string[] = [];
      for (const [i, part] of laid.parts.entries()) {
        out.push(await this.post(place, laid.parts.length === 1 ? key : `${key}~${i}`, part, priority));
      }
      return out;
    }
    return [await this.upload(place, key, laid, priority)];
  }

  /**
   * The agent's chatter, for an event handler that must not wait for Slack: recorded with its content
   * before this returns (so the follower may move on), then posted from the session's batch — with the
   * messages queued after it, as one post, when the channel is behind. A crash before the post is made
   * is recovered from the record (`recover`). Long text (parts, a file) is posted before returning.
   */
  async enqueueText(place: Place, key: string, text: MessageText, onPosted?: () => void): Promise<void> {
    if (this.outbound.pacing === 'off') {
      await this.postText(place, key, text);
      onPosted?.();
      return;
    }
    await this.recover(place);
    const stem = `agent-${place.sessionId}-${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
    const laid = layoutText(text, stem);
    const [only] = laid.kind === 'text' ? laid.parts : [];
    if (laid.kind !== 'text' || laid.parts.length !== 1 || !only) {
      await this.postText(place, key, text);
      onPosted?.();
      return;
    }
    const id = `${place.sessionId}|${key}`;
    if (this.#queued.has(id)) return;
    const state = await this.posts.begin(place.sessionId, key, JSON.stringify(only));
    if (state.state === 'posted') return;
    // Pending and not queued here (recover() took this session's unsent keys): the usual rules.
    if (state.state === 'pending' && (await this.#whenPending(place, key, state.since))) return;
    this.#push(place, { key, message: only, begun: true, resolve: () => onPosted?.(), reject: () => {} });
  }

  /**
   * After a crash: the session's keys recorded with a body and never posted are found in the thread (one
   * bounded read) or queued again. Once per session per process, before anything else of it is queued.
   */
  recover(place: Place): Promise<void> {
    let done = this.#recovered.get(place.sessionId);
    if (!done) {
      done = this.#recover(place).catch((error: unknown) => {
        this.#recovered.delete(place.sessionId);
        throw error;
      });
      this.#recovered.set(place.sessionId, done);
    }
    return done;
  }

  async #recover(place: Place): Promise<void> {
    const unsent = await this.posts.unsent(place.sessionId);
    if (unsent.length === 0) return;
    const seen = await this.#readThread(place);
    this.#threadReads.set(placeKey(place), { at: this.#clock.now(), read: Promise.resolve(seen) });
    let requeued = 0;
    for (const row of unsent) {
      const ts = seen.keys.get(row.key);
      if (ts) {
        await this.posts.finish(place.sessionId, row.key, ts);
        continue;
      }
      let message: ThreadMessage;
      try {
        message = JSON.parse(row.body) as ThreadMessage;
      } catch {
        message = { text: row.body };
      }
      this.#push(place, { key: row.key, message, begun: true, resolve: () => {}, reject: () => {} });
      requeued++;
    }
    this.logger.info(
      { sessionId: place.sessionId, found: unsent.length - requeued, requeued },
      'recovered posts left unsent by a crash',
    );
  }

  /** Uploads a file into the thread once per key. */
  async upload(
    place: Place,
    key: string,
    file: { filename: string; content: string; comment: string },
    priority: OutboundPriority = 'chatter',
  ): Promise<string> {
    const existing = await this.#begin(place, key, file.filename);
    if (existing) return existing;
    try {
      await this.#uploadFile(place, file, priority);
    } catch (error) {
      await this.#refused(place, [key], error);
      throw error;
    }
    // The upload's message ts isn't in the response; the file name finds it in the thread.
    const ts = (await this.#findInThread(place, key, file.filename, true)) ?? 'uploaded';
    await this.posts.finish(place.sessionId, key, ts);
    return ts;
  }

  /** Where a key was posted: recorded, or found in the thread; undefined when it never was. */
  async locate(place: Place, key: string): Promise<string | undefined> {
    return (await this.posts.ts(place.sessionId, key)) ?? (await this.#findInThread(place, key));
  }

  /** Chatter waits in its session's batch; the queue sends the batch when the channel has room. */
  #batched(place: Place, key: string, message: ThreadMessage): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.#push(place, { key, message, begun: false, resolve, reject });
    });
  }

  #push(place: Place, item: Item): void {
    let batch = this.#batches.get(place.sessionId);
    if (!batch) {
      batch = { place, items: [], scheduled: false };
      this.#batches.set(place.sessionId, batch);
    }
    batch.place = place;
    batch.items.push(item);
    this.#queued.add(`${place.sessionId}|${item.key}`);
    this.#schedule(batch);
  }

  #schedule(batch: Batch): void {
    if (batch.scheduled || batch.items.length === 0) return;
    batch.scheduled = true;
    const { place } = batch;
    // The queue only decides when; the batch is made when the slot comes, so everything waiting joins it.
    this.outbound
      .run({ channel: place.channelId, priority: 'chatter', method: 'turn', run: async () => {} })
      .then(
        () => this.#sendBatch(batch),
        () => {},
      )
      .finally(() => {
        batch.scheduled = false;
        if (batch.items.length > 0) this.#schedule(batch);
        else if (this.#batches.get(place.sessionId) === batch) this.#batches.delete(place.sessionId);
      });
  }

  async #sendBatch(batch: Batch): Promise<void> {
    const taken = takeBatch(batch.items);
    if (taken.length === 0) return;
    const settle = (fn: (item: Item) => void) => {
      for (const item of taken) {
        this.#queued.delete(`${batch.place.sessionId}|${item.key}`);
        fn(item);
      }
    };
    try {
      // Every key recorded before the one post is sent; a key posted already (a re-delivery) drops out.
      const fresh: Item[] = [];
      for (const item of taken) {
        const existing = item.begun ? undefined : await this.#begin(batch.place, item.key);
        if (existing) item.resolve(existing);
        else fresh.push(item);
      }
      if (fresh.length === 0) {
        settle(() => {});
        return;
      }
      this.metrics.batchSize.observe(fresh.length);
      const message: ThreadMessage = {
        text: fresh.map((i) => i.message.text).join('\n\n'),
        blocks: fresh.flatMap((i) => i.message.blocks ?? []),
      };
      // Queued as chatter: while it waits, the session's next messages gather for the batch after it.
      const ts = await this.#deliver(
        batch.place,
        fresh.map((i) => i.key),
        message,
        'chatter',
      );
      settle((item) => item.resolve(ts));
    } catch (error) {
      settle((item) => item.reject(error));
      if (error instanceof CannotPostHereError) await this.onCannotPost?.(batch.place, error);
      else this.logger.warn({ err: error, sessionId: batch.place.sessionId }, 'a batch of posts failed');
    }
  }

  async #begin(place: Place, key: string, filename?: string): Promise<string | undefined> {
    const state = await this.posts.begin(place.sessionId, key);
    if (state.state === 'new') return undefined;
    if (state.state === 'posted') return state.ts;
    return this.#whenPending(place, key, state.since, filename);
  }

  /** A key recorded and not posted: found in the thread, still being posted (young), or to post again. */
  async #whenPending(
    place: Place,
    key: string,
    since: string,
    filename?: string,
  ): Promise<string | undefined> {
    // Past the grace period we may post it again: only a read made after its poster's time ran out counts.
    const readAfter = Date.parse(since) + this.#pendingGraceMs;
    const found = await this.#findInThread(
      place,
      key,
      filename,
      Number.isFinite(readAfter) ? readAfter : true,
    );
    if (found) {
      this.logger.info({ sessionId: place.sessionId, key }, 'found an unrecorded post in the thread');
      await this.posts.finish(place.sessionId, key, found);
      return found;
    }
    const age = this.#clock.now() - Date.parse(since);
    if (Number.isFinite(age) && age < this.#pendingGraceMs) {
      throw new PostInProgressError(`"${key}" is being posted (for ${age} ms); will look again`);
    }
    this.logger.warn({ sessionId: place.sessionId, key }, 'a post was started and never made: posting it');
    return undefined;
  }

  /**
   * Sends one post for keys already recorded, and records its ts for all of them. Each Slack error has
   * one outcome: a channel we can't post in → CannotPostHereError; content Slack refuses → plain text,
   * then a file; anything else → a few retries, then a visible "couldn't post" note. Never an endless loop.
   */
  async #deliver(
    place: Place,
    keys: string[],
    message: ThreadMessage,
    priority: OutboundPriority,
  ): Promise<string> {
    const started = this.#clock.now();
    for (let attempt = 1; ; attempt++) {
      try {
        const ts = await this.#postMessage(place, keys, message, priority);
        await this.#finish(place, keys, ts);
        this.metrics.postOutcomes.inc({ outcome: 'posted' });
        return ts;
      } catch (error) {
        await this.#throwIfChannelGone(place, keys, error);
        const code = slackErrorCode(error);
        if (code && CONTENT_ERRORS.has(code)) {
          this.logger.warn({ sessionId: place.sessionId, code }, 'Slack refused a post: sending it as text');
          return this.#asPlainText(place, keys, message, priority);
        }
        if (!code) {
          // A lost connection: the post may have been made. Look before posting again.
          const found = await this.#findInThread(place, keys[0] ?? '', undefined, true).catch(
            () => undefined,
          );
          if (found) {
            await this.#finish(place, keys, found);
            return found;
          }
        }
        const age = this.#clock.now() - started;
        if (attempt >= this.#maxAttempts || age >= this.#maxRetryAgeMs) {
          return this.#giveUp(place, keys, error);
        }
        this.metrics.postOutcomes.inc({ outcome: 'retried' });
        await this.#clock.sleep(Math.min(this.#retryBaseMs * 2 ** (attempt - 1), this.#maxRetryAgeMs));
      }
    }
  }

  /** Plain text in safe parts (no blocks to refuse); a part refused even so sends the whole as a file. */
  async #asPlainText(
    place: Place,
    keys: string[],
    message: ThreadMessage,
    priority: OutboundPriority,
  ): Promise<string> {
    const text = message.text || blocksText(message.blocks);
    const parts = splitText(text, PLAIN_PART_CHARS);
    let first: string | undefined;
    try {
      for (const [i, part] of parts.entries()) {
        const labelled = parts.length > 1 ? `${part}\n(part ${i + 1} of ${parts.length})` : part;
        const ts = await this.#postMessage(place, keys, { text: labelled }, priority);
        first ??= ts;
        // Recorded at the first part: a crash after it finds the post and does not send it all again.
        if (i === 0) await this.#finish(place, keys, ts);
      }
      this.metrics.postOutcomes.inc({ outcome: 'as_text' });
      return first ?? '';
    } catch (error) {
      await this.#throwIfChannelGone(place, keys, error);
      const code = slackErrorCode(error);
      if (first !== undefined && !(code && CONTENT_ERRORS.has(code))) throw error;
      this.logger.warn({ sessionId: place.sessionId, code }, 'Slack refused the text too: sending a file');
      const name = `agent-${place.sessionId}-${createHash('sha256').update(keys.join('|')).digest('hex').slice(0, 10)}.txt`;
      await this.#uploadFile(
        place,
        { filename: name, content: text, comment: '📎 Slack refused this as a message: it is in the file.' },
        priority,
      );
      const ts = first ?? (await this.#findInThread(place, keys[0] ?? '', name, true)) ?? 'uploaded';
      await this.#finish(place, keys, ts);
      this.metrics.postOutcomes.inc({ outcome: 'as_file' });
      return ts;
    }
  }

  /** Tried enough: the keys count as done (no endless re-delivery) and the thread or the log says so. */
  async #giveUp(place: Place, keys: string[], error: unknown): Promise<string> {
    this.metrics.postOutcomes.inc({ outcome: 'gave_up' });
    this.logger.error(
      { err: error, sessionId: place.sessionId, keys },
      'could not post in a thread: gave up',
    );
    await this.#finish(place, keys, 'gave-up');
    const reason = slackErrorCode(error) ?? (error instanceof Error ? error.message : String(error));
    await queuedChat(this.slack, this.outbound)
      .chat.postMessage({
        channel: place.channelId,
        ...(place.cardTs ? { thread_ts: place.cardTs } : {}),
        text: `⚠️ The bot couldn't post one of the agent's messages here (${escapeMrkdwn(reason)}). \`/agent status ${place.sessionId}\` shows the session.`,
      })
      .catch((e: unknown) => this.logger.warn({ err: e }, 'could not post a "couldn\'t post" note either'));
    return 'gave-up';
  }

  async #finish(place: Place, keys: string[], ts: string): Promise<void> {
    for (const key of keys) await this.posts.finish(place.sessionId, key, ts);
  }

  /** Slack takes nothing in this channel: the keys are new again, and the caller gets CannotPostHereError. */
  async #throwIfChannelGone(place: Place, keys: string[], error: unknown): Promise<void> {
    const code = slackErrorCode(error);
    if (!code || !CHANNEL_GONE_ERRORS.has(code)) return;
    await this.#refused(place, keys, error);
    throw new CannotPostHereError(place.channelId, code);
  }

  /** Slack refused for sure: the keys are new again (a later attempt may post them). */
  async #refused(place: Place, keys: string[], error: unknown): Promise<void> {
    const code = slackErrorCode(error);
    if (!code) return;
    if (CHANNEL_GONE_ERRORS.has(code)) this.metrics.postOutcomes.inc({ outcome: 'cant_post_here' });
    for (const key of keys) await this.posts.abandon(place.sessionId, key).catch(() => {});
  }

  async #postMessage(
    place: Place,
    keys: string[],
    message: ThreadMessage,
    priority: OutboundPriority,
  ): Promise<string> {
    const [key] = keys;
    const result = await this.#call('post', priority, place.channelId, () =>
      this.slack.chat.postMessage({
        channel: place.channelId,
        ...(place.cardTs ? { thread_ts: place.cardTs } : {}),
        text: message.text,
        ...(message.blocks && message.blocks.length > 0 ? { blocks: message.blocks } : {}),
        unfurl_links: false,
        unfurl_media: false,
        metadata: {
          event_type: POST_EVENT_TYPE,
          event_payload: {
            session_id: place.sessionId,
            key: key ?? '',
            ...(keys.length > 1 ? { keys: JSON.stringify(keys) } : {}),
          },
        },
      }),
    );
    return String(result.ts);
  }

  async #uploadFile(
    place: Place,
    file: { filename: string; content: string; comment: string },
    priority: OutboundPriority,
  ): Promise<void> {
    const common = {
      channel_id: place.channelId,
      filename: file.filename,
      title: file.filename,
      content: file.content,
      initial_comment: file.comment,
    };
    await this.#call('upload', priority, place.channelId, () =>
      this.slack.files.uploadV2(place.cardTs ? { ...common, thread_ts: place.cardTs } : common),
    );
  }

  /**
   * Crash recovery only: reads the thread (bounded: a few pages, paced as history) for our metadata or a
   * file's name.
   */
  async #findInThread(
    place: Place,
    key: string,
    filename?: string,
    /** A read older than this won't do (it could miss a post made since); `true`: read now. */
    readAfter: number | true = 0,
  ): Promise<string | undefined> {
    const cached = this.#threadReads.get(placeKey(place));
    let seen: ThreadRead | undefined;
    const now = this.#clock.now();
    if (readAfter !== true && cached && cached.at >= readAfter && now - cached.at < THREAD_READ_REUSE_MS) {
      seen = await cached.read.catch(() => undefined);
    }
    // A read made after the crash holds everything the dead process posted: a key not in it was not posted.
    if (!seen) {
      const read = this.#readThread(place);
      this.#threadReads.set(placeKey(place), { at: this.#clock.now(), read });
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
      this.logger.warn({ sessionId: place.sessionId, code }, 'cannot read a channel to find lost posts');
      return { keys: new Map(), files: new Map() };
    }
  }

  async #readPages(place: Place, channel: string, stopAt?: string, filename?: string): Promise<ThreadRead> {
    const keys = new Map<string, string>();
    const files = new Map<string, string>();
    const { cardTs } = place;
    let cursor: string | undefined;
    let pages = 0;
    do {
      const query = { channel, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) };
      const page = await this.#call(
        'history',
        'urgent',
        place.channelId,
        () =>
          cardTs
            ? this.slack.conversations.replies({ ...query, ts: cardTs })
            : this.slack.conversations.history(query),
        cardTs ? 'conversations.replies' : 'conversations.history',
      );
      for (const m of page.messages ?? []) {
        if (!m.ts) continue;
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
    } while (cursor && pages < this.#maxLookupPages);
    if (cursor)
      this.logger.warn({ sessionId: place.sessionId }, 'stopped reading a thread for lost posts: too long');
    return { keys, files };
  }

  /** The conversation to read for a place: a user id stands for the bot's DM with them. */
  async #conversationId(channel: string): Promise<string> {
    if (!/^[UW][A-Z0-9]+$/.test(channel)) return channel;
    const known = this.#dmIds.get(channel);
    if (known) return known;
    const opened = await this.#call(
      'history',
      'urgent',
      channel,
      () => this.slack.conversations.open({ users: channel }),
      'conversations.open',
    );
    const id = opened.channel?.id;
    if (!id) throw new Error('conversations.open answered without a channel id');
    this.#dmIds.set(channel, id);
    return id;
  }

  async #call<T>(
    method: OutboundMethod,
    priority: OutboundPriority,
    channel: string,
    call: () => Promise<T>,
    name: string = method,
  ): Promise<T> {
    try {
      const result = await this.outbound.run({ channel, priority, method, run: call });
      this.metrics.slackCalls.inc({ method: name, outcome: 'ok' });
      return result;
    } catch (error) {
      this.metrics.slackCalls.inc({ method: name, outcome: 'error' });
      throw error;
    }
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

/** The agent's messages waiting, oldest first, as many as one post holds within Slack's limits. */
function takeBatch(items: Item[]): Item[] {
  const taken: Item[] = [];
  let chars = 0;
  let blocks = 0;
  let text = 0;
  while (items.length > 0) {
    const next = items[0] as Item;
    const c = JSON.stringify(next.message.blocks ?? []).length;
    const b = next.message.blocks?.length ?? 0;
    const t = next.message.text.length + 2;
    if (
      taken.length > 0 &&
      (chars + c > BATCH_BLOCK_CHARS || blocks + b > BATCH_MAX_BLOCKS || text + t > BATCH_TEXT_CHARS)
    )
      break;
    items.shift();
    taken.push(next);
    chars += c;
    blocks += b;
    text += t;
  }
  return taken;
}

/** The words of blocks, for a message whose `text` was empty. */
function blocksText(blocks: KnownBlock[] | undefined): string {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const child of value) walk(child);
      return;
    }
    const v = value as Record<string, unknown>;
    if (typeof v.text === 'string') out.push(v.text);
    for (const [k, child] of Object.entries(v)) if (k !== 'text' || typeof child !== 'string') walk(child);
  };
  walk(blocks);
  return out.join('\n');
}
