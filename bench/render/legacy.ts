/**
 * Naive renderers, kept only for the render benchmark to time beside the shipped ones as a baseline:
 * regexes that backtrack over unbounded runs, so a long run of `[` or `<!` takes quadratic time.
 */
const JOINER = '\u2060';

export function legacyMarkdownToMrkdwn(escaped: string): string {
  return escaped
    .replace(/\*\*(.+?)\*\*/g, '*$1*')
    .replace(/^#{1,6}\s+(.+)$/gm, '*$1*')
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, '<$2|$1>');
}

export function legacyDefuseMentions(text: string): string {
  return text
    .replace(
      /<!subteam\^([A-Z0-9]+)(?:\|([^>]*))?>/g,
      (_m, id: string, label?: string) => `@${JOINER}${label ? label.replace(/^@/, '') : id}`,
    )
    .replace(/<!(channel|here|everyone)(?:\|[^>]*)?>/g, `@${JOINER}$1`)
    .replace(
      /<@([UW][A-Z0-9]+)(?:\|([^>]*))?>/g,
      (_m, id: string, label?: string) => `@${JOINER}${label ?? id}`,
    )
    .replace(/<!([^>]*)>/g, `!${JOINER}$1`)
    .replace(/(^|[^\w\u2060])@(channel|here|everyone)\b/gi, `$1@${JOINER}$2`);
}

export const legacyEscapeMrkdwn = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** What one assistant message cost before: the mrkdwn and the markdown renderings of its text. */
export function legacyRender(text: string): number {
  const mrkdwn = legacyMarkdownToMrkdwn(legacyEscapeMrkdwn(legacyDefuseMentions(text)));
  const markdown = legacyDefuseMentions(text);
  return mrkdwn.length + markdown.length;
}
