/**
 * The blocks made for agents, as the page shows them: a `task_card` (one task or tool call, its status as
 * an icon and a `data-status`, its details, output and sources) and a `plan` (a title, its progress and
 * its task cards). Pure functions like render.ts, which hands them the blocks it doesn't know itself; the
 * browser loads this module beside it (`/web/render-agent.js`).
 */

type Obj = Record<string, unknown>;

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** How Slack marks a task's state; the word is also the `data-status` tests and the browser look for. */
export const TASK_ICONS: Record<string, string> = {
  pending: '○',
  in_progress: '◐',
  complete: '✓',
  error: '✕',
};
const LABELS: Record<string, string> = {
  pending: 'Pending',
  in_progress: 'In progress',
  complete: 'Done',
  error: 'Failed',
};

/** A rich_text block's words, as plain text (task details and output are rich_text). */
export function richTextWords(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return '';
  const node = value as Obj;
  if (typeof node.text === 'string' && node.type === 'text') return node.text;
  if (node.type === 'link') return String(node.text ?? node.url ?? '');
  const children = Array.isArray(node.elements) ? (node.elements as unknown[]) : [];
  return children.map(richTextWords).join(node.type === 'rich_text' ? '\n' : '');
}

function sources(value: unknown): string {
  if (!Array.isArray(value) || value.length === 0) return '';
  const links = (value as Obj[])
    .map((s) => {
      const url = String(s.url ?? '');
      const href = /^https?:/i.test(url) ? url : '#';
      return `<a href="${esc(href)}" target="_blank" rel="noopener">${esc(String(s.text ?? url))}</a>`;
    })
    .join(' · ');
  return `<div class="task-sources">Sources: ${links}</div>`;
}

export function renderTaskCard(block: Obj): string {
  const status = String(block.status ?? 'pending');
  const known = status in TASK_ICONS ? status : 'pending';
  const details = richTextWords(block.details);
  const output = richTextWords(block.output);
  return `<div class="block task-card status-${known}" data-testid="task-card" data-task-id="${esc(String(block.task_id ?? ''))}" data-status="${esc(status)}">
<span class="task-icon" aria-hidden="true">${TASK_ICONS[known]}</span><span class="task-title">${esc(String(block.title ?? ''))}</span><span class="task-state">${LABELS[known]}</span>${
    details ? `<div class="task-details">${esc(details)}</div>` : ''
  }${output ? `<pre class="task-output">${esc(output)}</pre>` : ''}${sources(block.sources)}</div>`;
}

export function renderPlan(block: Obj): string {
  const tasks = Array.isArray(block.tasks) ? (block.tasks as Obj[]) : [];
  const done = tasks.filter((t) => t.status === 'complete').length;
  return `<div class="block plan" data-testid="plan" role="group" aria-label="${esc(String(block.title ?? 'Plan'))}"><div class="plan-title">${esc(String(block.title ?? 'Plan'))} <small data-testid="plan-progress">${done}/${tasks.length} done</small></div>${tasks
    .map(renderTaskCard)
    .join('')}</div>`;
}

/** A block for agents as HTML, or undefined for any other type. */
export function renderAgentBlock(block: Obj): string | undefined {
  if (block.type === 'task_card') return renderTaskCard(block);
  if (block.type === 'plan') return renderPlan(block);
  return undefined;
}
