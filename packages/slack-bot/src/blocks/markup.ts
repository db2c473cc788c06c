/**
 * The passes over someone else's text before Slack sees it: pings defused, Markdown turned into mrkdwn.
 * Each runs in time linear in its input, whatever the input: agent text is untrusted, and a regex that
 * backtracks over an unbounded run (`[^\]]+` before a missing `]`, `[^>]*` before a missing `>`) takes
 * quadratic time on a long run of `[` or `<!`, which freezes the event loop. So: scanners that
 * look each "next `]`" or "next `>`" up once and reuse it, and regexes whose every step is bounded.
 */

import { honestMarkdownLinks, mrkdwnLinkOf, rewriteLinks } from './links.js';

// U+2060 WORD JOINER: invisible, and enough that Slack no longer reads a mention or a broadcast.
export const JOINER = '\u2060';

/**
 * A bare broadcast (`@channel`, `@here`, `@everyone`) at a word's start, its `@` raw or as CommonMark
 * writes it escaped (`\@`, `&commat;`, `&#64;`, `&#x40;`): the markdown block may read either.
 */
const BARE_BROADCAST = /(^|[^\w\u2060])(@|\\@|&commat;|&#0*64;|&#x0*40;)(channel|here|everyone)\b/gi;

/** A joiner after the `@` of every bare broadcast, so it reads the same and notifies nobody. */
export const defuseBareBroadcasts = (text: string): string => text.replace(BARE_BROADCAST, `$1$2${JOINER}$3`);

/**
 * A `<` (raw, backslash-escaped, or a character reference) right before a `!` or `@` in any of those
 * forms: what Slack would read as the start of a mention once CommonMark has decoded the text.
 */
const ENCODED_MENTION_START =
  /(<|\\<|&lt;|&#0*60;|&#x0*3c;)(?=!|@|\\[!@]|&excl;|&commat;|&#0*(?:33|64);|&#x0*(?:21|40);)/gi;

/** Nothing that could open a mention inside text kept as is (a label, the body of `<!…>`, plain_text). */
export const openNoMention = (text: string): string =>
  text.replaceAll('<!', `<${JOINER}!`).replaceAll('<@', `<${JOINER}@`);

const SUBTEAM = /^!subteam\^([A-Z0-9]+)(?:\|(.*))?$/s;
const BROADCAST = /^!(channel|here|everyone)(?:\|.*)?$/s;
const PERSON = /^@([UW][A-Z0-9]+)(?:\|(.*))?$/s;

/** A whole `<…>` token's body (between `<` and `>`, starting with `!` or `@`) as look-alike text. */
function lookAlike(body: string): string | undefined {
  const group = SUBTEAM.exec(body);
  if (group) {
    const label = group[2];
    return `@${JOINER}${openNoMention(label ? label.replace(/^@/, '') : (group[1] as string))}`;
  }
  const broadcast = BROADCAST.exec(body);
  if (broadcast) return `@${JOINER}${broadcast[1]}`;
  const person = PERSON.exec(body);
  if (person) return `@${JOINER}${openNoMention(person[2] ?? (person[1] as string))}`;
  // Any other `<!…>` (a date, a typo'd broadcast) shows its words without the markup.
  if (body.startsWith('!')) return `!${JOINER}${openNoMention(body.slice(1))}`;
  return undefined;
}

/**
 * Whatever the agent wrote can never ping anyone: broadcasts (`<!channel>`, `<!here>`, `<!everyone>`,
 * and the bare `@channel` / `@here` / `@everyone`), user groups (`<!subteam^S…>`) and people (`<@U…>`)
 * become plain look-alike text, in the markdown block as in mrkdwn. What is left can't open a mention
 * even when joined to other text: no `<!` or `<@` remains (an unclosed one gets a joiner after its `<`),
 * nor their backslash-escaped or character-reference forms.
 *
 * One pass: at each `<!` / `<@`, the next `>` (looked up once and reused until passed) closes the token.
 */
export function defuseMentions(text: string): string {
  let out = '';
  let copied = 0;
  let close = text.indexOf('>');
  let at = text.indexOf('<');
  while (at !== -1) {
    const next = text[at + 1];
    if (next !== '!' && next !== '@') {
      at = text.indexOf('<', at + 1);
      continue;
    }
    if (close !== -1 && close < at) close = text.indexOf('>', at);
    if (close === -1) break; // No `>` left to close a token: the rest only needs its openers broken.
    const shown = lookAlike(text.slice(at + 1, close));
    out += text.slice(copied, at);
    if (shown === undefined) {
      out += `<${JOINER}`;
      copied = at + 1;
    } else {
      out += shown;
      copied = close + 1;
    }
    at = text.indexOf('<', copied);
  }
  out += openNoMention(text.slice(copied));
  return defuseBareBroadcasts(out.replace(ENCODED_MENTION_START, `$1${JOINER}`));
}

/**
 * Someone else's text for Slack's markdown (a `markdown` block, a stream's chunks, a plan or task title):
 * unable to ping anyone, and every link showing where it goes.
 */
export const safeMarkdown = (text: string): string => honestMarkdownLinks(defuseMentions(text));

const LINE_END = /[\n\r\u2028\u2029]/g;

/** The index of the next line terminator at or after `from`, or the text's length. */
function lineEndFrom(text: string, from: number): number {
  LINE_END.lastIndex = from;
  return LINE_END.exec(text)?.index ?? text.length;
}

/**
 * `**bold**` -> `*bold*`, as `/\*\*(.+?)\*\*\/g` did: from an opening `**`, the first `**` at least one
 * character later on the same line closes it. Linear: the line's end and the next `**` are looked up
 * once and reused by every opener before them.
 */
function bold(text: string): string {
  let out = '';
  let copied = 0;
  let lineEnd = -1;
  let closer = -1;
  let open = text.indexOf('**');
  while (open !== -1) {
    if (lineEnd < open) lineEnd = lineEndFrom(text, open);
    if (closer < open + 3) {
      closer = text.indexOf('**', open + 3);
      if (closer === -1) break;
    }
    if (closer >= lineEnd) {
      // The first closer is past this line's end: no opener before that end has one.
      open = text.indexOf('**', lineEnd);
      continue;
    }
    out += `${text.slice(copied, open)}*${text.slice(open + 2, closer)}*`;
    copied = closer + 2;
    open = text.indexOf('**', copied);
  }
  return out + text.slice(copied);
}

/**
 * `# Heading` (one to six `#`, whitespace, then words) -> `*Heading*`, line by line. A
 * heading with no words on its line stays as written: `/^#{1,6}\s+(.+)$/gm` would let `\s+` cross the line
 * break and bold the next line.
 */
function headings(text: string): string {
  if (!text.includes('#')) return text;
  let out = '';
  let start = 0;
  while (start <= text.length) {
    const end = lineEndFrom(text, start);
    out += heading(text.slice(start, end));
    if (end >= text.length) break;
    out += text[end];
    start = end + 1;
  }
  return out;
}

const HEADING = /^#{1,6}[^\S\n\r\u2028\u2029]+(\S.*)$/s;
const heading = (line: string) => {
  if (line[0] !== '#') return line;
  const m = HEADING.exec(line);
  return m ? `*${m[1]}*` : line;
};

/** Markdown as agents write it -> Slack mrkdwn, on text already escaped; links show their host. */
export function markdownToMrkdwn(escaped: string): string {
  return rewriteLinks(headings(bold(escaped)), mrkdwnLinkOf);
}
