/**
 * The checks every Block Kit element and block is built from: text objects, strings, option lists,
 * element lists and confirm dialogs, each problem reported as Slack words it at a JSON pointer.
 */

/** A place in the payload Slack would refuse, and why, in Slack's words. */
export interface BlockKitProblem {
  pointer: string;
  message: string;
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export class Checker {
  readonly problems: BlockKitProblem[] = [];

  fail(pointer: string, message: string): void {
    this.problems.push({ pointer, message });
  }

  /** A text object; `plainOnly` where Slack requires plain_text. */
  text(
    value: unknown,
    pointer: string,
    max: number,
    opts: { plainOnly?: boolean; required?: boolean } = {},
  ): void {
    if (value === undefined) {
      if (opts.required ?? true) this.fail(pointer, 'must provide an object');
      return;
    }
    if (!isObj(value)) {
      this.fail(pointer, 'must provide an object');
      return;
    }
    if (value.type !== 'plain_text' && value.type !== 'mrkdwn') {
      this.fail(`${pointer}/type`, 'must be one of plain_text, mrkdwn');
      return;
    }
    if (opts.plainOnly && value.type !== 'plain_text') this.fail(`${pointer}/type`, 'must be plain_text');
    if (typeof value.text !== 'string' || value.text.length === 0) {
      this.fail(`${pointer}/text`, 'must be more than 0 characters');
      return;
    }
    if (value.text.length > max) this.fail(`${pointer}/text`, `must be less than ${max + 1} characters`);
  }

  string(value: unknown, pointer: string, max: number, required = false): void {
    if (value === undefined) {
      if (required) this.fail(pointer, 'must provide a string');
      return;
    }
    if (typeof value !== 'string') {
      this.fail(pointer, 'must provide a string');
      return;
    }
    if (required && value.length === 0) this.fail(pointer, 'must be more than 0 characters');
    if (value.length > max) this.fail(pointer, `must be less than ${max + 1} characters`);
  }

  options(value: unknown, pointer: string, max: number, min = 1): string[] {
    if (!Array.isArray(value)) {
      this.fail(pointer, 'must provide an array');
      return [];
    }
    if (value.length < min) this.fail(pointer, `must provide at least ${min} items`);
    if (value.length > max) this.fail(pointer, `must provide no more than ${max} items`);
    const values: string[] = [];
    value.forEach((option, i) => {
      const p = `${pointer}/${i}`;
      if (!isObj(option)) {
        this.fail(p, 'must provide an object');
        return;
      }
      this.text(option.text, `${p}/text`, 75);
      this.string(option.value, `${p}/value`, 150, true);
      if (option.description !== undefined)
        this.text(option.description, `${p}/description`, 75, { plainOnly: true });
      if (typeof option.value === 'string') values.push(option.value);
    });
    if (new Set(values).size !== values.length) this.fail(pointer, 'option values must be unique');
    return values;
  }

  /** A block's `elements`: 1 to `max` items. Undefined (having failed) when not an array or empty. */
  elements(value: unknown, pointer: string, max: number): unknown[] | undefined {
    if (!Array.isArray(value) || value.length === 0) {
      this.fail(pointer, 'must provide at least 1 item');
      return undefined;
    }
    if (value.length > max) this.fail(pointer, `must provide no more than ${max} items`);
    return value;
  }

  confirm(value: unknown, pointer: string): void {
    if (value === undefined) return;
    if (!isObj(value)) {
      this.fail(pointer, 'must provide an object');
      return;
    }
    this.text(value.title, `${pointer}/title`, 100, { plainOnly: true });
    this.text(value.text, `${pointer}/text`, 300);
    this.text(value.confirm, `${pointer}/confirm`, 30, { plainOnly: true });
    this.text(value.deny, `${pointer}/deny`, 30, { plainOnly: true });
    if (value.style !== undefined && value.style !== 'primary' && value.style !== 'danger') {
      this.fail(`${pointer}/style`, 'must be one of primary, danger');
    }
  }
}
