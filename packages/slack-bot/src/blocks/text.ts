import type { KnownBlock, MrkdwnElement, PlainTextElement, SectionBlock } from '@slack/types';
import { defuseBareBroadcasts, JOINER, openNoMention } from './markup.js';

/** Text helpers for Block Kit: Slack's escaping and its length limits (display text only, never ids). */

/**
 * Escapes what Slack's mrkdwn treats as markup (it only needs &, < and >), so no `<!channel>` or
 * `<@U…>` survives; and a bare `@channel` / `@here` / `@everyone` gets an invisible joiner, so the
 * escaped text can't ping even where Slack links names.
 */
export function escapeMrkdwn(text: string): string {
  // Three native passes: faster than one pass with a callback per character, and as linear.
  return defuseBareBroadcasts(text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
}

/**
 * plain_text as Slack shows it, character for character, with an invisible joiner wherever a mention
 * could start (`<!`, `<@`, a bare `@here`): Slack doesn't read markup in plain_text, and this makes sure.
 */
export const plainSafe = (text: string): string => defuseBareBroadcasts(openNoMention(text));

/** Where Slack's mrkdwn would open a link or a channel reference: `<https:`, `<mailto:`, `<#C…>`. */
const LINK_OPENER = /<(?=[a-z][a-z0-9+.-]*:|#)/gi;

/**
 * Someone else's text kept as plain text for whatever reads it next (a workflow's next step may paste it
 * into a message, an email or a cell): it reads the same, and pasted into mrkdwn it can neither ping nor
 * pass one link off as another.
 */
export const plainInert = (text: string): string => plainSafe(text).replace(LINK_OPENER, `<${JOINER}`);

/** Cuts display text to `max` characters with an ellipsis, saying so instead of failing in Slack. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

export const plain = (text: string, max: number): PlainTextElement => ({
  type: 'plain_text',
  text: truncate(plainSafe(text), max),
  emoji: true,
});
export const mrkdwn = (text: string, max = 3000): MrkdwnElement => ({
  type: 'mrkdwn',
  text: truncate(text, max),
});

/** A message as the builders make it: the notification text and its blocks. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

/** A section of mrkdwn text. */
export const section = (text: string, max?: number): SectionBlock => ({
  type: 'section',
  text: mrkdwn(text, max),
});

const BROADCAST_AHEAD = /^@(?:channel|here|everyone)(?!\w)/i;

/**
 * Splits long text into parts of at most `max` characters, preferring paragraph, then line, then word
 * boundaries. Nothing is dropped: the parts joined are the text. No part begins with `@here`,
 * `@channel` or `@everyone` that the text had mid-word (a cut there would make it a word start).
 */
export function splitText(text: string, max: number): string[] {
  if (!(max > 0)) throw new RangeError('max must be positive');
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    // Cut just after the best separator found in the second half of the window, else at the limit.
    let cut = max;
    for (const separator of ['\n\n', '\n', ' ']) {
      const at = window.lastIndexOf(separator);
      if (at >= max / 2 && at + separator.length <= max) {
        cut = at + separator.length;
        break;
      }
    }
    // A part must not begin with a bare broadcast that was mid-word (and so harmless) in the whole text.
    if (cut > 1 && BROADCAST_AHEAD.test(rest.slice(cut, cut + 10))) cut -= 1;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

export function formatUsd(value: number): string {
  return `$${value < 1 ? value.toFixed(3) : value.toFixed(2)}`;
}

/** A ten-cell text progress bar: `▓▓▓░░░░░░░ 30%`. */
export function progressBar(fraction: number): string {
  const clamped = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(clamped * 10);
  return `${'▓'.repeat(filled)}${'░'.repeat(10 - filled)} ${Math.round(fraction * 100)}%`;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${m % 60}m`;
}

/** Where a session runs, as people read it: its channel, or "a direct message" for a DM with the bot. */
export const placeOf = (channelId: string): string =>
  /^[DUW]/.test(channelId) ? 'a direct message' : `<#${channelId}>`;

/** How the bot writes every time: the reader's own date and clock, as Slack renders them. */
export const TIME_FORMAT = '{date_short_pretty} at {time}';

/**
 * A time as Slack's date token: each reader sees it in their own time zone and clock format ("today at
 * 5:11 PM", "Nov 27 at 17:11"); clients that can't render tokens show the fallback, in UTC.
 */
export function slackDate(at: Date | string | number, format: string = TIME_FORMAT): string {
  const date = at instanceof Date ? at : new Date(at);
  const ms = date.getTime();
  if (!Number.isFinite(ms)) return '';
  const fallback = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${Math.floor(ms / 1000)}^${format}|${fallback}>`;
}

/**
 * The words blocks show, in order, as mrkdwn for a message's `text` (the fallback Slack shows when it
 * can't show the blocks, and reads as mrkdwn): a mrkdwn object's text and a markdown block's as they are
 * (their builders made them safe), and every other text (plain_text, rich_text, a card's title) escaped,
 * so words that were shown literally can't become a link or a mention there.
 */
export function blockWords(blocks: KnownBlock[] | undefined): string {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) for (const child of value) walk(child);
    else if (typeof value === 'object' && value !== null) {
      const own = (value as { type?: unknown }).type;
      for (const [key, child] of Object.entries(value)) {
        if ((key === 'text' || key === 'title') && typeof child === 'string')
          out.push(own === 'mrkdwn' || own === 'markdown' ? child : escapeMrkdwn(child));
        else walk(child);
      }
    }
  };
  walk(blocks);
  return out.join('\n');
}
