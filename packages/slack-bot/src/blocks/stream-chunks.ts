/**
 * The agent's work as chunks of one of Slack's streaming messages (chat.startStream / appendStream): its
 * text as `markdown_text`, each tool call as a `task_update` that moves pending → in_progress →
 * complete / error with its result as output. Pure: a message in, stream pieces out; pieces and the
 * tasks seen so far in, chunks out.
 */
import type { AnyChunk, TaskUpdateChunk } from '@slack/types';
import { FALLBACK_MAX, safeMrkdwn, toolCallFields } from './agent-message.js';
import { safeMarkdown } from './markup.js';
import { type SlackMessage, splitText, truncate } from './text.js';

/** Slack's limit on a streaming message's markdown (and on each call's `markdown_text`). */
export const STREAM_MAX_CHARS = 12_000;
/** What one piece of text may hold: a continuation's label and a task beside it still fit a stream. */
export const PIECE_MAX_CHARS = 10_000;
const TITLE_MAX = 200;
const DETAILS_MAX = 300;
const OUTPUT_MAX = 1_000;
/** The label a continuation stream begins with. */
export const CONTINUATION_LABEL = '_(continued from the message above)_\n\n';
/**
 * The label of a stream that goes on after Slack stopped the one above on a Stop click the bot refused
 * (Slack stops the thread's streams on any click; whether the session stops is the app's to decide).
 */
export const AFTER_REFUSED_STOP_LABEL = '_(Stop was pressed but not applied: the agent goes on here)_\n\n';
/** Room a stream keeps for either label. */
export const LABEL_MAX_CHARS = Math.max(CONTINUATION_LABEL.length, AFTER_REFUSED_STOP_LABEL.length);

/** A tool call as a task: its id, what it is called, and its arguments shown as details. */
export interface TaskCall {
  id: string;
  title: string;
  details?: string;
}

/** A tool's result: its call's task is done (or failed), with the result as output. */
export interface TaskResult {
  id: string;
  title: string;
  output?: string;
  failed: boolean;
}

/**
 * One piece of the agent's work as it goes into a stream, recorded with its key (so a crash finds it
 * again): markdown, tool calls announced, or a tool's result. A long text is several pieces.
 */
export interface StreamPiece {
  markdown?: string;
  calls?: TaskCall[];
  result?: TaskResult;
}

export type TaskStatus = TaskUpdateChunk['status'];
/** What the stream shows of each task so far, by id, in the order they came. */
export type TaskStates = Record<string, { title: string; status: TaskStatus }>;

const count = (n: number) => n.toLocaleString('en-US');

/** A shown excerpt that says how much was left out (never a silent cut). */
function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${count(text.length - max)} more characters not shown)`;
}

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** A tool message that says it failed: an error flag, an error field, or content that starts "Error". */
function failed(message: Record<string, unknown>, content: string): boolean {
  if (message.isError === true || message.is_error === true) return true;
  if (typeof message.error === 'string' && message.error.trim() !== '') return true;
  return /^\s*(error|exception|traceback)\b/i.test(content);
}

/**
 * One message of the session as stream pieces; empty when it has nothing to show there (a question is a
 * prompt of its own, an empty message). Reasoning only with `showReasoning`. Tolerant as the classic
 * rendering is: any role, content that isn't a string, tool calls in either shape.
 */
export function streamPiecesOf(
  message: Record<string, unknown>,
  options: { showReasoning: boolean; fallbackId: string },
): StreamPiece[] {
  if (message.name === 'human_input_needed') return [];
  const rawCalls = message.toolCalls ?? message.tool_calls;
  const calls = (Array.isArray(rawCalls) ? rawCalls : [])
    .filter((c) => c !== null && c !== undefined)
    .map((c, i): TaskCall | undefined => {
      const fields = typeof c === 'object' ? toolCallFields(c) : { name: String(c) };
      const name = str(fields.name) || 'tool';
      if (name === 'human_input_needed') return undefined;
      const id =
        typeof c === 'object' && typeof (c as { id?: unknown }).id === 'string'
          ? (c as { id: string }).id
          : '';
      const args = str(fields.arguments);
      return {
        id: id || `${options.fallbackId}:${i}`,
        title: excerpt(safeMarkdown(name), TITLE_MAX),
        ...(args ? { details: excerpt(safeMarkdown(args), DETAILS_MAX) } : {}),
      };
    })
    .filter((c): c is TaskCall => c !== undefined);
  const role =
    typeof message.role === 'string' && message.role ? message.role : calls.length ? 'assistant' : 'agent';
  const content = str(message.content).trim();
  const lines: string[] = [];
  if (options.showReasoning && typeof message.reasoning === 'string' && message.reasoning.trim()) {
    lines.push(`💭 _${safeMarkdown(message.reasoning.trim())}_`);
  }
  const pieces: StreamPiece[] = [];
  if (role === 'tool') {
    const id = typeof message.toolCallId === 'string' && message.toolCallId ? message.toolCallId : '';
    const name = str(message.name) || 'tool';
    const result: TaskResult = {
      id: id || options.fallbackId,
      title: excerpt(safeMarkdown(name), TITLE_MAX),
      failed: failed(message, content),
      ...(content ? { output: excerpt(safeMarkdown(content), OUTPUT_MAX) } : {}),
    };
    for (const text of markdownPieces(lines)) pieces.push({ markdown: text });
    pieces.push({ result });
    return pieces;
  }
  if (content) {
    if (role === 'assistant') lines.push(safeMarkdown(content));
    else if (role === 'user') lines.push(`👤 ${safeMarkdown(content)}`);
    else lines.push(`_${safeMarkdown(role)}:_ ${safeMarkdown(content)}`);
  }
  for (const text of markdownPieces(lines)) pieces.push({ markdown: text });
  if (calls.length > 0) {
    const last = pieces.at(-1);
    if (last && !last.result) last.calls = calls;
    else pieces.push({ calls });
  }
  return pieces;
}

/** Text in pieces that each fit a stream with room to spare; a paragraph break after each message. */
function markdownPieces(lines: string[]): string[] {
  const text = lines.join('\n');
  if (!text) return [];
  const parts = text.length <= PIECE_MAX_CHARS ? [text] : splitText(text, PIECE_MAX_CHARS);
  return parts.map((part, i) =>
    parts.length > 1 ? `${part}\n\n_(part ${i + 1} of ${parts.length})_\n\n` : `${part}\n\n`,
  );
}

/** The characters a piece adds to a stream (Slack's limit counts what the message shows). */
export function pieceChars(piece: StreamPiece): number {
  let n = piece.markdown?.length ?? 0;
  for (const c of piece.calls ?? []) n += c.title.length + (c.details?.length ?? 0);
  if (piece.result) n += piece.result.title.length + (piece.result.output?.length ?? 0);
  return n;
}

/**
 * The chunks for pieces appended to a stream whose tasks stand at `tasks`: markdown in order, each call
 * `pending` (the first of a message `in_progress`), each result `complete` or `error`, and the next
 * pending task then `in_progress`. Returns the tasks as they stand after.
 */
export function chunksFor(
  pieces: readonly StreamPiece[],
  tasks: TaskStates,
): { chunks: AnyChunk[]; tasks: TaskStates } {
  const next: TaskStates = { ...tasks };
  const chunks: AnyChunk[] = [];
  const set = (id: string, title: string, status: TaskStatus, extra: Partial<TaskUpdateChunk> = {}) => {
    next[id] = { title, status };
    chunks.push({ type: 'task_update', id, title, status, ...extra });
  };
  const running = () => Object.values(next).some((t) => t.status === 'in_progress');
  const startNextPending = () => {
    if (running()) return;
    const waiting = Object.entries(next).find(([, t]) => t.status === 'pending');
    if (waiting) set(waiting[0], waiting[1].title, 'in_progress');
  };
  for (const piece of pieces) {
    if (piece.markdown) chunks.push({ type: 'markdown_text', text: piece.markdown });
    for (const call of piece.calls ?? []) {
      const status = running() ? 'pending' : 'in_progress';
      set(call.id, call.title, status, call.details ? { details: call.details } : {});
    }
    if (piece.result) {
      const { id, output, failed: isError } = piece.result;
      const title = next[id]?.title ?? piece.result.title;
      set(id, title, isError ? 'error' : 'complete', output ? { output } : {});
      startNextPending();
    }
  }
  return { chunks, tasks: next };
}

/** The chunk a continuation stream begins with (its label: past the limit, or after a refused Stop). */
export function continuationChunk(label: string = CONTINUATION_LABEL): AnyChunk {
  return { type: 'markdown_text', text: label };
}

/**
 * The words of a streamed message as Slack gives it back (its text and every string in its blocks),
 * to tell after a crash whether an append whose answer was lost got into it.
 */
export function shownText(message: { text?: unknown; blocks?: unknown }): string {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) for (const v of value) walk(v);
    else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) walk(v);
  };
  walk(message.text);
  walk(message.blocks);
  return out.join('\n');
}

/** Whether what a message shows holds these pieces (their text, or their tasks' ids and titles). */
export function showsPieces(shown: string, pieces: readonly StreamPiece[]): boolean {
  return pieces.every((p) => {
    if (p.markdown && !shown.includes(p.markdown.trim())) return false;
    for (const c of p.calls ?? []) if (!shown.includes(c.id) && !shown.includes(c.title)) return false;
    if (p.result?.output && !shown.includes(p.result.output)) return false;
    return true;
  });
}

/**
 * A piece as a classic thread message, recorded with it: where Slack has no streams (or refuses this
 * content in one) it is posted the classic way, nothing lost.
 */
export function pieceAsMessage(piece: StreamPiece): SlackMessage {
  const lines: string[] = [];
  if (piece.markdown) lines.push(piece.markdown.trim());
  for (const c of piece.calls ?? []) lines.push(`🔧 \`${c.title}\`${c.details ? ` \`${c.details}\`` : ''}`);
  if (piece.result) {
    const { title, output, failed: isError } = piece.result;
    lines.push(
      `↳ \`${title}\` ${isError ? 'failed' : 'returned'}${output ? `:\n\`\`\`\n${output}\n\`\`\`` : ''}`,
    );
  }
  const text = lines.join('\n');
  return { text: truncate(safeMrkdwn(text), FALLBACK_MAX), blocks: [{ type: 'markdown', text }] };
}
