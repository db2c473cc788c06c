import type { ViewOutput, ViewStateValue } from '@slack/bolt';
import type { FormMetadata } from '../../blocks/modals.js';
import { encodeRef, REF_LIMITS } from '../../refs.js';
import type { FormValues } from '../../services/people/answering.js';

/** Every input is built with action_id `value`: the one control of its block. */
const controlOf = (values: Record<string, Record<string, ViewStateValue>>, blockId: string) =>
  values[blockId]?.value;

/** What one control holds: text (trimmed; undefined when empty), one option value, or several. */
export function controlValue(state: ViewStateValue | undefined): string | string[] | undefined {
  if (!state) return undefined;
  if (state.selected_options) return state.selected_options.map((o) => o.value);
  if (state.selected_option !== undefined) return state.selected_option?.value ?? undefined;
  const text = typeof state.value === 'string' ? state.value.trim() : '';
  return text === '' ? undefined : text;
}

/** The typed text of an input block (trimmed; undefined when empty). */
export function textOf(view: ViewOutput, blockId: string): string | undefined {
  const value = controlValue(controlOf(view.state.values, blockId));
  return typeof value === 'string' ? value : undefined;
}

/** Every input block's value, by block id. */
export function formValues(view: ViewOutput): FormValues {
  const out: FormValues = {};
  for (const blockId of Object.keys(view.state.values))
    out[blockId] = controlValue(controlOf(view.state.values, blockId));
  return out;
}

/** What the form carried: its ref (older forms carried the ids themselves) and extras. */
export function metadataOf(view: ViewOutput): FormMetadata {
  let parsed: unknown;
  try {
    parsed = JSON.parse(view.private_metadata || '{}');
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const meta: Record<string, unknown> = { ...parsed };
  const legacy =
    typeof meta.sessionId === 'string'
      ? encodeRef(
          {
            sessionId: meta.sessionId,
            ...(typeof meta.inputId === 'string' ? { inputId: meta.inputId } : {}),
          },
          REF_LIMITS.metadata,
        )
      : undefined;
  const ref = typeof meta.ref === 'string' ? meta.ref : legacy;
  return {
    ...(ref ? { ref } : {}),
    ...(typeof meta.channelId === 'string' ? { channelId: meta.channelId } : {}),
    ...(typeof meta.spend === 'number' ? { spend: meta.spend } : {}),
  };
}
