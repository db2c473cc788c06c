/**
 * Slack refuses a message whose blocks add up to too much with `msg_blocks_too_long`, even when every
 * block is within its own limit. Slack does not document how it counts. What is known (slackapi/bolt-js
 * #2509, #2867): a message of `markdown` blocks only was refused past about 13,297 characters of text; more
 * block kinds lower the threshold; and a message with 11,341 characters in its `text` fields (rich_text,
 * section, header, divider) was refused. Slack's own answer was "12,000 text characters with a buffer for
 * block containers". So the container counts, not only the text.
 *
 * The sandbox is at least as strict: it counts every string a block carries — texts, ids, values, URLs,
 * type names — and refuses past 13,200. A bot that stays within that stays within Slack.
 */

export const MAX_BLOCKS_CHARS = 13_200;

/** The characters a list of blocks counts against the per-message budget. */
export function blocksChars(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + blocksChars(v), 0);
  if (typeof value === 'object' && value !== null)
    return Object.values(value).reduce((sum: number, v) => sum + blocksChars(v), 0);
  return 0;
}
