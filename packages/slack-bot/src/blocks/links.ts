/**
 * The agent's links, shown so that where each one goes is visible: a label that isn't its own URL is
 * followed by the target's host, and that host is the link (`label (evil.example)`); a label that is the
 * URL is the link itself. No link the agent writes can show one address and open another, in mrkdwn or
 * in a markdown block. Linear in its input, as the other passes of markup.ts (agent text is untrusted).
 */

// U+2060 WORD JOINER: invisible, and enough that neither Slack nor CommonMark reads the syntax it splits.
const JOINER = '\u2060';

/** How a dialect writes a link whose text is `text`. */
type LinkWriter = (href: string, text: string) => string;

/** mrkdwn: `<url>` shows the URL, `<url|text>` the text; `&` stays escaped, a `|` would end the URL. */
const mrkdwnLink: LinkWriter = (href, text) => {
  const url = href.replaceAll('&', '&amp;');
  return text === href ? `<${url}>` : `<${url}|${text}>`;
};

/** Standard Markdown: the destination percent-encoded, so nothing in it ends or escapes the link. */
const markdownLink: LinkWriter = (href, text) => `[${text}](${href})`;

/**
 * A target as a URL: http(s) only, without credentials (`https://slack.com@evil.example` goes to
 * evil.example), and after its host every character a dialect could read as syntax percent-encoded.
 */
function parseTarget(target: string): { href: string; host: string } | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') return undefined;
  url.username = '';
  url.password = '';
  const rest = url.href
    .slice(url.origin.length)
    .replace(/[|()[\]<>`\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return { href: `${url.origin}${rest}`, host: url.host };
}

/**
 * One link, honestly: the URL alone when the label is the URL, the host alone when it is the host, else
 * `label (host)` with the host as the link. `label` is compared as written, `shown` is what is shown of
 * it. Undefined when the target isn't an http(s) URL: the caller leaves the text as it is, no link made.
 */
function honestLink(label: string, shown: string, target: string, write: LinkWriter): string | undefined {
  const url = parseTarget(target);
  if (url === undefined) return undefined;
  const trimmed = label.trim();
  if (parseTarget(trimmed)?.href === url.href) return write(url.href, url.href);
  if (trimmed.toLowerCase() === url.host.toLowerCase()) return write(url.href, url.host);
  return `${shown} (${write(url.href, url.host)})`;
}

const unescapeMrkdwn = (s: string): string =>
  s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

/** `[label](target)` in mrkdwn that escapeMrkdwn has escaped: what the scanner writes for it. */
export const mrkdwnLinkOf = (label: string, target: string): string | undefined =>
  honestLink(unescapeMrkdwn(label), label, unescapeMrkdwn(target), mrkdwnLink);

/**
 * `[label](http(s)://…)` -> the link as `write` makes it, every other stretch of text through `between`.
 * The label runs from a `[` to the first `]` or line end; every `[` before that `]` shares it, so the `]`
 * and whether a link follows it are worked out once for all of them.
 */
export function rewriteLinks(
  text: string,
  link: (label: string, target: string) => string | undefined,
  between: (s: string) => string = (s) => s,
): string {
  let out = '';
  let copied = 0;
  let stop = -1;
  let target = -1;
  const targetStop = { at: -1 };
  let open = text.indexOf('[');
  while (open !== -1) {
    if (stop <= open) {
      stop = labelStop(text, open + 1);
      target = text[stop] === ']' ? linkTargetEnd(text, stop + 1, targetStop) : -1;
    }
    const shown =
      target !== -1 && stop > open + 1
        ? link(text.slice(open + 1, stop), text.slice(stop + 2, target))
        : undefined;
    if (shown !== undefined) {
      out += `${between(text.slice(copied, open))}${shown}`;
      copied = target + 1;
      open = text.indexOf('[', copied);
    } else open = text.indexOf('[', open + 1);
  }
  return out + between(text.slice(copied));
}

/** The first `]` or newline at or after `from` (the text's length when neither comes). */
function labelStop(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === ']' || c === '\n') return i;
  }
  return text.length;
}

/** Where a link's target (`https://…` up to `)` or whitespace) ends: reused while ahead of the scan. */
const TARGET_END = /[)\s]/g;

/**
 * After a label's `]`: the index of the `)` closing `(https://…)`, or -1. `targetStop` is the first `)`
 * or whitespace at or after a position before this one (or -1): reused when still ahead, so a run of
 * `[x](http://` without a `)` is scanned once, not once per `[`.
 */
function linkTargetEnd(text: string, at: number, targetStop: { at: number }): number {
  if (text[at] !== '(') return -1;
  const scheme = text.startsWith('http://', at + 1) ? 8 : text.startsWith('https://', at + 1) ? 9 : 0;
  if (scheme === 0) return -1;
  const from = at + scheme;
  if (targetStop.at < from) {
    TARGET_END.lastIndex = from;
    targetStop.at = TARGET_END.exec(text)?.index ?? text.length;
  }
  const end = targetStop.at;
  return end > from && text[end] === ')' ? end : -1;
}

/**
 * What could make a link in a markdown block besides the links rewritten: a `<` (raw, backslash-escaped
 * or a character reference) before a letter opens an autolink, an HTML tag or Slack's `<url|text>`; `](`
 * an inline link (with a title, an angle-bracketed or spaced destination); `]:` a reference definition.
 */
const LINK_OPENER = /(<|\\<|&lt;|&#0*60;|&#x0*3c;)(?=[a-z])|\](?=[(:])/gi;

/** Every link opener split by a joiner: the text reads the same, and CommonMark and Slack see no link. */
const breakLinkOpeners = (text: string): string => text.replace(LINK_OPENER, `$&${JOINER}`);

/**
 * Text (mentions already defused) for a markdown block: each `[label](http(s)://…)` rewritten honestly,
 * and no other link syntax left, so a bare URL is the only other link (Slack links it to itself).
 */
export const honestMarkdownLinks = (text: string): string =>
  rewriteLinks(
    text,
    (label, target) =>
      honestLink(label, breakLinkOpeners(label.replaceAll('[', '\\[')), target, markdownLink),
    breakLinkOpeners,
  );
