/** Where a session's stream goes, how it ends, and what Slack's stream errors mean. */
import { LABEL_MAX_CHARS, pieceChars, STREAM_MAX_CHARS } from '../../../blocks/stream-chunks.js';
import type { SessionRecord } from '../../../store/records.js';
import type { StreamItem } from './stream-recovery.js';

/** Where a session's stream goes: its thread (a stream is always a reply), to the person who started it. */
export type StreamPlace = Pick<SessionRecord, 'sessionId' | 'channelId' | 'cardTs' | 'startedBy'>;

/** Slack refused this content in a stream: the session's chatter is posted the classic way from now on. */
export const STREAM_CONTENT_ERRORS = new Set([
  'invalid_chunks',
  'msg_too_long',
  'msg_blocks_too_long',
  'invalid_blocks',
]);
/** The stream is no longer streaming (Slack's Stop button, a timeout): the next batch starts a new one. */
export const NOT_STREAMING = new Set(['message_not_in_streaming_state', 'stopped_by_user']);

/** The status the session shows once a stream stops: work goes on, waits on a person, or is over. */
export type StreamEnd = 'processing' | 'suspended' | 'closed';

/** Work of one session done one piece at a time, in order (a batch, a stop); sessions side by side. */
export class PerSession {
  readonly #chains = new Map<string, Promise<unknown>>();

  run<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#chains.get(sessionId) ?? Promise.resolve();
    const next = before.catch(() => {}).then(fn);
    const settled = next.catch(() => {});
    this.#chains.set(sessionId, settled);
    void settled.then(() => {
      if (this.#chains.get(sessionId) === settled) this.#chains.delete(sessionId);
    });
    return next;
  }
}

/**
 * As many waiting items as one call holds (and the stream has room for), in order: taken out of `items`.
 * Rounds share the session's open stream, so items of several rounds may go in one call.
 */
export function takeItems(items: StreamItem[], used: number): StreamItem[] {
  const taken: StreamItem[] = [];
  let chars = 0;
  const room = STREAM_MAX_CHARS - Math.max(used, LABEL_MAX_CHARS);
  while (items.length > 0) {
    const next = items[0] as StreamItem;
    const c = pieceChars(next.piece);
    if (taken.length > 0 && chars + c > room) break;
    // A full stream takes nothing more: this item begins the next one (it always fits an empty one).
    if (taken.length === 0 && used > 0 && c > room) return [items.shift() as StreamItem];
    taken.push(items.shift() as StreamItem);
    chars += c;
  }
  return taken;
}
