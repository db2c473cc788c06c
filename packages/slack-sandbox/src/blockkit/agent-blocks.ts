/**
 * The blocks made for agents, as @slack/types 3.2.0 types them: `task_card` (one task or tool call:
 * task_id, title, status, optional details / output as rich_text and url sources) and `plan` (a title and
 * its task cards).
 */

import { type Checker, isObj, type Obj } from './checker.js';

const TASK_STATUSES = ['pending', 'in_progress', 'complete', 'error'];

export function checkTaskCard(checker: Checker, block: Obj, pointer: string): void {
  checker.string(block.task_id, `${pointer}/task_id`, 255, true);
  checker.string(block.title, `${pointer}/title`, 255, true);
  if (!TASK_STATUSES.includes(String(block.status)))
    checker.fail(`${pointer}/status`, `must be one of ${TASK_STATUSES.join(', ')}`);
  for (const part of ['details', 'output'] as const) {
    const value = block[part];
    if (value !== undefined && !(isObj(value) && value.type === 'rich_text'))
      checker.fail(`${pointer}/${part}`, 'must be a rich_text block');
  }
  if (block.sources !== undefined && !Array.isArray(block.sources))
    checker.fail(`${pointer}/sources`, 'must provide an array');
}

export function checkPlan(checker: Checker, block: Obj, pointer: string): void {
  checker.string(block.title, `${pointer}/title`, 255, true);
  if (block.tasks === undefined) return;
  if (!Array.isArray(block.tasks)) {
    checker.fail(`${pointer}/tasks`, 'must provide an array');
    return;
  }
  block.tasks.forEach((task, i) => {
    const p = `${pointer}/tasks/${i}`;
    if (!isObj(task) || task.type !== 'task_card') checker.fail(`${p}/type`, 'must be task_card');
    else checkTaskCard(checker, task, p);
  });
}
