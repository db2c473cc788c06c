import type { HumanInputKind, HumanInputOption, HumanInputQuestion, HumanInputRequest } from './types.js';

/**
 * Every wire shape of `human_input_needed` we know (docs/contract-decisions.md), to one `HumanInputRequest`:
 * a message named human_input_needed whose content is JSON, a tool call of that name whose arguments are
 * JSON, or a pending request on a round object. Field names vary between producers; the variants of
 * MCP elicitation, LangGraph interrupts and AskUserQuestion-style payloads are accepted too.
 * Pure: no timers, no I/O (the n8n node bundles this file).
 */

export const HUMAN_INPUT_EVENT = 'human_input_needed';
export const DEFAULT_PROMPT = 'The agent needs your input';

export type HumanInputSource = 'message' | 'tool_call' | 'round' | 'request';

export type HumanInputParseResult =
  | { ok: true; request: HumanInputRequest; source: HumanInputSource }
  | {
      ok: false;
      reason: 'missing_input_id' | 'invalid_json' | 'not_an_object';
      message: string;
      source: HumanInputSource;
      raw: unknown;
    };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function first(obj: Obj, keys: readonly string[]): unknown {
  for (const key of keys) if (obj[key] !== undefined && obj[key] !== null) return obj[key];
  return undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function int(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : undefined;
}

const KIND_SYNONYMS: Record<string, HumanInputKind> = {
  approval: 'approval',
  approve: 'approval',
  confirm: 'approval',
  confirmation: 'approval',
  yes_no: 'approval',
  yesno: 'approval',
  boolean: 'approval',
  single_select: 'single_select',
  singleselect: 'single_select',
  select: 'single_select',
  choice: 'single_select',
  single_choice: 'single_select',
  radio: 'single_select',
  multi_select: 'multi_select',
  multiselect: 'multi_select',
  multi_choice: 'multi_select',
  multiple_choice: 'multi_select',
  checkboxes: 'multi_select',
  checkbox: 'multi_select',
  free_text: 'free_text',
  freetext: 'free_text',
  text: 'free_text',
  input: 'free_text',
  open: 'free_text',
  freeform: 'free_text',
  string: 'free_text',
  multi_question: 'multi_question',
  multiquestion: 'multi_question',
  questions: 'multi_question',
  form: 'multi_question',
  multi: 'multi_question',
};

function kindFrom(value: unknown): HumanInputKind | undefined {
  const name = text(value)?.toLowerCase().replace(/[-\s]/g, '_');
  return name === undefined ? undefined : KIND_SYNONYMS[name];
}

function normalizeOptions(value: unknown): HumanInputOption[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const options: HumanInputOption[] = [];
  for (const item of value) {
    if (typeof item === 'string' || typeof item === 'number') {
      options.push({ id: String(item), label: String(item) });
      continue;
    }
    if (!isObj(item)) continue;
    const label = text(first(item, ['label', 'title', 'text', 'name']));
    const id = text(first(item, ['id', 'value', 'key', 'optionId'])) ?? label;
    if (id === undefined) continue;
    const description = text(first(item, ['description', 'hint', 'detail']));
    options.push({ id, label: label ?? id, ...(description ? { description } : {}) });
  }
  return options;
}

function selectionBounds(obj: Obj, optionCount: number, multi: boolean): { min: number; max: number } {
  const min = int(first(obj, ['minSelections', 'min', 'minSelect', 'min_selections', 'minItems']));
  const max = int(first(obj, ['maxSelections', 'max', 'maxSelect', 'max_selections', 'maxItems']));
  const upper = Math.max(1, optionCount);
  const clampedMax = Math.min(upper, Math.max(1, max ?? (multi ? upper : 1)));
  const clampedMin = Math.min(clampedMax, Math.max(0, min ?? 1));
  return { min: clampedMin, max: clampedMax };
}

/** The kind, told from an explicit field when it names one, else from the payload's shape. */
function inferKind(obj: Obj, options: HumanInputOption[] | undefined, hasQuestions: boolean): HumanInputKind {
  const explicit = kindFrom(first(obj, ['kind', 'type', 'inputType', 'input_type']));
  const multiFlag = first(obj, ['multiSelect', 'multiple', 'multi_select', 'allowMultiple']) === true;
  if (explicit === 'multi_question' && hasQuestions) return 'multi_question';
  if (explicit === 'approval') return 'approval';
  if ((explicit === 'single_select' || explicit === 'multi_select') && options && options.length > 0) {
    return explicit === 'multi_select' || multiFlag ? 'multi_select' : 'single_select';
  }
  if (explicit === 'free_text') return 'free_text';
  if (hasQuestions) return 'multi_question';
  if (options && options.length > 0) {
    const max = int(first(obj, ['maxSelections', 'max', 'maxSelect', 'max_selections']));
    return multiFlag || (max !== undefined && max > 1) ? 'multi_select' : 'single_select';
  }
  // A select with nothing to choose from, or a kind we can't tell: a person can still type an answer.
  return 'free_text';
}

function normalizeQuestion(value: unknown, index: number): HumanInputQuestion | undefined {
  if (typeof value === 'string')
    return { id: `q${index + 1}`, prompt: value, kind: 'free_text', required: false };
  if (!isObj(value)) return undefined;
  const options = normalizeOptions(first(value, ['options', 'choices']));
  let kind = inferKind(value, options, false);
  if (kind === 'multi_question' || kind === 'approval')
    kind = kind === 'approval' ? 'single_select' : 'free_text';
  const approvalOptions: HumanInputOption[] = [
    { id: 'yes', label: 'Yes' },
    { id: 'no', label: 'No' },
  ];
  const isApproval = inferKind(value, options, false) === 'approval';
  const id = text(first(value, ['id', 'questionId', 'key', 'name'])) ?? `q${index + 1}`;
  const prompt =
    text(first(value, ['prompt', 'question', 'message', 'title', 'text', 'label', 'header'])) ?? id;
  const required = first(value, ['required', 'isRequired']) === true;
  const question: HumanInputQuestion = { id, prompt, kind, required };
  const finalOptions = isApproval && !options?.length ? approvalOptions : options;
  if (kind !== 'free_text' && finalOptions) question.options = finalOptions;
  if (kind === 'multi_select') {
    const { min, max } = selectionBounds(value, finalOptions?.length ?? 0, true);
    question.minSelections = required ? Math.max(1, min) : 0;
    question.maxSelections = max;
  }
  return question;
}

/** A request object (already parsed from JSON) to the normalized form. */
export function normalizeHumanInputRequest(
  payload: unknown,
  source: HumanInputSource = 'request',
  raw: unknown = payload,
): HumanInputParseResult {
  if (!isObj(payload)) {
    return {
      ok: false,
      reason: 'not_an_object',
      message: 'the human-input request is not a JSON object',
      source,
      raw,
    };
  }
  const inputId = text(first(payload, ['inputId', 'id', 'input_id', 'requestId', 'request_id']));
  if (inputId === undefined) {
    return {
      ok: false,
      reason: 'missing_input_id',
      message: 'the human-input request has no inputId, so it cannot be answered',
      source,
      raw,
    };
  }
  const questionsRaw = first(payload, ['questions', 'fields']);
  const questions = Array.isArray(questionsRaw)
    ? questionsRaw.map(normalizeQuestion).filter((q): q is HumanInputQuestion => q !== undefined)
    : [];
  const options = normalizeOptions(first(payload, ['options', 'choices']));
  const kind = inferKind(payload, options, questions.length > 0);
  const prompt =
    text(first(payload, ['prompt', 'question', 'message', 'title', 'text', 'description'])) ?? DEFAULT_PROMPT;
  const request: HumanInputRequest = { inputId, kind, prompt, raw };
  if ((kind === 'single_select' || kind === 'multi_select') && options) request.options = options;
  if (kind === 'multi_select') {
    const { min, max } = selectionBounds(payload, options?.length ?? 0, true);
    request.minSelections = min;
    request.maxSelections = max;
  }
  if (kind === 'multi_question') request.questions = questions;
  return { ok: true, request, source };
}

function fromJson(value: unknown, source: HumanInputSource, raw: unknown): HumanInputParseResult {
  if (typeof value !== 'string') return normalizeHumanInputRequest(value, source, raw);
  try {
    return normalizeHumanInputRequest(JSON.parse(value), source, raw);
  } catch {
    return {
      ok: false,
      reason: 'invalid_json',
      message: 'the human_input_needed payload is not valid JSON',
      source,
      raw,
    };
  }
}

/** Where a round object may carry its question (the spec shows no round fields). */
export const ROUND_INPUT_KEYS: readonly string[] = [
  'humanInput',
  'pendingInput',
  'humanInputRequest',
  'pending_input',
  'human_input',
  'pendingHumanInput',
];
/** A round's question in one of these states was answered (or will never be): not to be asked again. */
export const ANSWERED_INPUT_STATUSES: ReadonlySet<string> = new Set([
  'responded',
  'answered',
  'resolved',
  'superseded',
  'cancelled',
  'expired',
  'completed',
]);

/**
 * Finds and normalizes a human-input request in a message or a round. Undefined when there is none;
 * `{ok: false}` when there is one that can't be answered (reported, never dropped).
 */
export function parseHumanInputDetailed(source: unknown): HumanInputParseResult | undefined {
  if (!isObj(source)) return undefined;

  if (['name', 'type', 'event'].some((key) => source[key] === HUMAN_INPUT_EVENT)) {
    const payload = first(source, ['content', 'data', 'payload', 'request', 'arguments']);
    return fromJson(payload, 'message', source);
  }

  const calls = first(source, ['toolCalls', 'tool_calls']);
  if (Array.isArray(calls)) {
    for (const call of calls) {
      if (!isObj(call)) continue;
      const fn = isObj(call.function) ? call.function : call;
      if (fn.name !== HUMAN_INPUT_EVENT) continue;
      const args = first(fn, ['arguments', 'args', 'input', 'parameters']);
      return fromJson(args, 'tool_call', source);
    }
  }

  for (const key of ROUND_INPUT_KEYS) {
    const pending = source[key];
    if (!isObj(pending)) continue;
    const status = text(pending.status)?.toLowerCase();
    if (status !== undefined && ANSWERED_INPUT_STATUSES.has(status)) return undefined;
    return normalizeHumanInputRequest(pending, 'round', pending);
  }
  return undefined;
}

/** The normalized request in a message or round, or undefined (including when it can't be answered). */
export function parseHumanInput(source: unknown): HumanInputRequest | undefined {
  const result = parseHumanInputDetailed(source);
  return result?.ok ? result.request : undefined;
}
