import { createHash } from 'node:crypto';

/** What a button, a select's block or a form carries: which session and question it acts on. */
export interface ActionRef {
  sessionId: string;
  inputId?: string;
  /** For option buttons: the option's index in the request (option ids may be longer than Slack allows). */
  option?: number;
}

/** A ref too long for where it goes, replaced by the prompt's stored key (prompts.ref_key). */
export interface KeyedRef {
  refKey: string;
  option?: number;
}

export type DecodedRef = ActionRef | KeyedRef;

/** Slack's limits for what carries a ref. */
export const REF_LIMITS = { blockId: 255, actionId: 255, value: 2000, metadata: 3000 } as const;

const KEY_MARK = '~';

/** The short key a prompt is stored under: the same for the same session and question, everywhere. */
export function refKeyOf(sessionId: string, inputId: string): string {
  return createHash('sha256').update(`${sessionId}\u0000${inputId}`).digest('base64url').slice(0, 22);
}

/**
 * A ref as text of at most `max` characters: JSON when it fits, else the prompt's short key (the
 * publisher saved it with the prompt). A session-only ref has no key: it only rides in button values,
 * and session ids (at most 512 characters by the contract) always fit there.
 */
export function encodeRef(ref: ActionRef, max: number = REF_LIMITS.value): string {
  const json = JSON.stringify(ref);
  if (json.length <= max || ref.inputId === undefined) return json;
  const option = ref.option === undefined ? '' : `#${ref.option}`;
  return `${KEY_MARK}${refKeyOf(ref.sessionId, ref.inputId)}${option}`;
}

export function decodeRef(value: string | undefined): DecodedRef | undefined {
  if (!value) return undefined;
  if (value.startsWith(KEY_MARK)) {
    const [key = '', option] = value.slice(KEY_MARK.length).split('#');
    if (!key) return undefined;
    return option === undefined ? { refKey: key } : { refKey: key, option: Number(option) };
  }
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'object' || parsed === null || !('sessionId' in parsed)) return undefined;
    const fields: Record<string, unknown> = { ...parsed };
    const { sessionId, inputId, option } = fields;
    if (typeof sessionId !== 'string') return undefined;
    return {
      sessionId,
      ...(typeof inputId === 'string' ? { inputId } : {}),
      ...(typeof option === 'number' ? { option } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The session a ref names, when it names one directly (card buttons always do). */
export const sessionOf = (ref: DecodedRef | undefined): string | undefined =>
  ref && 'sessionId' in ref ? ref.sessionId : undefined;
