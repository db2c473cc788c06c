/** Long content shaped to fit Slack: the agent's text laid out, batches within limits, plain-text fallbacks. */
import { createHash } from 'node:crypto';
import { layoutText, type MessageText, type Rendered } from '../../../blocks/agent-message.js';
import { blockWords, splitText } from '../../../blocks/text.js';
import type { Place, ThreadMessage } from './thread-place.js';

/** Block text a batched post may carry: Slack refuses past ~13,200 (`msg_blocks_too_long`). */
const BATCH_BLOCK_CHARS = 11_000;
const BATCH_MAX_BLOCKS = 45;
// Slack shows a message's text whole up to about 4,000 characters; a batch stays as short as one section.
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

/** The agent's messages waiting, oldest first, as many as one post holds within Slack's limits. */
export function takeBatch<T extends { message: ThreadMessage }>(items: T[]): T[] {
  const taken: T[] = [];
  let chars = 0;
  let blocks = 0;
  let text = 0;
  while (items.length > 0) {
    const next = items[0] as T;
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

/** Several messages as one post: their texts in order, their blocks one after another. */
/**
 * Whether the agent's messages waiting (each with its blocks) fit in one post ahead of `message` within
 * the same limits as a batch of them.
 */
export function carryable(items: Array<{ message: ThreadMessage }>, message: ThreadMessage): boolean {
  if (!items.every((item) => item.message.blocks?.length)) return false;
  return takeBatch([...items, { message }]).length === items.length + 1;
}

export function batchMessage(messages: ThreadMessage[]): ThreadMessage {
  return {
    text: messages.map((m) => m.text).join('\n\n'),
    blocks: messages.flatMap((m) => m.blocks ?? []),
  };
}

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
