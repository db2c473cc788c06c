import type { ViewOutput } from '@slack/bolt';

interface StateValue {
  type?: string;
  value?: string | null;
  selected_option?: { value: string } | null;
  selected_options?: Array<{ value: string }>;
}

type Values = Record<string, Record<string, StateValue>>;

/** The typed text of an input block (trimmed; undefined when empty). */
export function textOf(view: ViewOutput, blockId: string): string | undefined {
  const value = (view.state.values as Values)[blockId]?.value?.value;
  const trimmed = typeof value === 'string' ? value.trim() : '';
  return trimmed === '' ? undefined : trimmed;
}

/** Whatever an input block holds: text, one option value, or several. */
export function inputOf(view: ViewOutput, blockId: string): string | string[] | undefined {
  const state = (view.state.values as Values)[blockId]?.value;
  if (!state) return undefined;
  if (state.selected_options) return state.selected_options.map((o) => o.value);
  if (state.selected_option !== undefined) return state.selected_option?.value ?? undefined;
  const text = typeof state.value === 'string' ? state.value.trim() : '';
  return text === '' ? undefined : text;
}

export function metadataOf<T>(view: ViewOutput): Partial<T> {
  try {
    return JSON.parse(view.private_metadata || '{}') as Partial<T>;
  } catch {
    return {};
  }
}
