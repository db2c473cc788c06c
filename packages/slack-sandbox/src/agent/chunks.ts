/**
 * Streaming chunks (`markdown_text`, `task_update`, `plan_update`, `blocks`) checked as @slack/types 3.2.0
 * types them, and laid onto a stream. A refused chunk is named by its index and field.
 */

import { describeProblem, validateBlocks } from '../blockkit/validate.js';
import { type StreamRecord, TASK_STATUSES, type TaskStatus, type UrlSource } from './records.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One chunk that passed: what `applyChunk` lays onto a stream. */
export type Chunk =
  | { type: 'markdown_text'; text: string }
  | {
      type: 'task_update';
      id: string;
      title: string;
      status: TaskStatus;
      details?: string;
      output?: string;
      sources?: UrlSource[];
    }
  | { type: 'plan_update'; title: string }
  | { type: 'blocks'; blocks: unknown[] };

const MAX_CHUNK_BLOCKS = 50;

function sources(value: unknown, at: string, problems: string[]): UrlSource[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.push(`${at}.sources must be an array of url sources`);
    return undefined;
  }
  return value.flatMap((s, i) => {
    if (
      !isObj(s) ||
      s.type !== 'url' ||
      typeof s.url !== 'string' ||
      typeof s.text !== 'string' ||
      s.text === ''
    ) {
      problems.push(`${at}.sources[${i}] must be {type: "url", url, text} with a non-empty text`);
      return [];
    }
    return [{ type: 'url' as const, url: s.url, text: s.text }];
  });
}

const optionalString = (chunk: Obj, name: string, at: string, problems: string[]): string | undefined => {
  const v = chunk[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') problems.push(`${at}.${name} must be a string`);
  return typeof v === 'string' ? v : undefined;
};

const requiredString = (chunk: Obj, name: string, at: string, problems: string[]): string => {
  const v = chunk[name];
  if (typeof v !== 'string' || v === '') problems.push(`${at}.${name} must be a non-empty string`);
  return typeof v === 'string' ? v : '';
};

/** The chunks, or the problems that make Slack answer `invalid_chunks`. */
export function parseChunks(value: unknown): { chunks: Chunk[]; problems: string[] } {
  const problems: string[] = [];
  // An empty list is no content (Slack's own ChatStreamer stops a stream with `chunks: []`).
  if (!Array.isArray(value)) return { chunks: [], problems: ['chunks must be an array of chunk objects'] };
  const chunks = value.flatMap((chunk, i): Chunk[] => {
    const at = `chunks[${i}]`;
    if (!isObj(chunk)) {
      problems.push(`${at} must be an object`);
      return [];
    }
    switch (chunk.type) {
      case 'markdown_text':
        return [{ type: 'markdown_text', text: requiredString(chunk, 'text', at, problems) }];
      case 'plan_update':
        return [{ type: 'plan_update', title: requiredString(chunk, 'title', at, problems) }];
      case 'task_update': {
        const status = chunk.status;
        if (!(TASK_STATUSES as readonly unknown[]).includes(status))
          problems.push(`${at}.status must be one of ${TASK_STATUSES.join(', ')}`);
        const details = optionalString(chunk, 'details', at, problems);
        const output = optionalString(chunk, 'output', at, problems);
        const urls = sources(chunk.sources, at, problems);
        return [
          {
            type: 'task_update',
            id: requiredString(chunk, 'id', at, problems),
            title: requiredString(chunk, 'title', at, problems),
            status: status as TaskStatus,
            ...(details !== undefined ? { details } : {}),
            ...(output !== undefined ? { output } : {}),
            ...(urls ? { sources: urls } : {}),
          },
        ];
      }
      case 'blocks': {
        const blocks = chunk.blocks;
        if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > MAX_CHUNK_BLOCKS) {
          problems.push(`${at}.blocks must be an array of 1 to ${MAX_CHUNK_BLOCKS} blocks`);
          return [];
        }
        const found = validateBlocks(blocks, 'message', `/chunks/${i}/blocks`);
        problems.push(...found.map(describeProblem));
        return [{ type: 'blocks', blocks }];
      }
      default:
        problems.push(`${at}.type must be one of markdown_text, task_update, plan_update, blocks`);
        return [];
    }
  });
  return { chunks, problems };
}

/** How many markdown characters a call brings (its `markdown_text`, or its markdown_text chunks). */
export const markdownChars = (chunks: Chunk[]): number =>
  chunks.reduce((n, c) => n + (c.type === 'markdown_text' ? c.text.length : 0), 0);

/** Lays one chunk onto a stream: text appends, a task is added or updated in place, a plan retitled. */
export function applyChunk(stream: StreamRecord, chunk: Chunk): void {
  if (chunk.type === 'markdown_text') {
    if (chunk.text !== '') stream.parts.push({ kind: 'text', text: chunk.text });
  } else if (chunk.type === 'plan_update') {
    stream.planTitle = chunk.title;
  } else if (chunk.type === 'blocks') {
    stream.parts.push({ kind: 'blocks', blocks: chunk.blocks });
  } else {
    const { type, ...fields } = chunk;
    const task = stream.tasks.find((t) => t.id === chunk.id);
    if (task) {
      Object.assign(task, fields);
      if (task.statuses.at(-1) !== chunk.status) task.statuses.push(chunk.status);
    } else {
      stream.tasks.push({ ...fields, statuses: [chunk.status] });
      stream.parts.push({ kind: 'task', id: chunk.id });
    }
  }
}
