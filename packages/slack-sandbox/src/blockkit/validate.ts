/**
 * Block Kit payloads checked against Slack's published limits, so a bot that overflows fails its tests
 * here as it would in Slack. Each problem is reported as Slack words it: a message and a JSON pointer.
 */

import { checkPlan, checkTaskCard } from './agent-blocks.js';
import { type BlockKitProblem, Checker, isObj, type Obj } from './checker.js';

export type { BlockKitProblem } from './checker.js';

export type Surface = 'message' | 'modal' | 'home';

const MAX_BLOCKS: Record<Surface, number> = { message: 50, modal: 100, home: 100 };
const BLOCK_TYPES = new Set([
  'section',
  'context',
  'header',
  'divider',
  'actions',
  'input',
  'image',
  'rich_text',
  'video',
  'file',
  'markdown',
  'context_actions',
  'task_card',
  'plan',
]);
/** Slack's `markdown` block: standard Markdown, at most 12,000 characters across a message's markdown blocks. */
export const MAX_MARKDOWN_CHARS = 12_000;
const MESSAGE_ONLY = new Set(['markdown', 'context_actions']);
const INPUT_ELEMENTS = new Set([
  'plain_text_input',
  'static_select',
  'multi_static_select',
  'checkboxes',
  'radio_buttons',
  'users_select',
  'multi_users_select',
  'conversations_select',
  'channels_select',
  'datepicker',
  'timepicker',
  'number_input',
  'email_text_input',
  'url_text_input',
  'rich_text_input',
]);
const ACTION_ELEMENTS = new Set([...INPUT_ELEMENTS, 'button', 'overflow']);

/** Counts an element's action_id against the others of its block (`undefined`: the element has none). */
type TrackAction = (id: string | undefined, pointer: string) => void;

/** Block and element rules on top of the shared checks. */
class BlockChecker extends Checker {
  element(value: unknown, pointer: string, allowed: Set<string>): string | undefined {
    if (!isObj(value)) {
      this.fail(pointer, 'must provide an object');
      return undefined;
    }
    const type = String(value.type);
    if (!allowed.has(type)) {
      this.fail(`${pointer}/type`, `element type ${type} is not allowed here`);
      return undefined;
    }
    this.string(value.action_id, `${pointer}/action_id`, 255);
    this.confirm(value.confirm, `${pointer}/confirm`);
    switch (type) {
      case 'button':
        this.text(value.text, `${pointer}/text`, 75, { plainOnly: true });
        this.string(value.value, `${pointer}/value`, 2000);
        this.string(value.url, `${pointer}/url`, 3000);
        if (value.style !== undefined && value.style !== 'primary' && value.style !== 'danger') {
          this.fail(`${pointer}/style`, 'must be one of primary, danger');
        }
        break;
      case 'static_select':
      case 'multi_static_select': {
        this.text(value.placeholder, `${pointer}/placeholder`, 150, { plainOnly: true, required: false });
        const values = this.options(value.options, `${pointer}/options`, 100);
        const initial = value.initial_option;
        if (isObj(initial) && !values.includes(String(initial.value))) {
          this.fail(`${pointer}/initial_option`, 'must be one of the provided options');
        }
        if (value.max_selected_items !== undefined && !(Number(value.max_selected_items) >= 1)) {
          this.fail(`${pointer}/max_selected_items`, 'must be at least 1');
        }
        break;
      }
      case 'checkboxes':
      case 'radio_buttons':
        this.options(value.options, `${pointer}/options`, 10);
        break;
      case 'overflow':
        this.options(value.options, `${pointer}/options`, 5);
        break;
      case 'plain_text_input':
        this.text(value.placeholder, `${pointer}/placeholder`, 150, { plainOnly: true, required: false });
        this.string(value.initial_value, `${pointer}/initial_value`, 3000);
        if (
          value.max_length !== undefined &&
          !(Number(value.max_length) >= 1 && Number(value.max_length) <= 3000)
        ) {
          this.fail(`${pointer}/max_length`, 'must be between 1 and 3000');
        }
        break;
    }
    return typeof value.action_id === 'string' ? value.action_id : undefined;
  }

  block(block: unknown, pointer: string, surface: Surface, blockIds: Set<string>): void {
    if (!isObj(block)) {
      this.fail(pointer, 'must provide an object');
      return;
    }
    const type = String(block.type);
    if (!BLOCK_TYPES.has(type)) {
      this.fail(`${pointer}/type`, `unknown block type ${type}`);
      return;
    }
    if (block.block_id !== undefined) {
      this.string(block.block_id, `${pointer}/block_id`, 255, true);
      if (typeof block.block_id === 'string') {
        if (blockIds.has(block.block_id)) this.fail(`${pointer}/block_id`, 'block_id must be unique');
        blockIds.add(block.block_id);
      }
    }
    const actionIds = new Set<string>();
    const trackAction = (id: string | undefined, p: string) => {
      if (id === undefined) return;
      if (actionIds.has(id)) this.fail(`${p}/action_id`, 'action_id must be unique within the block');
      actionIds.add(id);
    };
    switch (type) {
      case 'section':
        this.#section(block, pointer, trackAction);
        break;
      case 'header':
        this.text(block.text, `${pointer}/text`, 150, { plainOnly: true });
        break;
      case 'context': {
        const elements = this.elements(block.elements, `${pointer}/elements`, 10);
        elements?.forEach((e, i) => {
          if (isObj(e) && e.type === 'image')
            this.string(e.image_url, `${pointer}/elements/${i}/image_url`, 3000, true);
          else this.text(e, `${pointer}/elements/${i}`, 3000);
        });
        break;
      }
      case 'actions': {
        const elements = this.elements(block.elements, `${pointer}/elements`, 25);
        elements?.forEach((e, i) => {
          const p = `${pointer}/elements/${i}`;
          trackAction(this.element(e, p, ACTION_ELEMENTS), p);
        });
        break;
      }
      case 'input':
        this.text(block.label, `${pointer}/label`, 2000, { plainOnly: true });
        this.text(block.hint, `${pointer}/hint`, 2000, { plainOnly: true, required: false });
        this.element(block.element, `${pointer}/element`, INPUT_ELEMENTS);
        if (surface === 'message') this.fail(pointer, 'input blocks are only allowed in modals and App Home');
        break;
      case 'image':
        this.string(block.image_url, `${pointer}/image_url`, 3000, true);
        this.string(block.alt_text, `${pointer}/alt_text`, 2000, true);
        break;
      case 'markdown':
        this.string(block.text, `${pointer}/text`, MAX_MARKDOWN_CHARS, true);
        break;
      case 'task_card':
        checkTaskCard(this, block, pointer);
        break;
      case 'plan':
        checkPlan(this, block, pointer);
        break;
      case 'context_actions':
        this.#contextActions(block, pointer, trackAction);
        break;
    }
    if (MESSAGE_ONLY.has(type) && surface !== 'message')
      this.fail(pointer, `${type} blocks are only allowed in messages`);
  }

  /** A section: text or fields (at most 10), and an accessory whose action_id counts in the block. */
  #section(block: Obj, pointer: string, trackAction: TrackAction): void {
    if (block.text === undefined && block.fields === undefined) {
      this.fail(pointer, 'must provide text or fields');
    }
    if (block.text !== undefined) this.text(block.text, `${pointer}/text`, 3000);
    if (block.fields !== undefined) {
      if (!Array.isArray(block.fields)) this.fail(`${pointer}/fields`, 'must provide an array');
      else {
        if (block.fields.length > 10) this.fail(`${pointer}/fields`, 'must provide no more than 10 items');
        block.fields.forEach((f, i) => {
          this.text(f, `${pointer}/fields/${i}`, 2000);
        });
      }
    }
    if (block.accessory !== undefined) {
      trackAction(
        this.element(block.accessory, `${pointer}/accessory`, new Set([...ACTION_ELEMENTS, 'image'])),
        `${pointer}/accessory`,
      );
    }
  }

  /** Slack's context actions under an agent's message: feedback buttons and icon buttons, at most 5. */
  #contextActions(block: Obj, pointer: string, trackAction: TrackAction): void {
    const elements = this.elements(block.elements, `${pointer}/elements`, 5);
    elements?.forEach((e, i) => {
      const p = `${pointer}/elements/${i}`;
      if (!isObj(e)) {
        this.fail(p, 'must provide an object');
        return;
      }
      if (e.action_id !== undefined) this.string(e.action_id, `${p}/action_id`, 255, true);
      trackAction(typeof e.action_id === 'string' ? e.action_id : undefined, p);
      if (e.type === 'feedback_buttons') {
        for (const side of ['positive_button', 'negative_button'] as const) {
          const button = e[side];
          if (!isObj(button)) {
            this.fail(`${p}/${side}`, 'must provide an object');
            continue;
          }
          this.text(button.text, `${p}/${side}/text`, 75, { plainOnly: true });
          this.string(button.value, `${p}/${side}/value`, 2000, true);
          this.string(button.accessibility_label, `${p}/${side}/accessibility_label`, 75);
        }
      } else if (e.type === 'icon_button') {
        this.string(e.icon, `${p}/icon`, 255, true);
        this.text(e.text, `${p}/text`, 75, { plainOnly: true });
        this.string(e.value, `${p}/value`, 2000);
      } else {
        this.fail(`${p}/type`, 'must be one of feedback_buttons, icon_button');
      }
    });
  }
}

/** Problems with a list of blocks on a surface; empty when Slack would accept it. */
export function validateBlocks(
  blocks: unknown,
  surface: Surface,
  basePointer = '/blocks',
): BlockKitProblem[] {
  const checker = new BlockChecker();
  if (!Array.isArray(blocks)) {
    checker.fail(basePointer, 'must provide an array');
    return checker.problems;
  }
  const max = MAX_BLOCKS[surface];
  if (blocks.length > max) checker.fail(basePointer, `must provide no more than ${max} items`);
  const blockIds = new Set<string>();
  blocks.forEach((b, i) => {
    checker.block(b, `${basePointer}/${i}`, surface, blockIds);
  });
  // The markdown limit is per message, across all its markdown blocks.
  const markdown = blocks.reduce(
    (sum: number, b) =>
      sum + (isObj(b) && b.type === 'markdown' && typeof b.text === 'string' ? b.text.length : 0),
    0,
  );
  if (markdown > MAX_MARKDOWN_CHARS)
    checker.fail(
      basePointer,
      `markdown blocks must be less than ${MAX_MARKDOWN_CHARS + 1} characters in total`,
    );
  return checker.problems;
}

/** Problems with a modal or App Home view. */
export function validateView(view: unknown): BlockKitProblem[] {
  const checker = new BlockChecker();
  if (!isObj(view)) {
    checker.fail('/view', 'must provide an object');
    return checker.problems;
  }
  if (view.type !== 'modal' && view.type !== 'home') {
    checker.fail('/view/type', 'must be one of modal, home');
    return checker.problems;
  }
  if (view.type === 'modal') {
    checker.text(view.title, '/view/title', 24, { plainOnly: true });
    checker.text(view.submit, '/view/submit', 24, { plainOnly: true, required: false });
    checker.text(view.close, '/view/close', 24, { plainOnly: true, required: false });
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObj(b) && b.type === 'input');
    if (hasInput && view.submit === undefined)
      checker.fail('/view/submit', 'must provide submit when the view has input blocks');
  }
  checker.string(view.private_metadata, '/view/private_metadata', 3000);
  checker.string(view.callback_id, '/view/callback_id', 255);
  return [...checker.problems, ...validateBlocks(view.blocks, view.type, '/view/blocks')];
}

export const MAX_MESSAGE_TEXT = 40_000;

export function describeProblem(problem: BlockKitProblem): string {
  return `${problem.message} [json-pointer:${problem.pointer}]`;
}
