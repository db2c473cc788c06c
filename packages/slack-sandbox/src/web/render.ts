/**
 * Block Kit to HTML, for the sandbox's web page: pure functions from blocks to markup (no DOM), so they run
 * in the browser and in unit tests alike. Interactive elements carry data-* attributes the page wires to
 * the driver; nothing here talks to anyone.
 *
 * The page loads it as one module (`/web/render.js`, with no bundler): text formatting (mrkdwn, markdown,
 * rich text) and the elements and blocks built on it ship together.
 */

import { renderAgentBlock } from './render-agent.js';

type Obj = Record<string, unknown>;

export interface RenderContext {
  /** User id -> display name, for <@U…> mentions. */
  users: Record<string, string>;
  /** Channel id -> name, for <#C…> links. */
  channels: Record<string, string>;
  /** Where the blocks live: a message (channel + ts) or a view (view id). */
  container: { kind: 'message'; channel: string; ts: string } | { kind: 'view'; viewId: string };
  /** Inline errors of a view, by block_id (response_action: errors). */
  errors?: Record<string, string>;
  /** The reader's time zone (their profile's `tz`): Slack shows every date token in it. */
  timeZone?: string;
  /** The reader's "now", for today / yesterday / ago (tests pin it). */
  now?: number;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** Slack escapes only &, < and >; its text arrives with those as entities. */
const decodeSlackEntities = (text: string): string =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function inlineFormat(escaped: string): string {
  return escaped
    .replace(/`([^`\n]+)`/g, '<code>$1</code>')
    .replace(/(^|[\s(])\*([^*\n]+)\*(?=[\s).,!?:;]|$)/g, '$1<strong>$2</strong>')
    .replace(/(^|[\s(])_([^_\n]+)_(?=[\s).,!?:;]|$)/g, '$1<em>$2</em>')
    .replace(/(^|[\s(])~([^~\n]+)~(?=[\s).,!?:;]|$)/g, '$1<del>$2</del>');
}

/** Only web and mail links become hrefs: a bot's `javascript:` URL must not run in the page. */
const safeHref = (url: unknown): string => {
  const href = String(url ?? '');
  return /^(https?:|mailto:)/i.test(href) ? href : '#';
};

/** A link out of the page, opened in a new tab; `html` is its content, already escaped. */
const externalLink = (url: unknown, html: string): string =>
  `<a href="${escapeHtml(safeHref(url))}" target="_blank" rel="noopener">${html}</a>`;

const formatter = (timeZone: string | undefined, options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat('en-US', { ...options, ...(timeZone ? { timeZone } : {}) });

/** A clock time as Slack's client shows it ("5:11 PM"), in the reader's zone: one way for every time. */
export function clockTime(at: Date | number, timeZone?: string, seconds = false): string {
  const options: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };
  return formatter(timeZone, seconds ? { ...options, second: '2-digit' } : options).format(at);
}

/** A calendar day in a zone, as YYYY-MM-DD (en-CA writes it so). */
const dayOf = (at: Date | number, timeZone?: string) =>
  new Intl.DateTimeFormat('en-CA', {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    ...(timeZone ? { timeZone } : {}),
  }).format(at);

function prettyDay(at: Date, ctx: RenderContext, plain: string): string {
  const now = ctx.now ?? Date.now();
  const day = dayOf(at, ctx.timeZone);
  if (day === dayOf(now, ctx.timeZone)) return 'today';
  if (day === dayOf(now - 86_400_000, ctx.timeZone)) return 'yesterday';
  if (day === dayOf(now + 86_400_000, ctx.timeZone)) return 'tomorrow';
  return plain;
}

function ago(at: Date, now: number): string {
  const seconds = Math.round((now - at.getTime()) / 1000);
  const [n, unit] =
    Math.abs(seconds) < 60
      ? [seconds, 'second']
      : Math.abs(seconds) < 3600
        ? [Math.round(seconds / 60), 'minute']
        : Math.abs(seconds) < 86_400
          ? [Math.round(seconds / 3600), 'hour']
          : [Math.round(seconds / 86_400), 'day'];
  const count = Math.abs(n);
  const words = `${count} ${unit}${count === 1 ? '' : 's'}`;
  return n >= 0 ? `${words} ago` : `in ${words}`;
}

/**
 * Slack's date token, `<!date^epoch^format^link|fallback>`, as Slack's client shows it: each `{token}` of
 * the format in the reader's time zone; a token it doesn't know, or a bad epoch, shows the fallback.
 */
function dateToken(target: string, fallback: string | undefined, ctx: RenderContext): string {
  const [, epoch = '', format = '', link] = target.split('^');
  const at = new Date(Number(epoch) * 1000);
  if (!/^\d+$/.test(epoch) || Number.isNaN(at.getTime())) return escapeHtml(fallback ?? '');
  const tz = ctx.timeZone;
  const date = formatter(tz, { month: 'long', day: 'numeric', year: 'numeric' }).format(at);
  const short = formatter(tz, { month: 'short', day: 'numeric', year: 'numeric' }).format(at);
  const long = formatter(tz, { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' }).format(at);
  const tokens: Record<string, () => string> = {
    date_num: () => dayOf(at, tz),
    date: () => date,
    date_short: () => short,
    date_long: () => long,
    date_pretty: () => prettyDay(at, ctx, date),
    date_short_pretty: () => prettyDay(at, ctx, short),
    date_long_pretty: () => prettyDay(at, ctx, long),
    time: () => clockTime(at, tz),
    time_secs: () => clockTime(at, tz, true),
    ago: () => ago(at, ctx.now ?? Date.now()),
  };
  let unknown = false;
  const text = format.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const token = tokens[name];
    if (!token) unknown = true;
    return token ? token() : whole;
  });
  if (unknown) return escapeHtml(fallback ?? text);
  const shown = `<time class="slack-date" data-testid="slack-date" datetime="${at.toISOString()}" title="${escapeHtml(fallback ?? '')}">${escapeHtml(text)}</time>`;
  return link ? externalLink(decodeSlackEntities(link), shown) : shown;
}

function linkOf(inner: string, ctx: RenderContext): string {
  const [target = '', label] = inner.split('|', 2);
  if (target.startsWith('!date^')) return dateToken(target, label, ctx);
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return `<span class="mention" data-user="${escapeHtml(id)}">@${escapeHtml(ctx.users[id] ?? label ?? id)}</span>`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    return `<span class="channel-link">#${escapeHtml(ctx.channels[id] ?? label ?? id)}</span>`;
  }
  if (target.startsWith('!')) return `<span class="mention">@${escapeHtml(label ?? target.slice(1))}</span>`;
  return externalLink(decodeSlackEntities(target), escapeHtml(decodeSlackEntities(label ?? target)));
}

/** Slack mrkdwn to HTML: *bold*, _italic_, ~strike~, `code`, ```blocks```, quotes, links and mentions. */
export function mrkdwn(text: string, ctx: RenderContext): string {
  const parts = text.split(/```/);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return `<pre>${escapeHtml(decodeSlackEntities(part))}</pre>`;
      const lines = part.split('\n').map((line) => {
        const quote = line.startsWith('&gt; ') || line.startsWith('> ');
        const body = quote ? line.replace(/^(&gt;|>) /, '') : line;
        const html = body
          .split(/(<[^<>\n]+>)/)
          .map((seg) =>
            seg.startsWith('<') && seg.endsWith('>')
              ? linkOf(seg.slice(1, -1), ctx)
              : inlineFormat(escapeHtml(decodeSlackEntities(seg))),
          )
          .join('');
        return quote ? `<blockquote>${html}</blockquote>` : html;
      });
      return lines.join('<br>');
    })
    .join('');
}

/** Standard Markdown's inline marks, on text already escaped: code, bold, italic, strike, links. */
function markdownInline(escaped: string): string {
  const codes: string[] = [];
  return escaped
    .replace(/`([^`\n]+)`/g, (_m, code: string) => {
      codes.push(code);
      return `\uE000${codes.length - 1}\uE000`;
    })
    .replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (_m, label: string, url: string) => {
      return externalLink(url.replace(/&amp;/g, '&'), label);
    })
    .replace(/\*\*([^*\n]+)\*\*/g, '<strong>$1</strong>')
    .replace(/__([^_\n]+)__/g, '<strong>$1</strong>')
    .replace(/(^|[\s(])[*_]([^*_\n]+)[*_](?=[\s).,!?:;]|$)/g, '$1<em>$2</em>')
    .replace(/~~([^~\n]+)~~/g, '<del>$1</del>')
    .replace(/\uE000(\d+)\uE000/g, (_m, i: string) => `<code>${codes[Number(i)]}</code>`);
}

/**
 * Slack's `markdown` block: standard Markdown (headings, lists, quotes, code, emphasis, links). The
 * text is escaped first, so raw HTML in it shows as text and never reaches the page as markup.
 */
export function markdown(text: string): string {
  const out: string[] = [];
  const lines = text.split('\n');
  let list: 'ul' | 'ol' | undefined;
  const closeList = () => {
    if (list) out.push(`</${list}>`);
    list = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('```')) {
      closeList();
      const code: string[] = [];
      for (i++; i < lines.length && !(lines[i] ?? '').startsWith('```'); i++) code.push(lines[i] ?? '');
      out.push(`<pre>${escapeHtml(code.join('\n'))}</pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    if (bullet || numbered) {
      const kind = bullet ? 'ul' : 'ol';
      if (list !== kind) {
        closeList();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${markdownInline(escapeHtml((bullet ?? numbered)?.[1] ?? ''))}</li>`);
      continue;
    }
    closeList();
    if (heading) {
      const level = Math.min((heading[1]?.length ?? 1) + 2, 6);
      out.push(`<h${level} class="md-heading">${markdownInline(escapeHtml(heading[2] ?? ''))}</h${level}>`);
    } else if (line.startsWith('>')) {
      out.push(`<blockquote>${markdownInline(escapeHtml(line.replace(/^>\s?/, '')))}</blockquote>`);
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push('<hr>');
    } else if (line.trim() !== '') {
      out.push(`<p>${markdownInline(escapeHtml(line))}</p>`);
    }
  }
  closeList();
  return out.join('');
}

/** A person's message as Slack's client sends it: rich_text sections of text, mentions and links. */
function richText(block: Obj, ctx: RenderContext): string {
  const render = (e: Obj): string => {
    if (e.type === 'text') return escapeHtml(String(e.text ?? '')).replace(/\n/g, '<br>');
    if (e.type === 'user') return linkOf(`@${String(e.user_id)}`, ctx);
    if (e.type === 'channel') return linkOf(`#${String(e.channel_id)}`, ctx);
    if (e.type === 'link') return externalLink(e.url, escapeHtml(String(e.text ?? e.url ?? '')));
    if (e.type === 'emoji') return `:${escapeHtml(String(e.name ?? ''))}:`;
    return '';
  };
  const sections = (block.elements as Obj[] | undefined) ?? [];
  return sections.map((s) => ((s.elements as Obj[] | undefined) ?? []).map(render).join('')).join('<br>');
}

function textObject(text: unknown, ctx: RenderContext): string {
  const t = text as { type?: string; text?: string } | undefined;
  if (!t || typeof t.text !== 'string') return '';
  return t.type === 'mrkdwn' ? mrkdwn(t.text, ctx) : escapeHtml(t.text);
}

/** A text object's text, as is. */
const rawText = (text: unknown): string => String((text as { text?: unknown } | undefined)?.text ?? '');

const plain = (text: unknown): string => escapeHtml(rawText(text));

function where(ctx: RenderContext, blockId: string): string {
  const c = ctx.container;
  const base =
    c.kind === 'message'
      ? `data-channel="${escapeHtml(c.channel)}" data-ts="${escapeHtml(c.ts)}"`
      : `data-view="${escapeHtml(c.viewId)}"`;
  return `${base} data-block="${escapeHtml(blockId)}"`;
}

/**
 * A confirm object, for the page's own dialog (Slack's: title, text, confirm / deny labels, style):
 * labels as plain text, the text already rendered to HTML.
 */
function confirmAttr(element: Obj, ctx: RenderContext): string {
  const confirm = element.confirm as Obj | undefined;
  if (!confirm) return '';
  const dialog = {
    title: rawText(confirm.title) || 'Are you sure?',
    html: textObject(confirm.text, ctx),
    confirm: rawText(confirm.confirm) || 'Yes',
    deny: rawText(confirm.deny) || 'Cancel',
    style: confirm.style === 'danger' ? 'danger' : 'primary',
  };
  return ` data-confirm="${escapeHtml(JSON.stringify(dialog))}"`;
}

function options(element: Obj): Obj[] {
  return Array.isArray(element.options) ? (element.options as Obj[]) : [];
}

/** One interactive element (in an actions block, a section accessory or a view input). */
export function renderElement(element: Obj, blockId: string, ctx: RenderContext, inInput = false): string {
  const actionId = escapeHtml(String(element.action_id ?? ''));
  const attrs = `${where(ctx, blockId)} data-action="${actionId}"`;
  switch (element.type) {
    case 'button': {
      const style = element.style === 'primary' || element.style === 'danger' ? ` ${element.style}` : '';
      const value = element.value === undefined ? '' : ` data-value="${escapeHtml(String(element.value))}"`;
      if (element.url) {
        return `<a class="button${style}" href="${escapeHtml(safeHref(element.url))}" target="_blank" rel="noopener">${plain(element.text)}</a>`;
      }
      return `<button type="button" class="button${style}" ${attrs}${value}${confirmAttr(element, ctx)}>${plain(element.text)}</button>`;
    }
    case 'static_select':
    case 'multi_static_select': {
      const multi = element.type === 'multi_static_select';
      const placeholder = element.placeholder
        ? `<option value="" disabled${multi ? '' : ' selected'}>${plain(element.placeholder)}</option>`
        : '';
      const opts = options(element)
        .map((o) => `<option value="${escapeHtml(String(o.value))}">${plain(o.text)}</option>`)
        .join('');
      return `<select class="select" ${attrs}${multi ? ' multiple' : ''}${inInput ? ' data-input' : ''}>${multi ? '' : placeholder}${opts}</select>`;
    }
    case 'checkboxes':
    case 'radio_buttons': {
      const type = element.type === 'checkboxes' ? 'checkbox' : 'radio';
      const name = `${blockId}-${actionId}-${ctx.container.kind === 'message' ? ctx.container.ts : ctx.container.viewId}`;
      return `<div class="choices" ${attrs} data-kind="${type}"${inInput ? ' data-input' : ''}>${options(
        element,
      )
        .map(
          (o) =>
            `<label class="choice"><input type="${type}" name="${escapeHtml(name)}" value="${escapeHtml(String(o.value))}"> ${plain(o.text)}${
              o.description ? ` <small>${plain(o.description)}</small>` : ''
            }</label>`,
        )
        .join('')}</div>`;
    }
    case 'overflow':
      return `<select class="select overflow" ${attrs}><option value="" selected disabled>⋯</option>${options(
        element,
      )
        .map((o) => `<option value="${escapeHtml(String(o.value))}">${plain(o.text)}</option>`)
        .join('')}</select>`;
    case 'plain_text_input': {
      const initial = escapeHtml(String(element.initial_value ?? ''));
      const placeholder = element.placeholder ? ` placeholder="${plain(element.placeholder)}"` : '';
      return element.multiline
        ? `<textarea class="text-input" ${attrs} data-input${placeholder}>${initial}</textarea>`
        : `<input class="text-input" type="text" ${attrs} data-input value="${initial}"${placeholder}>`;
    }
    case 'image':
      return `<a class="image-link" href="${escapeHtml(safeHref(element.image_url))}" target="_blank" rel="noopener">🖼 ${escapeHtml(String(element.alt_text ?? 'image'))}</a>`;
    default:
      return `<span class="unsupported">[${escapeHtml(String(element.type))}]</span>`;
  }
}

/** One block. */
export function renderBlock(block: Obj, index: number, ctx: RenderContext): string {
  const blockId = String(block.block_id ?? `b${index}`);
  switch (block.type) {
    case 'header':
      return `<div class="block header">${plain(block.text)}</div>`;
    case 'divider':
      return '<hr class="block divider">';
    case 'section': {
      const fields = Array.isArray(block.fields)
        ? `<div class="fields">${(block.fields as unknown[]).map((f) => `<div class="field">${textObject(f, ctx)}</div>`).join('')}</div>`
        : '';
      const accessory = block.accessory
        ? `<div class="accessory">${renderElement(block.accessory as Obj, blockId, ctx)}</div>`
        : '';
      return `<div class="block section"><div class="section-body">${textObject(block.text, ctx)}${fields}</div>${accessory}</div>`;
    }
    case 'context':
      return `<div class="block context">${((block.elements as Obj[] | undefined) ?? [])
        .map((e) =>
          e.type === 'image' ? renderElement(e, blockId, ctx) : `<span>${textObject(e, ctx)}</span>`,
        )
        .join(' ')}</div>`;
    case 'actions':
      return `<div class="block actions">${((block.elements as Obj[] | undefined) ?? [])
        .map((e) => renderElement(e, blockId, ctx))
        .join('')}</div>`;
    case 'image':
      return `<div class="block image">${renderElement(block, blockId, ctx)}${block.title ? ` <span>${plain(block.title)}</span>` : ''}</div>`;
    case 'input': {
      const error = ctx.errors?.[blockId];
      return `<div class="block input${error ? ' has-error' : ''}" data-block="${escapeHtml(blockId)}"><label class="input-label">${plain(block.label)}${
        block.optional ? ' <small>(optional)</small>' : ''
      }</label>${renderElement(block.element as Obj, blockId, ctx, true)}${
        block.hint ? `<div class="hint">${plain(block.hint)}</div>` : ''
      }${error ? `<div class="error" role="alert">${escapeHtml(error)}</div>` : ''}</div>`;
    }
    case 'markdown':
      return `<div class="block markdown" data-testid="markdown">${markdown(String(block.text ?? ''))}</div>`;
    case 'rich_text':
      return `<div class="block section"><div class="section-body">${richText(block, ctx)}</div></div>`;
    case 'context_actions':
      return `<div class="block context-actions">${((block.elements as Obj[] | undefined) ?? [])
        .map((e) => {
          const actionId = escapeHtml(String(e.action_id ?? ''));
          const attrs = `${where(ctx, blockId)} data-action="${actionId}" data-press-value`;
          if (e.type === 'feedback_buttons')
            return (['positive_button', 'negative_button'] as const)
              .map((side) => {
                const b = (e[side] ?? {}) as Obj;
                const label = b.accessibility_label
                  ? ` aria-label="${escapeHtml(String(b.accessibility_label))}"`
                  : '';
                // Slack draws these as thumb icons; drawn here too, so they show without an emoji font.
                const said = plain(b.text);
                return `<button type="button" class="button feedback" data-testid="feedback" ${attrs} data-value="${escapeHtml(String(b.value ?? ''))}"${label} title="${said}">${thumb(side === 'positive_button' ? 'up' : 'down')}</button>`;
              })
              .join('');
          return `<button type="button" class="button icon" ${attrs} data-value="${escapeHtml(String(e.value ?? ''))}">${plain(e.text)}</button>`;
        })
        .join('')}</div>`;
    default:
      return (
        renderAgentBlock(block) ??
        `<div class="block unsupported">[${escapeHtml(String(block.type))} block]</div>`
      );
  }
}

/** A message's or view's blocks; a message without blocks shows its text as mrkdwn. */
export function renderBlocks(blocks: unknown, ctx: RenderContext, fallbackText = ''): string {
  if (!Array.isArray(blocks) || blocks.length === 0)
    return `<div class="block section"><div class="section-body">${mrkdwn(fallbackText, ctx)}</div></div>`;
  return (blocks as Obj[]).map((b, i) => renderBlock(b, i, ctx)).join('');
}

/** Slack's feedback thumb as an inline SVG: it needs no font, where an emoji shows as an empty box. */
function thumb(way: 'up' | 'down'): string {
  const turn = way === 'down' ? ' transform="rotate(180 12 12)"' : '';
  return `<svg class="thumb" data-testid="thumb-${way}" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><g${turn} fill="currentColor"><rect x="2" y="10" width="4" height="11" rx="1"/><path d="M8 21h9.2a2 2 0 0 0 1.96-1.6l1.4-7A2 2 0 0 0 18.6 10H14l.8-4.2A2 2 0 0 0 12.9 3.5L8 10z"/></g></svg>`;
}
