/**
 * The links a person sees in what the bot sends, as Slack reads it: in mrkdwn, `<target|text>` and
 * `<target>`; in a markdown block (checked as written and after CommonMark decoding), those and
 * `[text](target)`, and any reference definition (`[ref]: target`) is reported as a link of unknown text.
 * plain_text has no links. A link is honest when its text is its target or the target's host.
 */
import { commonMarkDecoded } from './ping-check.js';

export interface SeenLink {
  path: string;
  text: string;
  target: string;
}

const SLACK_LINK = /<([a-z][a-z0-9+.-]*:[^|>]*)(?:\|([^>]*))?>/gi;
/**
 * `[text](target)`, as CommonMark reads link text: a bracket inside it is backslash-escaped or one of a
 * matched pair, so a stray `[` earlier in the text opens no link that runs on to a later one.
 */
const LINK_TEXT = String.raw`(?:[^[\]\\]|\\.|\[(?:[^[\]\\]|\\.)*\])*`;
const MARKDOWN_LINK = new RegExp(String.raw`\[(${LINK_TEXT})\]\(\s*<?([^)\s>]*)>?[^)]*\)`, 'g');
const DEFINITION = /^[ >]*\[[^\]]+\]:\s*(\S+)/gm;

function linksOf(text: string, markdown: boolean): Array<{ text: string; target: string }> {
  const found: Array<{ text: string; target: string }> = [];
  for (const m of text.matchAll(SLACK_LINK))
    found.push({ target: m[1] as string, text: m[2] ?? (m[1] as string) });
  if (!markdown) return found;
  for (const m of text.matchAll(MARKDOWN_LINK)) found.push({ text: m[1] as string, target: m[2] as string });
  for (const m of text.matchAll(DEFINITION)) found.push({ text: '(a reference)', target: m[1] as string });
  return found;
}

/** Every link in any JSON the bot sends, with where it is. */
export function linksIn(value: unknown): SeenLink[] {
  const found: SeenLink[] = [];
  const walk = (v: unknown, path: string, mode: 'mrkdwn' | 'markdown' | 'plain') => {
    if (typeof v === 'string') {
      if (mode === 'plain') return;
      const texts = mode === 'markdown' ? [v, commonMarkDecoded(v)] : [v];
      for (const t of texts)
        for (const link of linksOf(t, mode === 'markdown')) found.push({ path, ...link });
    } else if (Array.isArray(v)) {
      for (const [i, child] of v.entries()) walk(child, `${path}[${i}]`, mode);
    } else if (typeof v === 'object' && v !== null) {
      const type = (v as { type?: unknown }).type;
      const own = type === 'plain_text' ? 'plain' : type === 'markdown' ? 'markdown' : mode;
      for (const [k, child] of Object.entries(v)) {
        if (k === 'initial_value' || (k === 'content' && (v as { kind?: unknown }).kind === 'file')) continue;
        walk(child, `${path}.${k}`, own);
      }
    }
  };
  walk(value, '$', 'mrkdwn');
  return found;
}

/** Whether a link's text says where it goes: the target itself, or the target's host. */
export function isHonest(link: { text: string; target: string }): boolean {
  const text = link.text.trim();
  if (text === link.target) return true;
  try {
    const url = new URL(link.target.replaceAll('&amp;', '&'));
    return text === url.href || text.toLowerCase() === url.host.toLowerCase();
  } catch {
    return false;
  }
}

/** Every string in a value, joined: what a person could read of it. */
export function shownStrings(value: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const c of v) walk(c);
    else if (typeof v === 'object' && v !== null) for (const c of Object.values(v)) walk(c);
  };
  walk(value);
  return out.join('\n');
}
