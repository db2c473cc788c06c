/**
 * What "can ping" means, as Slack reads what the bot sends:
 * - mrkdwn (a message's `text`, mrkdwn text objects, a file's comment): markup is only read from a raw
 *   `<…>`; `&lt;` is shown as `<` and never read as markup; a backslash is just a backslash. A ping is
 *   `<!channel>`, `<!here>`, `<!everyone>` (bare, or with a `|label`), `<!subteam^ID…>` or `<@ID…>`
 *   (U… or W…, any case); and, where Slack links names (`link_names`), a bare `@channel`, `@here` or
 *   `@everyone` at the start of a word. The bot never sets `link_names`; the bare words count anyway.
 * - markdown blocks: the same, read both as written and after CommonMark has decoded the text
 *   (backslash escapes and character references such as `&lt;` / `&#64;`), since Slack doesn't say
 *   whether it looks for mentions before or after.
 * - plain_text: Slack reads no markup there; checked as mrkdwn anyway, so the rule is simply "no string
 *   anywhere". The one exception is an input's `initial_value`: what the person typed, for them to edit,
 *   never shown as a message (a joiner there would change their words); and the content of a file the
 *   bot uploads (its comment is mrkdwn and checked).
 * A ping's target is reported as `channel`, `here`, `everyone`, `subteam:ID` or `user:ID`, so a test can
 * allow the bot's own intended mentions (the starter, the answerers) and nothing else.
 */

const BROADCAST = /<!(channel|here|everyone)(?=[|>])/gi;
const SUBTEAM = /<!subteam\^([^|>]*)/gi;
const PERSON = /<@([^|>]*)/gi;
const BARE = /(?:^|[^\w\u2060])@(channel|here|everyone)\b/gi;

/** The targets one string can ping when Slack reads it as mrkdwn. */
export function pingTargets(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(BROADCAST)) found.push((m[1] as string).toLowerCase());
  for (const m of text.matchAll(SUBTEAM)) found.push(`subteam:${m[1]}`);
  for (const m of text.matchAll(PERSON)) found.push(`user:${m[1]}`);
  for (const m of text.matchAll(BARE)) found.push((m[1] as string).toLowerCase());
  return found;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', excl: '!', commat: '@', quot: '"' };

/** Markdown as CommonMark decodes it: backslash escapes and character references resolved. */
export function commonMarkDecoded(text: string): string {
  return text
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(
      /&(?:#[xX]([0-9a-fA-F]+)|#(\d+)|([A-Za-z]+));/g,
      (whole, hex?: string, dec?: string, name?: string) => {
        if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
        if (dec) return String.fromCodePoint(Number(dec));
        return NAMED[(name as string).toLowerCase()] ?? whole;
      },
    );
}

/**
 * Every ping in a message, view or any JSON the bot sends: each string walked, markdown blocks also
 * read decoded. Returns `path: target` lines, empty when nothing can ping.
 */
export function pingsIn(value: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown, path: string, markdown: boolean) => {
    if (typeof v === 'string') {
      const targets = pingTargets(v);
      if (markdown) targets.push(...pingTargets(commonMarkDecoded(v)));
      for (const t of new Set(targets)) found.push(`${path}: ${t}`);
    } else if (Array.isArray(v)) {
      for (const [i, child] of v.entries()) walk(child, `${path}[${i}]`, false);
    } else if (typeof v === 'object' && v !== null) {
      const isMarkdown = (v as { type?: unknown }).type === 'markdown';
      for (const [k, child] of Object.entries(v)) {
        if (k === 'initial_value') continue;
        // An uploaded file's content is a file, not a message: Slack reads no mention in it.
        if (k === 'content' && (v as { kind?: unknown }).kind === 'file') continue;
        walk(child, `${path}.${k}`, isMarkdown && k === 'text');
      }
    }
  };
  walk(value, '$', false);
  return found;
}

/** The pings left once the allowed targets (the bot's own mentions) are set aside. */
export const unexpectedPings = (value: unknown, allowed: readonly string[] = []): string[] =>
  pingsIn(value).filter((line) => !allowed.includes(line.slice(line.lastIndexOf(': ') + 2)));

/** Someone else's text that would ping, in every way Slack could read it (see ping-check.ts). */
export const PING_PAYLOADS = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<!here|here>',
  '<!subteam^S1>',
  '<!subteam^S1|@team>',
  '<@U1>',
  '<@W1|bob>',
  '@channel',
  '@here',
  '@everyone',
  'Hey @HERE, <!channel> and <@U1>: see <!subteam^S1>',
  // CommonMark forms a markdown block may decode into a mention.
  '&lt;!channel&gt;',
  '\\<!here>',
  '<\\@U1>',
  '&#60;@U1&#62;',
  '&#x3C;&#x40;U1|x&gt;',
  '\\@here',
  '&commat;channel',
  // Nested and unclosed tokens, which a pass-by-pass replacement can leave half-open.
  '<@U1|<!here>',
  '<!foo <@U1>|bar>',
  '<@U1|x',
  '<!subteam^S1|<@U1|y> z>',
  '<<!channel>>',
  '<!<@U1>>',
];
