/**
 * Finding each agent message in its Slack thread by content. A paced bot may batch several agent messages
 * into one post, so a post is not a message: each agent message is looked for as a needle (a distinctive
 * piece of its text as the bot renders it) in the text of the thread's posts, and must be there exactly
 * as many times as the session has messages with that needle.
 */

/** One agent message as the service lists it (the fields the needle is taken from). */
export interface AgentMessage {
  role?: unknown;
  content?: unknown;
  name?: unknown;
  toolCalls?: unknown;
}

/** What a person sees of a Slack message: the strings of its blocks (or its `text` without blocks). */
export function visibleText(message: { text?: string; blocks?: unknown[]; files?: unknown[] }): string {
  const parts: string[] = [];
  const walk = (node: unknown, key: string | undefined): void => {
    if (typeof node === 'string') {
      if (key === 'text') parts.push(node);
    } else if (Array.isArray(node)) {
      for (const item of node) walk(item, key);
    } else if (node && typeof node === 'object') {
      // A streamed task shows its tool as the classic thread's "🔧 `name`" line does.
      const task = node as { type?: unknown; title?: unknown };
      if (task.type === 'task_card' && typeof task.title === 'string') parts.push(`🔧 \`${task.title}\``);
      for (const [k, v] of Object.entries(node)) walk(v, k);
    }
  };
  if (message.blocks?.length) walk(message.blocks, undefined);
  else parts.push(message.text ?? '');
  return parts.join('\n');
}

/** Slack's mrkdwn escaping, as the bot applies it to agent text. */
const escapeMrkdwn = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** How much of a long first line a needle keeps: within the preview an uploaded message shows. */
const NEEDLE_CHARS = 120;

/** The needle of an agent message, or undefined for one the bot shows another way (a question). */
export function needleOf(message: AgentMessage): string | undefined {
  if (message.name === 'human_input_needed') return undefined;
  const content = typeof message.content === 'string' ? message.content.trim() : '';
  if (content) {
    // The first line, cut short at a word's end (a needle ending inside a word is not found as a whole
    // phrase): long texts are split into parts or uploaded, whose preview shows the start.
    const line = content.split('\n', 1)[0] ?? '';
    const first = line.length > NEEDLE_CHARS ? line.slice(0, NEEDLE_CHARS).replace(/\s+\S*$/, '') : line;
    return escapeMrkdwn(first);
  }
  const calls = Array.isArray(message.toolCalls) ? (message.toolCalls as Array<Record<string, unknown>>) : [];
  const names = calls
    .map((c) => c.name ?? (c.function as Record<string, unknown> | undefined)?.name)
    .filter((n): n is string => typeof n === 'string' && n !== 'human_input_needed');
  // A tool call without content is rendered as "🔧 `name` `args`".
  return names.length ? `🔧 \`${escapeMrkdwn(names[0] as string)}\`` : undefined;
}

/**
 * How often `needle` occurs in `text` as a whole phrase: not inside a longer word or number, so
 * "Step 1:" is not found in "Step 12:" and "note 3" not in "note 30".
 */
export function occurrences(text: string, needle: string): number {
  if (!needle) return 0;
  let n = 0;
  let from = 0;
  for (;;) {
    const at = text.indexOf(needle, from);
    if (at < 0) return n;
    const before = text[at - 1];
    const after = text[at + needle.length];
    const word = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
    if (!(word(before) && word(needle[0])) && !(word(after) && word(needle.at(-1)))) n += 1;
    from = at + needle.length;
  }
}
