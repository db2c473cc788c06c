/**
 * Posting into a session's thread, exactly once per key: one key's way from record to ts, with the one
 * outcome of each Slack error (channel gone, content refused, anything else). The crash look-up, chatter
 * batching and long content are thread-{lookup,batches,layout}.ts.
 */
import { type Clock, systemClock } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import type { MessageText } from '../../../blocks/agent-message.js';
import { escapeMrkdwn } from '../../../blocks/text.js';
import type { Logger } from '../../../logger.js';
import type { PostRepository } from '../../../store/posts.js';
import type { BotMetrics } from '../../ops/metrics.js';
import {
  countedCall,
  type OutboundPriority,
  OutboundQueue,
  queuedChat,
  type SlackClient,
  type SlackMethod,
  slackErrorCode,
} from '../outbound/index.js';
import { PostOwner } from './post-owner.js';
import { type BatchItem, ThreadBatches } from './thread-batches.js';
import { batchMessage, carryable, fileStem, layoutFor, plainParts } from './thread-layout.js';
import { postMetadata, ThreadLookup, type ThreadLookupOptions } from './thread-lookup.js';
import {
  CannotPostHereError,
  CHANNEL_GONE_ERRORS,
  CONTENT_ERRORS,
  type Place,
  PostWithdrawnError,
  type ThreadMessage,
} from './thread-place.js';

export interface ThreadPosterOptions extends Pick<ThreadLookupOptions, 'self'> {
  /**
   * A key marked as being posted but with no ts may belong to a replica still posting it. Younger than
   * this, we wait (the follower re-delivers); older, its poster is gone and we post once more.
   */
  pendingGraceMs?: number;
  /**
   * An unknown Slack error is retried `maxAttempts` times in all, first after `retryBaseMs` (each next
   * wait twice as long), and not once the post is older than `maxRetryAgeMs`: a "couldn't post" note then.
   */
  maxAttempts?: number;
  maxRetryAgeMs?: number;
  retryBaseMs?: number;
  /**
   * While the channel's posts are behind, a session's waiting chatter goes into its latest post of chatter
   * by an edit, as long as that has room (default); false: chatter is only posted, each batch a post.
   */
  appends?: boolean;
  /** Pages of conversations.replies read to find a post after a crash (Slack may give 15 a page). */
  maxLookupPages?: number;
  clock?: Clock;
}

/** What the poster is built from. */
export interface ThreadPosterDeps {
  slack: SlackClient;
  posts: PostRepository;
  logger: Logger;
  metrics: BotMetrics;
  /** Paces every call (absent: unpaced, every call at once). */
  outbound?: OutboundQueue;
  /** Who sends the session's posts here (shared with the stream poster and the publisher); absent: this process, always. */
  owner?: PostOwner;
  options?: ThreadPosterOptions;
}

/**
 * Posts into a session's thread exactly once per key, across restarts, retries and replicas: the key is
 * recorded before posting and its ts after; a key left without a ts is looked up in the thread (by the
 * message metadata we attach: `ThreadLookup`) before posting again. Every call goes through the outbound
 * queue; the agent's chatter that piles up behind it goes out as one post (`ThreadBatches`, all its keys
 * recorded first). Content Slack refuses is laid out again (`thread-layout.ts`).
 */
export class ThreadPoster {
  readonly #maxAttempts: number;
  readonly #maxRetryAgeMs: number;
  readonly #retryBaseMs: number;
  readonly #clock: Clock;
  readonly #lookup: ThreadLookup;
  /** The sessions' chatter waiting here (its `mark` is what `drained` takes as `through`). */
  readonly #batches: ThreadBatches;
  readonly #outbound: OutboundQueue;
  readonly #owner: PostOwner;
  readonly #slack: SlackClient;
  readonly #posts: PostRepository;
  readonly #logger: Logger;
  readonly #metrics: BotMetrics;

  constructor(deps: ThreadPosterDeps) {
    const { slack, posts, logger, metrics, options = {} } = deps;
    this.#slack = slack;
    this.#posts = posts;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#owner = deps.owner ?? new PostOwner();
    this.#maxAttempts = options.maxAttempts ?? 3;
    this.#maxRetryAgeMs = options.maxRetryAgeMs ?? 60_000;
    this.#retryBaseMs = options.retryBaseMs ?? 1_000;
    this.#clock = options.clock ?? systemClock;
    this.#outbound = deps.outbound ?? new OutboundQueue(logger, metrics, { pacing: 'off' });
    this.#lookup = new ThreadLookup({
      slack,
      posts,
      logger,
      clock: this.#clock,
      call: (method, priority, channel, call) => this.#call(method, priority, { channel }, call),
      pendingGraceMs: options.pendingGraceMs ?? 15_000,
      maxLookupPages: options.maxLookupPages ?? 5,
      self: options.self,
    });
    this.#batches = new ThreadBatches({
      outbound: this.#outbound,
      metrics,
      logger,
      begin: (place, key) => this.#begin(place, key),
      posted: (place, key) => this.#posts.ts(place.sessionId, key),
      ...(options.appends === false
        ? {}
        : {
            append: (place: Place, ts: string, keys: string[], added: string[], message: ThreadMessage) =>
              this.#append(place, ts, keys, added, message),
          }),
      deliver: (place, keys, message, priority) =>
        this.#deliver(place, keys, message, priority, { leased: true }),
      cannotPost: (place, error) => this.#owner.cannotPost(place, error),
    });
  }

  /**
   * Posts a message in the thread unless this key was posted; returns its ts either way. `leased`: the
   * session's follower posts it (an event's post), so no attempt is made once its lease moved away.
   */
  async post(
    place: Place,
    key: string,
    message: ThreadMessage,
    priority: OutboundPriority = 'urgent',
    options: { leased?: boolean } = {},
  ): Promise<string> {
    const existing = await this.#begin(place, key);
    if (existing) return existing;
    return this.#besideTail(place.sessionId, () => this.#deliver(place, [key], message, priority, options));
  }

  /**
   * Posts something other than chatter in the session's thread: no chatter goes by an edit into a post above
   * it, from its start (a batch's post then is not open to edits) to its answer (a batch's post answered
   * meanwhile may have gone ahead of it, and is no longer the thread's latest).
   */
  async #besideTail<T>(sessionId: string, post: () => Promise<T>): Promise<T> {
    this.endTail(sessionId);
    try {
      return await post();
    } finally {
      this.endTail(sessionId);
    }
  }

  /**
   * Posts a session's urgent message (a question) after its chatter queued up to `through` (a batches
   * `mark`). That chatter, while it still waits (the channel is behind), goes in the same post ahead of the
   * message: one post where there were two, each post a second of the channel's budget. `carrying` is told
   * its blocks before the post is made, to keep them in the message's later edits. Chatter too long to go
   * with it waits to be out first, as its own posts.
   */
  async postAfterChatter(
    place: Place,
    key: string,
    message: ThreadMessage,
    through: number,
    carrying: (blocks: KnownBlock[]) => Promise<void>,
  ): Promise<string> {
    // From here the question comes next in the thread: chatter after it (an edit turn already queued, or
    // one run while this waits on the store) never goes into a post above it.
    this.endTail(place.sessionId);
    const existing = await this.#begin(place, key);
    if (existing) return existing;
    const fits = (items: BatchItem[]) => carryable(items, message);
    const items = this.#outbound.pacing === 'on' ? await this.#batches.take(place, through, fits) : undefined;
    if (!items) await this.drained(place, 'urgent', through);
    let fresh: BatchItem[] = [];
    try {
      fresh = await this.#unposted(place, items ?? []);
      if (fresh.length > 0) await carrying(fresh.flatMap((item) => item.message.blocks ?? []));
    } catch (error) {
      // Not carried after all: the chatter keeps its place, ahead of what the session said since (a key
      // posted meanwhile is told so when its batch comes).
      this.#batches.putBack(place, items ?? []);
      throw error;
    }
    try {
      // Its text too (what notifications, search and screen readers read): the chatter's, then the question's.
      const post = { ...message, ...batchMessage([...fresh.map((item) => item.message), message]) };
      const keys = [...fresh.map((item) => item.key), key];
      const ts = await this.#besideTail(place.sessionId, () =>
        this.#deliver(place, keys, post, 'urgent', { leased: true }),
      );
      for (const item of fresh) item.resolve(ts);
      return ts;
    } catch (error) {
      for (const item of fresh) item.reject(error);
      throw error;
    }
  }

  /** Of the chatter taken from a batch, what is not posted yet (each one posted meanwhile told its ts). */
  async #unposted(place: Place, items: BatchItem[]): Promise<BatchItem[]> {
    const fresh: BatchItem[] = [];
    for (const item of items) {
      const posted = item.begun
        ? await this.#posts.ts(place.sessionId, item.key)
        : await this.#begin(place, item.key);
      if (posted) item.resolve(posted);
      else {
        item.begun = true; // recorded: put back and taken again, it is looked up, not begun twice
        fresh.push(item);
      }
    }
    return fresh;
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
    options: { leased?: boolean } = {},
  ): Promise<string[]> {
    const laid = layoutFor(place, key, text);
    if (laid.kind === 'text') {
      const [only] = laid.parts;
      if (laid.parts.length === 1 && only && priority === 'chatter' && this.#outbound.pacing === 'on') {
        return [await this.#batched(place, key, only)];
      }
      const out: string[] = [];
      for (const [i, part] of laid.parts.entries()) {
        const partKey = laid.parts.length === 1 ? key : `${key}~${i}`;
        out.push(await this.post(place, partKey, part, priority, options));
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
    const paced = this.#outbound.pacing === 'on';
    if (paced) await this.recover(place);
    const laid = layoutFor(place, key, text);
    const [only] = laid.kind === 'text' ? laid.parts : [];
    if (!paced || laid.kind !== 'text' || laid.parts.length !== 1 || !only) {
      // The session's follower waits for these posts (a long text's parts, a file): as chatter, every
      // finished session's last chatter and report would go first, the session's own end unseen meanwhile.
      // They go as its report would: after its own chatter, ahead of other sessions' chatter.
      if (paced) await this.drained(place, 'outcome');
      await this.postText(place, key, text, paced ? 'outcome' : 'chatter', { leased: true });
      onPosted?.();
      return;
    }
    if (this.#batches.has(place, key)) return;
    const state = await this.#posts.begin(place.sessionId, key, JSON.stringify(only));
    // Posted, or not ours any more (its lease moved while this poll was in flight): the owner posts it.
    if (state.state === 'posted' || !this.#owner.owns(place.sessionId)) return;
    // Pending and not queued here (recover() took this session's unsent keys): the usual rules.
    if (state.state === 'pending' && (await this.#lookup.whenPending(place, key, state.since))) return;
    // Queued while this waited on the store: a recovery's look-up (the stream's fallback starts one) read
    // the key's record and queued it. Pushed again, it would go out twice.
    if (this.#batches.has(place, key)) return;
    const item = { key, message: only, begun: true, resolve: () => onPosted?.(), reject: () => {} };
    this.#batches.push(place, item);
  }

  /** Chatter waiting here to be posted, of every session. */
  waiting(): number {
    return this.#batches.waiting();
  }

  /** The session's lease moved: its waiting chatter is left for the new owner to post. */
  withdraw(sessionId: string): void {
    this.#owner.withdraw(sessionId);
    this.#batches.withdraw(sessionId);
    this.#lookup.forgetRecovered(sessionId);
  }

  /** Settles once none of the session's chatter queued here (up to `through`, a `mark`) waits. */
  drained(place: Place, priority: 'urgent' | 'outcome' = 'outcome', through?: number): Promise<void> {
    return this.#batches.settled(place, priority, through);
  }

  /**
   * After a crash: the session's keys recorded with a body and never posted are found in the thread (one
   * bounded read) or queued again. Once per session per process, before anything else of it is queued;
   * by its owner: nothing once its lease moved (a poll still in flight), as the new owner recovers, and so
   * will this process if the session comes back.
   */
  recover(place: Place): Promise<void> {
    if (!this.#owner.owns(place.sessionId)) return Promise.resolve();
    this.#owner.followed(place.sessionId);
    return this.#requeueUnsent(place, () => this.#owner.owns(place.sessionId));
  }

  /** `recover`, once more: the old owner's poll may have recorded chatter since the first. */
  recoverAgain(place: Place): Promise<void> {
    this.#lookup.forgetRecovered(place.sessionId);
    return this.recover(place);
  }

  /**
   * A finished session's leftovers, under the claim this process took (`PostOwner.claim`): each post
   * renews the claim first, and none is made once another process holds it.
   */
  recoverLeftovers(place: Place): Promise<void> {
    this.#owner.claimed(place.sessionId);
    this.#lookup.forgetRecovered(place.sessionId);
    return this.#requeueUnsent(place, () => true);
  }

  #requeueUnsent(place: Place, mine: () => boolean): Promise<void> {
    // Asked again at the push: the look-up left out the keys queued when it read the records, and one may
    // have been queued since (`enqueueText` past its record, a stream's hand-over) while it read the thread.
    const requeue = (key: string, message: ThreadMessage) =>
      mine() &&
      !this.#batches.has(place, key) &&
      this.#batches.push(place, { key, message, begun: true, resolve: () => {}, reject: () => {} });
    return this.#lookup.recover(place, requeue, (key) => this.#batches.has(place, key));
  }

  /** Whether the key waits here to be posted (queued in the session's batch). */
  waits(place: Place, key: string): boolean {
    return this.#batches.has(place, key);
  }

  /** Whether any of the session's chatter waits here or is being sent. */
  busy(sessionId: string): boolean {
    return this.#batches.busy(sessionId);
  }

  /**
   * Something else is posted in the session's thread (a stream, a question, its report): its chatter from
   * now on goes in posts below it, never by an edit into a post above it.
   */
  endTail(sessionId: string): void {
    this.#batches.endTail(sessionId);
  }

  /** Where the chatter queue stands now: what `postAfterChatter` takes as `through`. */
  mark(): number {
    return this.#batches.mark();
  }

  /**
   * A message recorded with its content elsewhere (the stream's), to go in the thread with the session's
   * chatter; `onPosted` once it is out.
   */
  queueRecorded(place: Place, key: string, message: ThreadMessage, onPosted?: () => void): void {
    this.#batches.push(place, { key, message, begun: true, resolve: () => onPosted?.(), reject: () => {} });
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
      await this.#besideTail(place.sessionId, () => this.#uploadFile(place, file, priority));
    } catch (error) {
      await this.#refused(place, [key], error);
      throw error;
    }
    // The upload's message ts isn't in the response; the file name finds it in the thread.
    const ts = (await this.#lookup.find(place, key, file.filename, true)) ?? 'uploaded';
    await this.#posts.finish(place.sessionId, key, ts);
    return ts;
  }

  /** Where a key was posted: recorded, or found in the thread; undefined when it never was. */
  async locate(place: Place, key: string): Promise<string | undefined> {
    return (await this.#posts.ts(place.sessionId, key)) ?? (await this.#lookup.find(place, key));
  }

  /** Chatter waits in its session's batch; the queue sends the batch when the channel has room. */
  #batched = (place: Place, key: string, message: ThreadMessage) =>
    new Promise<string>((resolve, reject) =>
      this.#batches.push(place, { key, message, begun: false, resolve, reject }),
    );

  async #begin(place: Place, key: string, filename?: string): Promise<string | undefined> {
    const state = await this.#posts.begin(place.sessionId, key);
    if (state.state === 'new') return undefined;
    if (state.state === 'posted') return state.ts;
    return this.#lookup.whenPending(place, key, state.since, filename);
  }

  /**
   * Sends one post for keys already recorded, and records its ts for all of them. Each Slack error has
   * one outcome: a channel we can't post in → CannotPostHereError; content Slack refuses → plain text,
   * then a file; anything else → a few retries, then a visible "couldn't post" note. Never an endless loop.
   * `leased`: the session's chatter, which its lease owner (or a finished session's claim holder) posts:
   * no attempt once that is another process (it recovers the keys, recorded with their content).
   */
  #deliver(
    place: Place,
    keys: string[],
    message: ThreadMessage,
    priority: OutboundPriority,
    options: { leased?: boolean } = {},
  ): Promise<string> {
    return this.#owner.delivering(place.sessionId, () =>
      this.#attempts(place, keys, message, priority, options),
    );
  }

  /**
   * Forgets the claims and moved leases of sessions with nothing queued or being sent here: a later post
   * of theirs comes through a recovery, which says again whose it is. Each recovery pass calls it.
   */
  forgetIdle(): void {
    this.#owner.forgetIdle((sessionId) => this.#batches.busy(sessionId));
  }

  async #attempts(
    place: Place,
    keys: string[],
    message: ThreadMessage,
    priority: OutboundPriority,
    options: { leased?: boolean },
  ): Promise<string> {
    const started = this.#clock.now();
    for (let attempt = 1; ; attempt++) {
      if (options.leased) await this.#owner.throwIfNotMine(place.sessionId);
      try {
        const ts = await this.#postMessage(place, keys, message, priority);
        await this.#finish(place, keys, ts);
        this.#metrics.postOutcomes.inc({ outcome: 'posted' });
        return ts;
      } catch (error) {
        if (error instanceof PostWithdrawnError) throw error;
        await this.#throwIfChannelGone(place, keys, error);
        const code = slackErrorCode(error);
        if (code && CONTENT_ERRORS.has(code)) {
          this.#logger.warn({ sessionId: place.sessionId, code }, 'Slack refused a post: sending it as text');
          return this.#asPlainText(place, keys, message, priority);
        }
        if (!code) {
          // A lost connection: the post may have been made. Look before posting again.
          const found = await this.#lookup.find(place, keys[0] ?? '', undefined, true).catch(() => undefined);
          if (found) {
            await this.#finish(place, keys, found);
            return found;
          }
        }
        const age = this.#clock.now() - started;
        if (attempt >= this.#maxAttempts || age >= this.#maxRetryAgeMs) {
          return this.#giveUp(place, keys, error);
        }
        this.#metrics.postOutcomes.inc({ outcome: 'retried' });
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
    const { text, parts } = plainParts(message);
    // Posted as other than the message: a batch's post takes no chatter by edits (they would lay it out).
    this.endTail(place.sessionId);
    let first: string | undefined;
    try {
      for (const [i, part] of parts.entries()) {
        const ts = await this.#postMessage(place, keys, { text: part }, priority);
        first ??= ts;
        // Recorded at the first part: a crash after it finds the post and does not send it all again.
        if (i === 0) await this.#finish(place, keys, ts);
      }
      this.#metrics.postOutcomes.inc({ outcome: 'as_text' });
      return first ?? '';
    } catch (error) {
      await this.#throwIfChannelGone(place, keys, error);
      const code = slackErrorCode(error);
      if (first !== undefined && !(code && CONTENT_ERRORS.has(code))) throw error;
      this.#logger.warn({ sessionId: place.sessionId, code }, 'Slack refused the text too: sending a file');
      const name = `${fileStem(place, keys.join('|'))}.txt`;
      await this.#uploadFile(
        place,
        { filename: name, content: text, comment: '📎 Slack refused this as a message: it is in the file.' },
        priority,
      );
      const ts = first ?? (await this.#lookup.find(place, keys[0] ?? '', name, true)) ?? 'uploaded';
      await this.#finish(place, keys, ts);
      this.#metrics.postOutcomes.inc({ outcome: 'as_file' });
      return ts;
    }
  }

  /** Tried enough: the keys count as done (no endless re-delivery) and the thread or the log says so. */
  async #giveUp(place: Place, keys: string[], error: unknown): Promise<string> {
    this.#metrics.postOutcomes.inc({ outcome: 'gave_up' });
    this.#logger.error(
      { err: error, sessionId: place.sessionId, keys },
      'could not post in a thread: gave up',
    );
    await this.#finish(place, keys, 'gave-up');
    this.endTail(place.sessionId);
    const reason = slackErrorCode(error) ?? (error instanceof Error ? error.message : String(error));
    await queuedChat(this.#slack, this.#outbound)
      .chat.postMessage({
        channel: place.channelId,
        ...(place.cardTs ? { thread_ts: place.cardTs } : {}),
        text: `⚠️ The bot couldn't post one of the agent's messages here (${escapeMrkdwn(reason)}). \`/agent status ${place.sessionId}\` shows the session.`,
      })
      .catch((e: unknown) => this.#logger.warn({ err: e }, 'could not post a "couldn\'t post" note either'));
    return 'gave-up';
  }

  /**
   * The chatter `added` shown in the session's post `ts` by an edit (now `message`, all of `keys`), made at
   * once: the batch's turn took the edit's token. Its metadata lists every key, so a look-up after a crash
   * finds each. No edit once the session is another process's (as no post, see #attempts).
   */
  #append(place: Place, ts: string, keys: string[], added: string[], message: ThreadMessage): Promise<void> {
    return this.#owner.delivering(place.sessionId, async () => {
      await this.#owner.throwIfNotMine(place.sessionId);
      const edit = () =>
        countedCall(this.#metrics, 'chat.update', () =>
          this.#slack.chat.update({
            channel: place.channelId,
            ts,
            text: message.text,
            blocks: message.blocks ?? [],
            metadata: postMetadata(place, keys),
          }),
        );
      try {
        // The same edit made twice shows the same post: a lost connection is answered by sending it again
        // (once), where a post would have to be looked for first, and a failed look-up would post it twice.
        await edit().catch((error: unknown) => (slackErrorCode(error) ? Promise.reject(error) : edit()));
      } catch (error) {
        await this.#throwIfChannelGone(place, added, error);
        if (slackErrorCode(error)) throw error;
        // Lost twice: the edit may have been made. Look before its messages go again, as a post.
        const found = await this.#lookup.find(place, added[0] ?? '', undefined, true).catch(() => undefined);
        if (found !== ts) throw error;
      }
      await this.#finish(place, added, ts);
      this.#metrics.postOutcomes.inc({ outcome: 'appended' });
    });
  }

  /**
   * Each key recorded as posted at `ts`, all at once: a batch carries dozens, and its session's report (and
   * next batch) waits until they are; one write after another cost a round trip to the store each.
   */
  async #finish(place: Place, keys: string[], ts: string): Promise<void> {
    await Promise.all(keys.map((key) => this.#posts.finish(place.sessionId, key, ts)));
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
    if (CHANNEL_GONE_ERRORS.has(code)) this.#metrics.postOutcomes.inc({ outcome: 'cant_post_here' });
    for (const key of keys) await this.#posts.abandon(place.sessionId, key).catch(() => {});
  }

  async #postMessage(
    place: Place,
    keys: string[],
    message: ThreadMessage,
    priority: OutboundPriority,
  ): Promise<string> {
    const post = {
      channel: place.channelId,
      ...(place.cardTs ? { thread_ts: place.cardTs } : {}),
      text: message.text,
      ...(message.blocks && message.blocks.length > 0 ? { blocks: message.blocks } : {}),
      unfurl_links: false,
      unfurl_media: false,
      metadata: postMetadata(place, keys),
    };
    const where = { channel: place.channelId, tag: place.sessionId };
    const result = await this.#call('chat.postMessage', priority, where, () =>
      this.#slack.chat.postMessage(post),
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
    const upload = place.cardTs ? { ...common, thread_ts: place.cardTs } : common;
    const where = { channel: place.channelId, tag: place.sessionId };
    await this.#call('files.uploadV2', priority, where, () => this.#slack.files.uploadV2(upload));
  }

  #call<T>(
    method: SlackMethod,
    priority: OutboundPriority,
    where: { channel: string; tag?: string },
    call: () => Promise<T>,
  ): Promise<T> {
    return this.#outbound.run({
      ...where,
      priority,
      method,
      run: () => countedCall(this.#metrics, method, call),
    });
  }
}
