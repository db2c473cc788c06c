import type { KnownBlock } from '@slack/types';
import { defuseMentions, markdownToMrkdwn, safeMarkdown } from './markup.js';
import { escapeMrkdwn, type SlackMessage, section, splitText, truncate } from './text.js';

export { defuseMentions, markdownToMrkdwn, safeMarkdown };

/** Section text holds 3000 characters; longer parts become several messages, then a file. */
export const SECTION_MAX = 3000;
/**
 * One `markdown` block per message, below Slack's 12,000 characters of markdown per message and its
 * ~13,200 of blocks (the notification text and a trailer such as feedback buttons fit beside it).
 */
export const MARKDOWN_MAX = 11_000;
/** The plain-text fallback beside a markdown block (notifications, screen readers): a glance, not all. */
export const FALLBACK_MAX = 3000;
export const MAX_SPLIT_PARTS = 4;
/**
 * The longest text rendered for Slack; longer text is uploaded as a file without being rendered.
 * MAX_SPLIT_PARTS markdown messages hold about 44,000 characters (4 × MARKDOWN_MAX), so text past this
 * cap would almost always become a file anyway (only text dense with mentions, which shrink when
 * defused, could have fit); rendering is linear, and the cap bounds it to ~50 KB whatever the service sends.
 */
export const RENDER_MAX = 48_000;
const TOOL_ARGS_SHOWN = 300;
const TOOL_RESULT_SHOWN = 500;

/** What to post for one agent message: text in one or more thread messages, or a file when too long. */
export type Rendered =
  | { kind: 'text'; parts: SlackMessage[] }
  | { kind: 'file'; filename: string; content: string; comment: string };

export interface ToolCallLike {
  name?: unknown;
  arguments?: unknown;
}

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    // A value JSON can't write (a BigInt from a custom parser): its own text, rather than nothing.
    return String(v);
  }
}

const count = (n: number) => n.toLocaleString('en-US');

/** Cuts a shown excerpt and says how much was left out (never a silent cut). */
function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${count(text.length - max)} more characters not shown)`;
}

export interface MessageText {
  /**
   * For Slack messages: escaped, Markdown turned into mrkdwn. Empty when `plain` is over RENDER_MAX:
   * such text is never rendered, it goes out as a file.
   */
  mrkdwn: string;
  /** The same words unescaped, for a file upload. */
  plain: string;
  /** Standard Markdown for Slack's `markdown` block, pings and links defused; when set, it is what is posted. */
  markdown?: string;
  /** Blocks that close the (last) message, e.g. the report's feedback buttons. */
  trailer?: KnownBlock[];
}

/** Text someone else wrote, shown in mrkdwn: escaped, and unable to ping anyone. */
export const safeMrkdwn = (text: string): string => escapeMrkdwn(defuseMentions(text));

const MRKDWN = {
  esc: safeMrkdwn,
  md: (s: string) => markdownToMrkdwn(safeMrkdwn(s)),
  fence: (s: string) => `\`\`\`${s}\`\`\``,
};
const PLAIN = { esc: (s: string) => s, md: (s: string) => s, fence: (s: string) => `\`\`\`${s}\`\`\`` };
/** Standard Markdown: a fence on its own lines (a one-line fence is not code in CommonMark). */
const MARKDOWN = {
  esc: safeMarkdown,
  md: safeMarkdown,
  fence: (s: string) => `\n\`\`\`\n${s}\n\`\`\``,
};

/**
 * The text a person reads for one message of the session; undefined when the message is shown another
 * way (a human-input request becomes a prompt) or has nothing to show.
 */
export function agentMessageText(
  message: Record<string, unknown>,
  options: { showReasoning: boolean },
): MessageText | undefined {
  const plain = render(message, options, PLAIN);
  if (plain === undefined) return undefined;
  // The cap comes before any rendering: text this long becomes a file, as it is.
  if (plain.length > RENDER_MAX) return { mrkdwn: '', plain };
  return {
    mrkdwn: render(message, options, MRKDWN) ?? '',
    plain,
    markdown: render(message, options, MARKDOWN) ?? '',
  };
}

/** The tool calls of a message, whatever shape they came in (entries that aren't objects are shown as text). */
function toolCallsOf(message: Record<string, unknown>): ToolCallLike[] {
  const calls = message.toolCalls ?? message.tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls
    .filter((call) => call !== null && call !== undefined)
    .map((call): ToolCallLike => (typeof call === 'object' ? toolCallFields(call) : { name: String(call) }));
}

/** A tool call's name and arguments, nested under `function` (OpenAI's shape) or not. */
export function toolCallFields(call: object): ToolCallLike {
  const fields: Record<string, unknown> = { ...call };
  const fn = fields.function;
  const inner: Record<string, unknown> = typeof fn === 'object' && fn !== null ? { ...fn } : {};
  return { name: inner.name ?? fields.name, arguments: inner.arguments ?? fields.arguments };
}

/**
 * One message as text. Tolerant of what the service may send: no role (shown as the agent's), no
 * content or `content: null` beside tool calls, content that isn't a string (shown as JSON), tool calls
 * on any role. Never throws; undefined only when there is truly nothing to show.
 */
function render(
  message: Record<string, unknown>,
  options: { showReasoning: boolean },
  dialect: { esc: (s: string) => string; md: (s: string) => string; fence: (s: string) => string },
): string | undefined {
  const { esc, md, fence } = dialect;
  if (message.name === 'human_input_needed') return undefined;
  const calls = toolCallsOf(message);
  const role =
    typeof message.role === 'string' && message.role ? message.role : calls.length ? 'assistant' : 'agent';
  const content = str(message.content).trim();
  const lines: string[] = [];
  if (options.showReasoning && typeof message.reasoning === 'string' && message.reasoning.trim()) {
    lines.push(`💭 _${esc(message.reasoning.trim())}_`);
  }
  switch (role) {
    case 'assistant':
      if (content) lines.push(md(content));
      break;
    case 'tool': {
      const name = str(message.name) || 'tool';
      lines.push(
        content
          ? `↳ \`${esc(name)}\` returned:\n${fence(esc(excerpt(content, TOOL_RESULT_SHOWN)))}`
          : `↳ \`${esc(name)}\` returned nothing`,
      );
      break;
    }
    case 'user':
      if (content) lines.push(`👤 ${esc(content)}`);
      break;
    default:
      if (content) lines.push(`_${esc(role)}:_ ${esc(content)}`);
  }
  for (const call of calls) {
    if (call.name === 'human_input_needed') continue;
    const name = str(call.name) || 'tool';
    const args = str(call.arguments);
    lines.push(`🔧 \`${esc(name)}\`${args ? ` \`${esc(excerpt(args, TOOL_ARGS_SHOWN))}\`` : ''}`);
  }
  const text = lines.join('\n');
  return text === '' ? undefined : text;
}

/** Lays text out for Slack: one message, several, or a file — whichever keeps every character. */
export function layoutText(message: MessageText, fileStem: string): Rendered {
  if (message.plain.length > RENDER_MAX) return asFile(message, fileStem);
  const laid =
    message.markdown === undefined ? layoutMrkdwn(message, fileStem) : layoutMarkdown(message, fileStem);
  if (laid.kind === 'text' && message.trailer?.length) {
    const last = laid.parts[laid.parts.length - 1];
    if (last) last.blocks = [...last.blocks, ...message.trailer];
  }
  return laid;
}

/** Markdown in `markdown` blocks, one per message; past MAX_SPLIT_PARTS messages, a file. */
function layoutMarkdown(message: MessageText, fileStem: string): Rendered {
  const text = message.markdown ?? '';
  const fallback = (s: string) => truncate(safeMrkdwn(s), FALLBACK_MAX);
  if (text.length <= MARKDOWN_MAX) {
    // No words, only the trailer's blocks (a message of tool calls shown as cards).
    const blocks: KnownBlock[] = text === '' ? [] : [{ type: 'markdown', text }];
    return { kind: 'text', parts: [{ text: fallback(message.plain), blocks }] };
  }
  // More than MAX_SPLIT_PARTS full parts: a file, without splitting it to count.
  if (text.length > MAX_SPLIT_PARTS * (MARKDOWN_MAX - 30)) return asFile(message, fileStem);
  const parts = splitText(text, MARKDOWN_MAX - 30);
  if (parts.length <= MAX_SPLIT_PARTS) {
    return {
      kind: 'text',
      parts: parts.map((part, i) => {
        const labelled = `${part}\n\n_(part ${i + 1} of ${parts.length})_`;
        return { text: fallback(labelled), blocks: [{ type: 'markdown', text: labelled }] };
      }),
    };
  }
  return asFile(message, fileStem);
}

function asFile(message: MessageText, fileStem: string): Rendered {
  const newline = message.plain.indexOf('\n');
  const firstLine = message.plain.slice(0, newline === -1 ? 201 : Math.min(newline, 201));
  return {
    kind: 'file',
    filename: `${fileStem}.md`,
    content: message.plain,
    comment: `📎 ${count(message.plain.length)} characters, too long for a message: the whole text is in the attached file.\n> ${safeMrkdwn(firstLine.slice(0, 200))}${firstLine.length > 200 ? '…' : ''}`,
  };
}

function layoutMrkdwn(message: MessageText, fileStem: string): Rendered {
  const text = message.mrkdwn;
  if (text.length <= SECTION_MAX) {
    return { kind: 'text', parts: [{ text, blocks: [section(text)] }] };
  }
  if (text.length > MAX_SPLIT_PARTS * (SECTION_MAX - 30)) return asFile(message, fileStem);
  const parts = splitText(text, SECTION_MAX - 30);
  if (parts.length <= MAX_SPLIT_PARTS) {
    return {
      kind: 'text',
      parts: parts.map((part, i) => {
        const labelled = `${part}\n_(part ${i + 1} of ${parts.length})_`;
        return { text: labelled, blocks: [section(labelled)] };
      }),
    };
  }
  return asFile(message, fileStem);
}
