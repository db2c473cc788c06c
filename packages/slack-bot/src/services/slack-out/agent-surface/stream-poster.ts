/**
 * The agent's work streamed into the session's thread: one streaming message per round, the agent's
 * messages appended to it as they come, each exactly once. A batch's way from its keys' record to Slack's
 * answer (start, append, continuation, stop) and the one outcome of each Slack error are told here; the
 * crash look-up is stream-recovery.ts, the chunks blocks/stream-chunks.ts.
 */
import type { AnyChunk } from '@slack/types';
import { agentMessageText, type MessageText, RENDER_MAX } from '../../../blocks/agent-message.js';
import {
  AFTER_REFUSED_STOP_LABEL,
  CONTINUATION_LABEL,
  chunksFor,
  continuationChunk,
  pieceAsMessage,
  pieceChars,
  STREAM_MAX_CHARS,
  streamPiecesOf,
  type TaskStates,
} from '../../../blocks/stream-chunks.js';
import type { StreamStart } from '../../../blocks/stream-plan.js';
import type { Logger } from '../../../logger.js';
import type { PostRepository } from '../../../store/posts.js';
import type { StreamRecord, StreamRepository } from '../../../store/streams.js';
import type { BotMetrics } from '../../ops/metrics.js';
import {
  type BotIdentity,
  countedCall,
  type OutboundPriority,
  type OutboundQueue,
  rateLimitedRetryAfterMs,
  type SlackClient,
  type SlackMethod,
  slackErrorCode,
} from '../outbound/index.js';
import {
  CannotPostHereError,
  CHANNEL_GONE_ERRORS,
  type PostOwner,
  postMetadata,
  type ThreadPoster,
} from '../thread/index.js';
import {
  NOT_STREAMING,
  PerSession,
  STREAM_CONTENT_ERRORS,
  type StreamEnd,
  type StreamPlace,
  takeItems,
} from './stream-place.js';
import { recoverStream, type StreamItem } from './stream-recovery.js';
import { isFeatureMissing, isTransient, type SurfaceChoice } from './surface.js';

/**
 * How a session's chatter goes here: `open`, into its stream (one is open, or none is known not to be);
 * `not streamed`, no stream open (its next batch starts one or posts classic, spending no append turn);
 * `classic`, Slack refused its stream: into the thread, from now on.
 */
type StreamMode = 'open' | 'not streamed' | 'classic';

/** All this process keeps of one session's stream. */
interface SessionStream {
  place: StreamPlace;
  /** Waiting to be streamed, in order. */
  items: StreamItem[];
  /** Keys waiting here: the items, and those of a batch being sent. */
  queued: Set<string>;
  scheduled: boolean;
  priority: OutboundPriority;
  settled: Array<() => void>;
  mode: StreamMode;
  /** Its recovery, once per process. */
  recovered: Promise<void> | undefined;
  /** Slack stopped its stream on a Stop click: its next stream says why it is a new one. */
  stoppedByClick: boolean;
  /** Its calls failed without an answer in a row. */
  failures: number;
}

export interface StreamPosterDeps {
  slack: SlackClient;
  posts: PostRepository;
  streams: StreamRepository;
  /** The classic thread: where content goes when a session's stream can't take it. */
  poster: ThreadPoster;
  /** Paces the stream's calls: the queue the thread poster's calls wait in. */
  outbound: OutboundQueue;
  /** Who sends the session's posts here, shared with the thread poster and the publisher. */
  owner: PostOwner;
  surface: SurfaceChoice;
  self: () => Promise<BotIdentity>;
  logger: Logger;
  metrics: BotMetrics;
  showReasoning: boolean;
  /** AGENT_TASK_DISPLAY=plan: each stream a plan titled with the session's goal (default timeline). */
  plan?: (sessionId: string, continuation: boolean) => Promise<StreamStart>;
}

/** Slack's stream starts are spent for now (Tier 2): the batch goes the classic way instead of waiting. */
class StartsSpentError extends Error {
  constructor() {
    super("no chat.startStream left in Slack's limit for now");
    this.name = 'StartsSpentError';
  }
}

/** Stream calls unanswered in a row (lost connections) before the session's chatter goes to its thread. */
const MAX_UNANSWERED = 3;

export class StreamPoster {
  readonly #sessions = new Map<string, SessionStream>();
  /** Each session's stream work, one at a time (a batch, a stop). */
  readonly #serial = new PerSession();

  constructor(private readonly deps: StreamPosterDeps) {}

  /** The session's record here, made on first use. */
  #of(place: StreamPlace): SessionStream {
    let stream = this.#sessions.get(place.sessionId);
    if (!stream) {
      stream = {
        place,
        items: [],
        queued: new Set(),
        scheduled: false,
        priority: 'chatter',
        settled: [],
        mode: 'open',
        recovered: undefined,
        stoppedByClick: false,
        failures: 0,
      };
      this.#sessions.set(place.sessionId, stream);
    }
    return stream;
  }

  /** Whether a stream is open (or may be); a session gone classic stays so. */
  #streamed(stream: SessionStream, open: boolean): void {
    if (stream.mode !== 'classic') stream.mode = open ? 'open' : 'not streamed';
  }

  /** Whether a session's chatter streams: the agent surface, a thread, and no refusal before. */
  streams(place: StreamPlace): boolean {
    const classic = this.#sessions.get(place.sessionId)?.mode === 'classic';
    return this.deps.surface.current() === 'agent' && !!place.cardTs && !classic;
  }

  /**
   * The agent's message into its session's stream: each piece recorded with its content before this
   * returns (so the follower may move on), then appended when the queue gives the session its turn —
   * with everything of the session waiting by then, as one append.
   */
  async enqueue(
    place: StreamPlace,
    key: string,
    roundId: string,
    message: Record<string, unknown>,
    onShown?: () => void,
  ): Promise<void> {
    await this.recover(place);
    const long = this.#tooLongToStream(message);
    if (long) return this.#asFile(place, key, long, onShown);
    const pieces = streamPiecesOf(message, { showReasoning: this.deps.showReasoning, fallbackId: key });
    for (const [i, piece] of pieces.entries()) {
      const k = pieces.length === 1 ? key : `${key}~${i}`;
      if (this.#waitsHere(place, k)) continue;
      const body = JSON.stringify({ ...pieceAsMessage(piece), stream: { roundId, piece } });
      const state = await this.deps.posts.begin(place.sessionId, k, body);
      if (state.state === 'posted') continue;
      // Not ours any more (its lease moved while this poll was in flight): the owner posts it.
      if (!this.deps.owner.owns(place.sessionId)) return;
      const item = { key: k, roundId, piece, ...(onShown ? { onShown } : {}) };
      if (this.#of(place).mode === 'classic') await this.#afterFallback(place, item);
      else this.push(place, [item]);
    }
  }

  /**
   * A piece recorded while Slack refused the session's stream: the fallback handed what waited here to the
   * thread poster's look-up, which read the records before this one. Queued here, it would go to the thread
   * by a look-up of its own, after the messages the session says next, racing their record and push; it
   * goes to the thread now instead, behind what the fallback's look-up queues, before this returns.
   */
  async #afterFallback(place: StreamPlace, item: StreamItem): Promise<void> {
    await this.deps.poster.recover(place);
    this.#handOver(this.#of(place), [item]);
  }

  /** The message's text when it is past what the classic thread shows as a message (it uploads a file). */
  #tooLongToStream(message: Record<string, unknown>): MessageText | undefined {
    const text = agentMessageText(message, { showReasoning: this.deps.showReasoning });
    return text && text.plain.length > RENDER_MAX ? text : undefined;
  }

  /**
   * A message past RENDER_MAX would take five or more of Slack's 12,000-character streams, each a stop and a
   * start (Tier 2: about 20 a minute for the whole workspace, so a few sessions' long messages hold every
   * stream behind them); the classic thread uploads it as a file (Tier 4). It goes as that file here too,
   * once what the stream holds is out: the stream is stopped first (a message above the file takes no more
   * appends) and the session's next chatter starts one below it. The session's follower waits for it, as
   * the classic surface's does; its key is the upload's (found by the file's name after a crash).
   */
  async #asFile(place: StreamPlace, key: string, text: MessageText, onShown?: () => void): Promise<void> {
    await this.drained(place, 'outcome');
    await this.#serial.run(place.sessionId, async () => {
      const current = await this.deps.streams.latest(place.sessionId);
      if (current && current.state !== 'stopped' && current.ts)
        await this.#stop(place, current, 'processing');
    });
    this.deps.owner.throwIfMoved(place.sessionId);
    await this.deps.poster.postText(place, key, text, 'outcome', { leased: true });
    onShown?.();
  }

  /**
   * After a crash: an append (or start) whose answer was lost is looked for in the stream, and its keys
   * recorded or sent again; keys recorded and never sent are queued again. Once per session per process,
   * by its owner: nothing once the lease moved (a poll still in flight), as the new owner recovers.
   */
  recover(place: StreamPlace): Promise<void> {
    if (!this.deps.owner.owns(place.sessionId)) return Promise.resolve();
    return this.#recoverOnce(place, (items) => this.push(place, items));
  }

  /** `recover`, once more: the old owner's poll may have recorded chatter since the first. */
  recoverAgain(place: StreamPlace): Promise<void> {
    this.#of(place).recovered = undefined;
    return this.recover(place);
  }

  /**
   * A finished session's leftovers, under the claim this process took: its stream is over, so what was
   * left goes to the thread, each post under the claim (the thread poster renews it first).
   */
  recoverLeftovers(place: StreamPlace): Promise<void> {
    this.deps.owner.claimed(place.sessionId);
    this.#of(place).recovered = undefined;
    return this.#recoverOnce(place, (items) => this.#leftovers(place, items));
  }

  #recoverOnce(place: StreamPlace, found: (items: StreamItem[]) => void): Promise<void> {
    const stream = this.#of(place);
    let done = stream.recovered;
    if (!done) {
      done = this.#serial
        .run(place.sessionId, async () => {
          const items = await recoverStream(
            this.deps,
            place,
            (key) => this.#waitsHere(place, key),
            this.#call,
          );
          // No stream open: the session's first batch starts one or posts classic, spending no append turn.
          const latest = await this.deps.streams.latest(place.sessionId);
          if (!latest || latest.state === 'stopped' || !latest.ts) this.#streamed(stream, false);
          return items;
        })
        .then(found, (error: unknown) => {
          stream.recovered = undefined;
          throw error;
        });
      stream.recovered = done;
    }
    return done;
  }

  /** A finished session's items left unsent: into its thread, after its report, as classic posts. */
  #leftovers(place: StreamPlace, items: StreamItem[]): void {
    if (items.length === 0) return;
    this.#handOver(this.#of(place), items);
  }

  /** Settles once nothing of the session waits here; its chatter goes at `priority` meanwhile. */
  drained(place: StreamPlace, priority: 'urgent' | 'outcome' = 'outcome'): Promise<void> {
    const queue = this.#sessions.get(place.sessionId);
    if (!queue || (queue.items.length === 0 && !queue.scheduled)) return Promise.resolve();
    if (queue.priority !== 'urgent') queue.priority = priority;
    this.deps.outbound.promote(place.channelId, place.sessionId, queue.priority);
    return new Promise((resolve) => queue.settled.push(resolve));
  }

  /**
   * The session's stream ends: a question comes as its own message (`suspended`), or the session is over
   * (`closed`). What waits is appended first, and once that is out this returns, so the question or the
   * report may go at once; the stop (every key the stream holds as metadata) waits for Slack's Tier 2
   * limit on its own, ahead of the session's next batch, and `stopped` settles when it is done.
   */
  async end(place: StreamPlace, end: StreamEnd): Promise<{ stopped: Promise<void> }> {
    await (end === 'closed' ? this.recoverAgain(place) : this.recover(place));
    await this.drained(place, end === 'closed' ? 'outcome' : 'urgent');
    const stopped = this.#serial
      .run(place.sessionId, async () => {
        const current = await this.deps.streams.latest(place.sessionId);
        if (current && current.state !== 'stopped' && current.ts) await this.#stop(place, current, end);
        if (end === 'closed') this.#streamed(this.#of(place), true);
      })
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error, sessionId: place.sessionId }, 'could not stop a stream'),
      );
    return { stopped };
  }

  /** `end`, and its stop done. */
  async close(place: StreamPlace, end: StreamEnd): Promise<void> {
    const { stopped } = await this.end(place, end);
    await stopped;
  }

  /** Queued here, or handed to the thread poster and not yet posted: not "left unsent". */
  #waitsHere(place: StreamPlace, key: string): boolean {
    return !!this.#sessions.get(place.sessionId)?.queued.has(key) || this.deps.poster.waits(place, key);
  }

  /** Items waiting here to be streamed. */
  waiting(): number {
    let waiting = 0;
    for (const stream of this.#sessions.values()) waiting += stream.queued.size;
    return waiting;
  }

  /** The session's lease moved: what waits here is left, recorded with its content, to the new owner. */
  withdraw(sessionId: string): void {
    const stream = this.#sessions.get(sessionId);
    if (!stream) return;
    for (const item of stream.items.splice(0)) stream.queued.delete(item.key);
    stream.recovered = undefined;
    this.#streamed(stream, true);
  }

  push(place: StreamPlace, items: StreamItem[]): void {
    if (items.length === 0) return;
    const queue = this.#of(place);
    queue.place = place;
    for (const item of items) {
      queue.items.push(item);
      queue.queued.add(item.key);
    }
    this.#schedule(queue);
  }

  #schedule(queue: SessionStream): void {
    if (queue.scheduled || queue.items.length === 0) return;
    queue.scheduled = true;
    const { place } = queue;
    const flush = () => this.#serial.run(place.sessionId, () => this.#flush(queue));
    // The append's limit decides when; the batch is taken when the turn comes, so all that waits joins it.
    // A session with no stream open appends nothing: it starts one or posts classic, neither of which
    // should spend (or wait for) an append.
    const turn =
      queue.mode === 'not streamed'
        ? flush()
        : this.deps.outbound.run({
            channel: place.channelId,
            priority: queue.priority,
            method: 'chat.appendStream',
            tag: place.sessionId,
            run: flush,
          });
    turn
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error, sessionId: place.sessionId }, 'a stream append failed'),
      )
      .finally(() => {
        queue.scheduled = false;
        if (queue.items.length > 0) this.#schedule(queue);
        else for (const resolve of queue.settled.splice(0)) resolve();
      });
  }

  /**
   * One turn: what waits goes into the session's stream, one stream across its rounds (continued past
   * Slack's limit). A session whose classic chatter is still going out, or that finds no stream start
   * left in Slack's limit, posts this batch the classic way: in order, none lost, none twice.
   */
  async #flush(queue: SessionStream): Promise<void> {
    const { place } = queue;
    // Its lease moved while this waited: what waits stays recorded for the new owner, who streams it.
    if (!this.deps.owner.owns(place.sessionId)) return this.withdraw(place.sessionId);
    if (!this.streams(place)) return this.#toClassic(queue);
    // Its earlier chatter waits in the thread poster: what comes after it goes there too, behind it.
    if (this.deps.poster.busy(place.sessionId)) return this.#handOver(queue, queue.items.splice(0));
    const current = await this.deps.streams.latest(place.sessionId);
    const open = current && current.state !== 'stopped' && current.ts ? current : undefined;
    const taken = takeItems(queue.items, open ? open.chars : 0);
    if (taken.length === 0) return;
    const keys = taken.map((i) => i.key);
    const pieces = taken.map((i) => i.piece);
    const chars = pieces.reduce((n, p) => n + pieceChars(p), 0);
    try {
      if (open && open.chars + chars <= STREAM_MAX_CHARS) {
        const { chunks, tasks } = chunksFor(pieces, open.tasks as TaskStates);
        await this.deps.streams.intend(place.sessionId, open.seq, { keys, pieces });
        await countedCall(this.deps.metrics, 'chat.appendStream', () =>
          this.deps.slack.chat.appendStream({ channel: place.channelId, ts: open.ts as string, chunks }),
        );
        await this.deps.streams.commit(place.sessionId, open.seq, {
          ts: open.ts as string,
          keys,
          chars: open.chars + chars,
          tasks,
        });
      } else {
        // The first stream, the first after a question, or past Slack's limit: one start, if Slack has room.
        if (!this.deps.outbound.takeNow(place.channelId, 'chat.startStream')) {
          if (!open) this.#streamed(queue, false);
          return this.#handOver(queue, taken);
        }
        const round = taken[0]?.roundId ?? '';
        // Past the limit, or the same round after Slack stopped the stream (its Stop button, a timeout).
        const continuation = !!open || current?.roundId === round;
        if (open) await this.#stop(place, open, 'processing');
        await this.#start(place, (current?.seq ?? 0) + 1, round, taken, continuation);
      }
      this.deps.metrics.batchSize.observe(taken.length);
      this.deps.metrics.postOutcomes.inc({ outcome: 'posted' }, taken.length);
      for (const k of keys) queue.queued.delete(k);
      for (const item of taken) item.onShown?.();
      queue.failures = 0;
    } catch (error) {
      if (error instanceof StartsSpentError) return this.#handOver(queue, taken);
      // Not taken: back at the front, in order (a new try, another stream, or the classic thread).
      queue.items.unshift(...taken);
      const latest = await this.deps.streams.latest(place.sessionId);
      if (latest?.inFlight) await this.#settleInFlight(queue, latest, error);
      await this.#failed(queue, error);
    }
  }

  /**
   * Items recorded for the stream posted in the thread instead, as the classic surface shows them, this
   * once: the session's later batches try a stream again (once its classic posts are out).
   */
  #handOver(queue: SessionStream, items: StreamItem[]): void {
    const { place } = queue;
    // Slack stopped the live message on a refused Stop: the first post that goes on says why, as a stream would.
    let label = queue.stoppedByClick ? AFTER_REFUSED_STOP_LABEL : '';
    queue.stoppedByClick = false;
    for (const item of items) {
      queue.queued.delete(item.key);
      if (this.deps.poster.waits(place, item.key)) continue;
      const piece = label ? { ...item.piece, markdown: `${label}${item.piece.markdown ?? ''}` } : item.piece;
      label = '';
      this.deps.poster.queueRecorded(place, item.key, pieceAsMessage(piece), item.onShown);
    }
    if (items.length > 0) this.deps.metrics.postOutcomes.inc({ outcome: 'as_text' }, items.length);
  }

  async #start(
    place: StreamPlace,
    seq: number,
    round: string,
    items: StreamItem[],
    continuation: boolean,
  ): Promise<void> {
    const keys = items.map((i) => i.key);
    const pieces = items.map((i) => i.piece);
    const built = chunksFor(pieces, {});
    const { lead, ...look } = (await this.deps.plan?.(place.sessionId, continuation)) ?? { lead: [] };
    // Slack stopped the one above on a Stop click that was refused: this one says why it is a new message.
    const stream = this.#of(place);
    const afterStop = stream.stoppedByClick;
    stream.stoppedByClick = false;
    const label = afterStop ? AFTER_REFUSED_STOP_LABEL : continuation ? CONTINUATION_LABEL : '';
    const chunks: AnyChunk[] = [...lead, ...(label ? [continuationChunk(label)] : []), ...built.chunks];
    const chars = pieces.reduce((n, p) => n + pieceChars(p), label.length);
    await this.deps.streams.begin(place.sessionId, seq, round, { keys, pieces });
    // A message of its own in the thread: the session's chatter posted from now on goes below it.
    this.deps.poster.endTail(place.sessionId);
    const self = await this.deps.self();
    // Its token is taken already (`takeNow`): the call goes now, outside the queue.
    const started = await this.deps.outbound
      .runNow(place.channelId, 'chat.startStream', () =>
        countedCall(this.deps.metrics, 'chat.startStream', () =>
          this.deps.slack.chat.startStream({
            channel: place.channelId,
            thread_ts: place.cardTs as string,
            recipient_user_id: place.startedBy,
            ...(self.teamId ? { recipient_team_id: self.teamId } : {}),
            ...look,
            chunks,
          }),
        ),
      )
      .catch(async (error: unknown) => {
        if (rateLimitedRetryAfterMs(error) === undefined) throw error;
        // Slack counts starts of other replicas too: none was made, and the batch goes the classic way.
        await this.deps.streams.forget(place.sessionId, seq);
        throw new StartsSpentError();
      })
      // A classic post answered while the start was on its way may be above the stream: no longer the latest.
      .finally(() => this.deps.poster.endTail(place.sessionId));
    if (!started.ts) throw new Error('chat.startStream answered without a ts');
    await this.deps.streams.commit(place.sessionId, seq, { ts: started.ts, keys, chars, tasks: built.tasks });
    this.#streamed(stream, true);
  }

  /** Stops a stream, its keys as metadata (a crash look-up finds them as it finds any post's). */
  async #stop(place: StreamPlace, stream: StreamRecord, end: StreamEnd): Promise<void> {
    const keys = stream.ts ? await this.deps.streams.keysOf(place.sessionId, stream.ts) : [];
    try {
      await this.#call('chat.stopStream', place.channelId, () =>
        this.deps.slack.chat.stopStream({
          channel: place.channelId,
          ts: stream.ts as string,
          metadata: postMetadata(place, keys),
          session_status: end,
        }),
      );
    } catch (error) {
      const code = slackErrorCode(error);
      if (code && isFeatureMissing(code)) this.deps.surface.fallBack('chat.stopStream', code);
      // Stopped already (Slack's Stop button, a timeout) or refused: it takes nothing more either way.
      else if (!code || !NOT_STREAMING.has(code))
        this.deps.logger.warn({ err: error, sessionId: place.sessionId }, 'could not stop a stream');
    }
    await this.deps.streams.stopped(place.sessionId, stream.seq);
    this.#streamed(this.#of(place), false);
  }

  /**
   * A call that failed with something in flight. Slack answered (an error, a 429): it took nothing. No
   * answer (a lost connection): what it carried is looked for in the thread, and what got in is done.
   */
  async #settleInFlight(queue: SessionStream, stream: StreamRecord, error: unknown): Promise<void> {
    const { place } = queue;
    if (slackErrorCode(error) || rateLimitedRetryAfterMs(error) !== undefined) {
      if (stream.ts) await this.deps.streams.clearInFlight(place.sessionId, stream.seq);
      else await this.deps.streams.forget(place.sessionId, stream.seq);
      return;
    }
    // Found: recorded with the stream's ts (and dropped from the queue); not found: no longer in flight.
    await recoverStream(this.deps, place, () => true, this.#call).catch((e: unknown) =>
      this.deps.logger.warn({ err: e, sessionId: place.sessionId }, 'could not look for a lost stream call'),
    );
    for (const item of [...queue.items]) {
      if (!(await this.deps.posts.ts(place.sessionId, item.key))) continue;
      queue.items.splice(queue.items.indexOf(item), 1);
      queue.queued.delete(item.key);
      item.onShown?.();
    }
  }

  /** Each Slack error's one outcome: wait (429), a new stream, the classic thread, or another channel. */
  async #failed(queue: SessionStream, error: unknown): Promise<void> {
    const { place } = queue;
    const code = slackErrorCode(error);
    if (rateLimitedRetryAfterMs(error) !== undefined) throw error; // the queue waits its Retry-After, then again
    const current = await this.deps.streams.latest(place.sessionId);
    if (code && NOT_STREAMING.has(code) && current) {
      await this.deps.streams.stopped(place.sessionId, current.seq);
      // Stopped by a Stop click while the session goes on (the click was refused, or is being handled).
      if (code === 'stopped_by_user') queue.stoppedByClick = true;
      return;
    }
    // No answer (a lost connection) or Slack busy/down (it may have applied part): as many tries again.
    queue.failures++;
    const { failures } = queue;
    if ((!code || isTransient(code)) && failures < MAX_UNANSWERED) return;
    if (code && CHANNEL_GONE_ERRORS.has(code)) {
      for (const item of queue.items.splice(0)) {
        queue.queued.delete(item.key);
        await this.deps.posts.abandon(place.sessionId, item.key).catch(() => {});
      }
      await this.deps.owner.cannotPost(place, new CannotPostHereError(place.channelId, code));
      return;
    }
    if (code && isFeatureMissing(code)) this.deps.surface.fallBack('chat.startStream', code);
    else if (!code || !STREAM_CONTENT_ERRORS.has(code)) {
      this.deps.logger.warn(
        { err: error, sessionId: place.sessionId },
        'a stream call failed: posting in the thread instead',
      );
    }
    queue.mode = 'classic';
    await this.#toClassic(queue);
  }

  /** The session's waiting items (each recorded with its classic form) go to the thread poster, once. */
  async #toClassic(queue: SessionStream): Promise<void> {
    const { place } = queue;
    for (const item of queue.items.splice(0)) queue.queued.delete(item.key);
    this.deps.metrics.postOutcomes.inc({ outcome: 'as_text' });
    await this.deps.poster.recoverAgain(place);
  }

  /** A stream call paced by the outbound queue, counted. */
  readonly #call = <T>(method: SlackMethod, channel: string, run: () => Promise<T>): Promise<T> =>
    this.deps.outbound.run({
      channel,
      priority: 'urgent',
      method,
      run: () => countedCall(this.deps.metrics, method, run),
    });
}
