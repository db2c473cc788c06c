/**
 * A session's stream after a crash: the start or append whose answer was lost is looked for in the
 * thread, by what it carried, and its keys recorded with the stream's ts when it got in (else it is sent
 * again); keys recorded with their content and never sent are handed back to be queued, in order.
 */
import {
  chunksFor,
  pieceChars,
  type StreamPiece,
  shownText,
  showsPieces,
  type TaskStates,
} from '../../../blocks/stream-chunks.js';
import type { Logger } from '../../../logger.js';
import type { PostRepository } from '../../../store/posts.js';
import type { StreamRecord, StreamRepository } from '../../../store/streams.js';
import { type BotIdentity, isOwnMessage, type SlackClient, type SlackMethod } from '../outbound/index.js';
import { type Place, POST_EVENT_TYPE } from '../thread/index.js';

/** One piece waiting for the session's stream, with its key and the round it came from. */
export interface StreamItem {
  key: string;
  roundId: string;
  piece: StreamPiece;
  /** Told once it is in the stream (the surfacing metric); not kept across a crash. */
  onShown?: () => void;
}

/** A Slack call through the outbound queue, counted. */
export type StreamCall = <T>(method: SlackMethod, channel: string, run: () => Promise<T>) => Promise<T>;

export interface StreamRecoveryDeps {
  slack: SlackClient;
  posts: PostRepository;
  streams: StreamRepository;
  self: () => Promise<BotIdentity>;
  logger: Logger;
}

/** Pages of the thread read to find a lost start or append. */
const MAX_PAGES = 3;

export async function recoverStream(
  deps: StreamRecoveryDeps,
  place: Place,
  queuedHere: (key: string) => boolean,
  call: StreamCall,
): Promise<StreamItem[]> {
  const { sessionId } = place;
  const current = await deps.streams.latest(sessionId);
  const settled = new Set<string>();
  if (current?.inFlight) {
    const { keys } = current.inFlight;
    const pieces = current.inFlight.pieces as StreamPiece[];
    const ts = await findInThread(deps, place, current, pieces, call);
    if (ts) {
      const { tasks } = chunksFor(pieces, current.tasks as TaskStates);
      const chars = pieces.reduce((n, p) => n + pieceChars(p), current.chars);
      await deps.streams.commit(sessionId, current.seq, { ts, keys, chars, tasks });
      for (const k of keys) settled.add(k);
      deps.logger.info({ sessionId, keys: keys.length }, 'found a lost stream call in the thread: recorded');
    } else if (current.ts) await deps.streams.clearInFlight(sessionId, current.seq);
    else await deps.streams.forget(sessionId, current.seq);
  }
  const items: StreamItem[] = [];
  for (const row of await deps.posts.unsent(sessionId)) {
    if (settled.has(row.key) || queuedHere(row.key)) continue;
    items.push(itemOf(row.key, row.body));
  }
  if (items.length > 0)
    deps.logger.info({ sessionId, requeued: items.length }, 'stream items left unsent by a crash: queued');
  return items;
}

/** A recorded body back as a stream item; a classic chatter body (recorded before a switch) as markdown. */
function itemOf(key: string, body: string): StreamItem {
  try {
    const parsed = JSON.parse(body) as {
      text?: unknown;
      blocks?: unknown;
      stream?: { roundId?: unknown; piece?: unknown };
    };
    if (parsed.stream && typeof parsed.stream.piece === 'object' && parsed.stream.piece !== null) {
      const roundId = typeof parsed.stream.roundId === 'string' ? parsed.stream.roundId : '';
      return { key, roundId, piece: parsed.stream.piece as StreamPiece };
    }
    const first = Array.isArray(parsed.blocks)
      ? (parsed.blocks[0] as { type?: unknown; text?: unknown })
      : undefined;
    const text =
      first?.type === 'markdown' && typeof first.text === 'string' ? first.text : String(parsed.text ?? '');
    return { key, roundId: '', piece: { markdown: `${text}\n\n` } };
  } catch {
    return { key, roundId: '', piece: { markdown: `${body}\n\n` } };
  }
}

/**
 * Where what a lost call carried shows: the stream itself when its ts is known, else (a start whose answer
 * was lost) the bot's newest message in the thread without a post's metadata that shows it.
 */
async function findInThread(
  deps: StreamRecoveryDeps,
  place: Place,
  stream: StreamRecord,
  pieces: StreamPiece[],
  call: StreamCall,
): Promise<string | undefined> {
  if (!place.cardTs) return undefined;
  const self = await deps.self();
  let cursor: string | undefined;
  let found: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = { channel: place.channelId, ts: place.cardTs, include_all_metadata: true, limit: 200 };
    const read = await call('conversations.replies', place.channelId, () =>
      deps.slack.conversations.replies({ ...query, ...(cursor ? { cursor } : {}) }),
    );
    for (const m of read.messages ?? []) {
      if (!m.ts || !isOwnMessage(m, self)) continue;
      if (stream.ts) {
        if (m.ts === stream.ts) return showsPieces(shownText(m), pieces) ? m.ts : undefined;
        continue;
      }
      if (m.metadata?.event_type === POST_EVENT_TYPE) continue;
      if (showsPieces(shownText(m), pieces)) found = m.ts;
    }
    cursor = read.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return found;
}
