/** Long content shaped to fit Slack: the agent's text laid out, batches within limits, plain-text fallbacks. */
import { createHash } from 'node:crypto';
import { layoutText, type MessageText, type Rendered } from '../../../blocks/agent-message.js';
import { blockWords, splitText } from '../../../blocks/text.js';
import type { Place, ThreadMessage } from './thread-place.js';

/** Block text a batched post may carry: Slack refuses past ~13,200 (`msg_blocks_too_long`). */
const BATCH_BLOCK_CHARS = 11_000;
/** Slack's blocks per message. */
const BATCH_MAX_BLOCKS = 50;
/**
 * A batch's text: Slack shows a message's text whole up to about 4,000 characters. Beside blocks it is only
 * what notifications read, so a batch's is cut to this; without blocks it is what shows, and bounds the batch.
 */
const BATCH_TEXT_CHARS = 3_000;
/** A plain-text fallback part: well inside Slack's 40,000 and shown without truncation. */
const PLAIN_PART_CHARS = 3_500;

/** A file name for a session's keyed content: stable, so a retried upload is found by its name. */
export function fileStem(place: Place, key: string): string {
  return `agent-${place.sessionId}-${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
}

/** The agent's text as one message, several (labelled parts), or a file — whatever keeps all of it. */
export function layoutFor(place: Place, key: string, text: MessageText): Rendered {
  return layoutText(text, fileStem(place, key));
}

/** A message whose text is only a glance at it: it shows as `markdown` blocks, which hold all its words. */
const isGlance = (m: ThreadMessage) => (m.blocks ?? []).some((b) => b.type === 'markdown');

/**
 * The agent's messages waiting, oldest first, as many as one post holds within Slack's limits: 50 blocks
 * and their size, and the text that shows. The text of a message shown as `markdown` blocks is only its
 * notification's glance (`batchMessage` cuts a batch's short), so it bounds nothing: a thread behind gets
 * its long notes and the short messages between them in one post, not one post per 3,000 characters of
 * glances. A message without blocks shows as its text, which blocks beside it would hide: it goes only
 * with others like it.
 */
export function takeBatch<T extends { message: ThreadMessage }>(items: T[]): T[] {
  const taken: T[] = [];
  let chars = 0;
  let blocks = 0;
  let text = 0;
  while (items.length > 0) {
    const next = items[0] as T;
    const b = next.message.blocks?.length ?? 0;
    const c = b === 0 ? 0 : JSON.stringify(next.message.blocks).length;
    const t = isGlance(next.message) ? 0 : next.message.text.length + 2;
    const mixed = (b === 0) !== (blocks === 0);
    if (
      taken.length > 0 &&
      (mixed || chars + c > BATCH_BLOCK_CHARS || blocks + b > BATCH_MAX_BLOCKS || text + t > BATCH_TEXT_CHARS)
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

/**
 * Whether the agent's messages waiting (each with its blocks) fit in one post ahead of `message` within
 * the same limits as a batch of them.
 */
export function carryable(items: Array<{ message: ThreadMessage }>, message: ThreadMessage): boolean {
  if (!items.every((item) => item.message.blocks?.length)) return false;
  return takeBatch([...items, { message }]).length === items.length + 1;
}

/** Several messages as one post: their blocks one after another, their texts in order (see below). */
export function batchMessage(messages: ThreadMessage[]): ThreadMessage {
  const blocks = messages.flatMap((m) => m.blocks ?? []);
  const text = messages.map((m) => m.text).join('\n\n');
  if (text.length <= BATCH_TEXT_CHARS || !messages.some(isGlance)) return { text, blocks };
  // Past the glance's length: the last message's text kept whole (a question carried after chatter is
  // what its notification says), the ones before cut short; their words are all in the blocks.
  const last = (messages.at(-1) as ThreadMessage).text;
  const room = BATCH_TEXT_CHARS - last.length - 3;
  if (room <= 0) return { text: cut(last, BATCH_TEXT_CHARS), blocks };
  return {
    text: `${cut(
      messages
        .slice(0, -1)
        .map((m) => m.text)
        .join('\n\n'),
      room,
    )}\n\n${last}`,
    blocks,
  };
}

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/**
 * A message Slack refused as sent, as plain text in safe parts (labelled when there are several). A message
 * with `markdown` blocks goes as their whole text (its `text` is only a glance, cut at FALLBACK_MAX), and the
 * words of its other blocks in their place: a question posted with the chatter ahead of it keeps its words.
 */
export function plainParts(message: ThreadMessage): { text: string; parts: string[] } {
  const blocks = message.blocks ?? [];
  const text = blocks.some((b) => b.type === 'markdown')
    ? blocks
        .map((b) => blockWords([b]))
        .filter((t) => t.length > 0)
        .join('\n\n')
    : message.text || blockWords(message.blocks);
  const parts = splitText(text, PLAIN_PART_CHARS);
  return {
    text,
    parts: parts.map((part, i) => (parts.length > 1 ? `${part}\n(part ${i + 1} of ${parts.length})` : part)),
  };
}
