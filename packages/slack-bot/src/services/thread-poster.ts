import { createHash } from 'node:crypto';
import { layoutText, type MessageText } from '../blocks/agent-message.js';
import type { Logger } from '../logger.js';
import type { SessionRecord, Store } from '../store/store.js';
import type { BotMetrics } from './metrics.js';
import { type SlackClient, slackErrorCode } from './slack.js';

/** Marks our thread messages so a post whose ts was never recorded (a crash) can be found again. */
export const POST_EVENT_TYPE = 'agent_session_post';

/** Thrown to make the follower re-deliver later: another process may still be posting this key. */
export class PostInProgressError extends Error {
  override name = 'PostInProgressError';
}

export interface ThreadPosterOptions {
  /**
   * A key marked as being posted but with no ts may belong to a replica still posting it. Younger than
   * this, we wait (the follower re-delivers); older, its poster is gone and we post once more.
   */
  pendingGraceMs?: number;
}

type Place = Pick<SessionRecord, 'sessionId' | 'channelId' | 'cardTs'>;

/**
 * Posts into a session's thread exactly once per key, across restarts, retries and replicas: the key is
 * recorded before posting and its ts after; a key left without a ts is looked up in the thread (by the
 * message metadata we attach) before posting again.
 */
export class ThreadPoster {
  readonly #pendingGraceMs: number;

  constructor(
    private readonly slack: SlackClient,
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly metrics: BotMetrics,
    options: ThreadPosterOptions = {},
  ) {
    this.#pendingGraceMs = options.pendingGraceMs ?? 15_000;
  }

  /** Posts a message in the thread unless this key was posted; returns its ts either way. */
  async post(place: Place, key: string, message: { text: string; blocks?: unknown[] }): Promise<string> {
    const existing = await this.#begin(place, key);
    if (existing) return existing;
    const result = await this.#settle(place, key, () =>
      this.slack.chat.postMessage({
        channel: place.channelId,
        ...(place.cardTs ? { thread_ts: place.cardTs } : {}),
        text: message.text,
        ...(message.blocks ? { blocks: message.blocks as never } : {}),
        unfurl_links: false,
        unfurl_media: false,
        metadata: { event_type: POST_EVENT_TYPE, event_payload: { session_id: place.sessionId, key } },
      }),
    );
    const ts = String(result.ts);
    await this.store.finishPost(place.sessionId, key, ts);
    return ts;
  }

  /** Posts text as one message, several (labelled parts), or a file — whatever keeps all of it. */
  async postText(place: Place, key: string, text: MessageText): Promise<string[]> {
    const stem = `agent-${place.sessionId}-${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
    const laid = layoutText(text, stem);
    if (laid.kind === 'text') {
      const out: string[] = [];
      for (const [i, part] of laid.parts.entries()) {
        out.push(await this.post(place, laid.parts.length === 1 ? key : `${key}~${i}`, part));
      }
      return out;
    }
    return [await this.upload(place, key, laid)];
  }

  /** Uploads a file into the thread once per key. */
  async upload(
    place: Place,
    key: string,
    file: { filename: string; content: string; comment: string },
  ): Promise<string> {
    const existing = await this.#begin(place, key, file.filename);
    if (existing) return existing;
    const common = {
      channel_id: place.channelId,
      filename: file.filename,
      title: file.filename,
      content: file.content,
      initial_comment: file.comment,
    };
    await this.#settle(place, key, () =>
      this.slack.files.uploadV2(place.cardTs ? { ...common, thread_ts: place.cardTs } : common),
    );
    // The upload's message ts isn't in the response; the file name finds it in the thread.
    const ts = (await this.#findInThread(place, key, file.filename)) ?? 'uploaded';
    await this.store.finishPost(place.sessionId, key, ts);
    return ts;
  }

  /** Where a key was posted: recorded, or found in the thread; undefined when it never was. */
  async locate(place: Place, key: string): Promise<string | undefined> {
    return (await this.store.postedTs(place.sessionId, key)) ?? (await this.#findInThread(place, key));
  }

  async #begin(place: Place, key: string, filename?: string): Promise<string | undefined> {
    const state = await this.store.beginPost(place.sessionId, key);
    if (state.state === 'new') return undefined;
    if (state.state === 'posted') return state.ts;
    const found = await this.#findInThread(place, key, filename);
    if (found) {
      this.logger.info({ sessionId: place.sessionId, key }, 'found an unrecorded post in the thread');
      await this.store.finishPost(place.sessionId, key, found);
      return found;
    }
    const age = Date.now() - Date.parse(state.since);
    if (Number.isFinite(age) && age < this.#pendingGraceMs) {
      throw new PostInProgressError(`"${key}" is being posted (for ${age} ms); will look again`);
    }
    this.logger.warn({ sessionId: place.sessionId, key }, 'a post was started and never made: posting it');
    return undefined;
  }

  async #findInThread(place: Place, key: string, filename?: string): Promise<string | undefined> {
    if (!place.cardTs) return undefined;
    let cursor: string | undefined;
    do {
      const page = await this.#call('conversations.replies', () =>
        this.slack.conversations.replies({
          channel: place.channelId,
          ts: place.cardTs as string,
          include_all_metadata: true,
          limit: 200,
          ...(cursor ? { cursor } : {}),
        }),
      );
      for (const m of page.messages ?? []) {
        const meta = m.metadata as { event_type?: string; event_payload?: { key?: unknown } } | undefined;
        if (meta?.event_type === POST_EVENT_TYPE && meta.event_payload?.key === key) return m.ts;
        if (filename && m.files?.some((f) => f.name === filename || f.title === filename)) return m.ts;
      }
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return undefined;
  }

  /** Runs a post; when Slack refused it (an API error, not a lost connection) the key is freed again. */
  async #settle<T>(place: Place, key: string, call: () => Promise<T>): Promise<T> {
    try {
      return await this.#call('post', call);
    } catch (error) {
      if (slackErrorCode(error)) await this.store.abandonPost(place.sessionId, key).catch(() => {});
      throw error;
    }
  }

  async #call<T>(method: string, call: () => Promise<T>): Promise<T> {
    try {
      const result = await call();
      this.metrics.slackCalls.inc({ method, outcome: 'ok' });
      return result;
    } catch (error) {
      this.metrics.slackCalls.inc({ method, outcome: 'error' });
      throw error;
    }
  }
}
