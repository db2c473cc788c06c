/**
 * What a streamed message looks like as a Slack message: its `text` is the markdown streamed so far, its
 * `blocks` the parts in arrival order — text as `markdown` blocks, tasks as `task_card` blocks where they
 * first appeared (timeline) or all together in one `plan` block where the first task appeared (plan),
 * `blocks` chunks as they are — then chat.stopStream's `blocks` at the bottom.
 */

import type { StreamRecord, StreamTask } from './records.js';

type Obj = Record<string, unknown>;

const richText = (text: string): Obj => ({
  type: 'rich_text',
  elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }],
});

export function taskCard(task: StreamTask): Obj {
  return {
    type: 'task_card',
    task_id: task.id,
    title: task.title,
    status: task.status,
    ...(task.details !== undefined ? { details: richText(task.details) } : {}),
    ...(task.output !== undefined ? { output: richText(task.output) } : {}),
    ...(task.sources ? { sources: task.sources } : {}),
  };
}

/** The markdown streamed so far, in order. */
export function streamText(stream: StreamRecord): string {
  return stream.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
}

export function streamBlocks(stream: StreamRecord): unknown[] {
  const out: unknown[] = [];
  const tasks = new Map(stream.tasks.map((t) => [t.id, t]));
  let planShown = false;
  for (const part of stream.parts) {
    if (part.kind === 'text') {
      const last = out.at(-1) as Obj | undefined;
      if (last?.type === 'markdown' && last.streamed === true) last.text = `${String(last.text)}${part.text}`;
      else out.push({ type: 'markdown', text: part.text, streamed: true });
    } else if (part.kind === 'blocks') {
      out.push(...part.blocks);
    } else if (stream.displayMode === 'timeline') {
      const task = tasks.get(part.id);
      if (task) out.push(taskCard(task));
    } else if (!planShown) {
      planShown = true;
      out.push({ type: 'plan', title: stream.planTitle ?? 'Plan', tasks: stream.tasks.map(taskCard) });
    }
  }
  if (!planShown && stream.displayMode === 'plan' && stream.planTitle !== undefined)
    out.push({ type: 'plan', title: stream.planTitle, tasks: [] });
  out.push(...stream.finalBlocks);
  // `streamed` only marks which markdown blocks the text joins; Slack's blocks have no such field.
  return out.map((b) => {
    if ((b as Obj).streamed !== true) return b;
    const { streamed, ...rest } = b as Obj;
    return rest;
  });
}
