import { escapeMrkdwn, splitText } from './text.js';

/** Section text holds 3000 characters; longer parts become several messages, then a file. */
export const SECTION_MAX = 3000;
export const MAX_SPLIT_PARTS = 4;
const TOOL_ARGS_SHOWN = 300;
const TOOL_RESULT_SHOWN = 500;

/** What to post for one agent message: text in one or more thread messages, or a file when too long. */
export type Rendered =
  | { kind: 'text'; parts: Array<{ text: string; blocks: unknown[] }> }
  | { kind: 'file'; filename: string; content: string; comment: string };

interface ToolCallLike {
  function?: { name?: unknown; arguments?: unknown };
  name?: unknown;
  arguments?: unknown;
}

const str = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v, null, 2);

const count = (n: number) => n.toLocaleString('en-US');

/** Markdown as agents write it -> Slack mrkdwn, on text already escaped. */
export function markdownToMrkdwn(escaped: string): string {
  return escaped
    .replace(/\*\*(.+?)\*\*/g, '*$1*')
    .replace(/^#{1,6}\s+(.+)$/gm, '*$1*')
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, '<$2|$1>');
}

/** Cuts a shown excerpt and says how much was left out (never a silent cut). */
function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${count(text.length - max)} more characters not shown)`;
}

function isHumanInputCall(call: ToolCallLike): boolean {
  return (call.function?.name ?? call.name) === 'human_input_needed';
}

export interface MessageText {
  /** For Slack messages: escaped, Markdown turned into mrkdwn. */
  mrkdwn: string;
  /** The same words unescaped, for a file upload. */
  plain: string;
}

/**
 * The text a person reads for one message of the session; undefined when the message is shown another
 * way (a human-input request becomes a prompt) or has nothing to show.
 */
export function agentMessageText(
  message: Record<string, unknown>,
  options: { showReasoning: boolean },
): MessageText | undefined {
  const mrkdwn = render(message, options, escapeMrkdwn, (s) => markdownToMrkdwn(escapeMrkdwn(s)));
  if (mrkdwn === undefined) return undefined;
  const identity = (s: string) => s;
  return { mrkdwn, plain: render(message, options, identity, identity) ?? '' };
}

function render(
  message: Record<string, unknown>,
  options: { showReasoning: boolean },
  esc: (s: string) => string,
  md: (s: string) => string,
): string | undefined {
  if (message.name === 'human_input_needed') return undefined;
  const role = typeof message.role === 'string' ? message.role : 'agent';
  const content = str(message.content).trim();
  const lines: string[] = [];
  if (options.showReasoning && typeof message.reasoning === 'string' && message.reasoning.trim()) {
    lines.push(`💭 _${esc(message.reasoning.trim())}_`);
  }
  const calls = Array.isArray(message.toolCalls) ? (message.toolCalls as ToolCallLike[]) : [];
  switch (role) {
    case 'assistant':
      if (content) lines.push(md(content));
      for (const call of calls) {
        if (isHumanInputCall(call)) continue;
        const name = str(call.function?.name ?? call.name) || 'tool';
        const args = str(call.function?.arguments ?? call.arguments);
        lines.push(`🔧 \`${esc(name)}\`${args ? ` \`${esc(excerpt(args, TOOL_ARGS_SHOWN))}\`` : ''}`);
      }
      break;
    case 'tool': {
      const name = str(message.name) || 'tool';
      lines.push(
        content
          ? `↳ \`${esc(name)}\` returned:\n\`\`\`${esc(excerpt(content, TOOL_RESULT_SHOWN))}\`\`\``
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
  const text = lines.join('\n');
  return text === '' ? undefined : text;
}

/** Lays text out for Slack: one message, several, or a file — whichever keeps every character. */
export function layoutText(message: MessageText, fileStem: string): Rendered {
  const text = message.mrkdwn;
  if (text.length <= SECTION_MAX) {
    return { kind: 'text', parts: [{ text, blocks: [section(text)] }] };
  }
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
  const firstLine = message.plain.split('\n', 1)[0] ?? '';
  return {
    kind: 'file',
    filename: `${fileStem}.md`,
    content: message.plain,
    comment: `📎 ${count(message.plain.length)} characters, too long for a message: the whole text is in the attached file.\n> ${escapeMrkdwn(firstLine.slice(0, 200))}${firstLine.length > 200 ? '…' : ''}`,
  };
}

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
