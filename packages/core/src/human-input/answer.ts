import type { HumanInputAnswer, HumanInputOption, HumanInputQuestion, HumanInputRequest } from './types.js';

/**
 * Answers checked against the request they answer, with messages written for the person who typed or
 * clicked them (renderers show them next to the input named by `field`).
 * Pure: no timers, no I/O (the n8n node bundles this file).
 */

export const MAX_FREE_TEXT_LENGTH = 10_000;

export interface AnswerIssue {
  /** Where to show it: `approved`, `freeText`, `choiceId`, `choiceIds`, `answers.<questionId>`. */
  field: string;
  /** Machine-readable: required, not_an_option, too_few, too_many, duplicate, empty, too_long, unknown_question, type. */
  rule: string;
  message: string;
}

export class HumanInputAnswerError extends Error {
  override name = 'HumanInputAnswerError';
  constructor(readonly issues: AnswerIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.message}`).join('; '));
  }
}

/** What a person gave; `reason` is accepted for an approval and sent as freeText. */
export interface AnswerInput {
  approved?: boolean;
  reason?: string;
  choiceId?: string;
  choiceIds?: string[];
  freeText?: string;
  answers?: Record<string, unknown>;
}

export type AnswerValidation = { ok: true; answer: HumanInputAnswer } | { ok: false; issues: AnswerIssue[] };

const labelOf = (options: HumanInputOption[] | undefined, id: string) =>
  options?.find((o) => o.id === id)?.label ?? id;

function checkText(
  field: string,
  value: unknown,
  required: boolean,
  issues: AnswerIssue[],
): string | undefined {
  if (value === undefined || value === null) {
    if (required) issues.push({ field, rule: 'required', message: 'Please type an answer' });
    return undefined;
  }
  if (typeof value !== 'string') {
    issues.push({ field, rule: 'type', message: 'The answer must be text' });
    return undefined;
  }
  // Blank is "no answer"; anything else goes as typed (spaces and line breaks included), never trimmed.
  if (value.trim() === '') {
    if (required) issues.push({ field, rule: 'empty', message: 'The answer must not be empty' });
    return undefined;
  }
  if (value.length > MAX_FREE_TEXT_LENGTH) {
    issues.push({
      field,
      rule: 'too_long',
      message: `Keep it under ${MAX_FREE_TEXT_LENGTH.toLocaleString('en-US')} characters (this is ${value.length.toLocaleString('en-US')})`,
    });
    return undefined;
  }
  return value;
}

function checkChoice(
  field: string,
  value: unknown,
  options: HumanInputOption[],
  required: boolean,
  issues: AnswerIssue[],
): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (required) issues.push({ field, rule: 'required', message: 'Choose one option' });
    return undefined;
  }
  if (typeof value !== 'string' || !options.some((o) => o.id === value)) {
    issues.push({
      field,
      rule: 'not_an_option',
      message: `"${String(value)}" is not one of the options (${options.map((o) => o.label).join(', ')})`,
    });
    return undefined;
  }
  return value;
}

function checkChoices(
  field: string,
  value: unknown,
  options: HumanInputOption[],
  min: number,
  max: number,
  issues: AnswerIssue[],
): string[] | undefined {
  const ids = value === undefined || value === null ? [] : value;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
    issues.push({ field, rule: 'type', message: 'Choose from the options' });
    return undefined;
  }
  const unknown = ids.filter((id) => !options.some((o) => o.id === id));
  if (unknown.length > 0) {
    issues.push({ field, rule: 'not_an_option', message: `Not among the options: ${unknown.join(', ')}` });
    return undefined;
  }
  if (new Set(ids).size !== ids.length) {
    issues.push({ field, rule: 'duplicate', message: 'Each option can be chosen once' });
    return undefined;
  }
  if (ids.length < min) {
    issues.push({ field, rule: 'too_few', message: `Choose at least ${min} option${min === 1 ? '' : 's'}` });
    return undefined;
  }
  if (ids.length > max) {
    issues.push({ field, rule: 'too_many', message: `Choose at most ${max} option${max === 1 ? '' : 's'}` });
    return undefined;
  }
  return ids as string[];
}

function checkQuestion(
  question: HumanInputQuestion,
  value: unknown,
  issues: AnswerIssue[],
): string | string[] | undefined {
  const field = `answers.${question.id}`;
  const before = issues.length;
  let result: string | string[] | undefined;
  if (question.kind === 'free_text') result = checkText(field, value, question.required, issues);
  else if (question.kind === 'single_select') {
    result = checkChoice(field, value, question.options ?? [], question.required, issues);
  } else {
    const options = question.options ?? [];
    const empty = value === undefined || value === null || (Array.isArray(value) && value.length === 0);
    if (empty && !question.required) return undefined;
    result = checkChoices(
      field,
      value,
      options,
      question.minSelections ?? (question.required ? 1 : 0),
      question.maxSelections ?? options.length,
      issues,
    );
  }
  // Name the question in its messages: a multi-question modal shows several at once.
  for (const issue of issues.slice(before)) issue.message = `${question.prompt}: ${issue.message}`;
  return result;
}

/** Checks an answer against its request without throwing. */
export function validateAnswer(request: HumanInputRequest, input: AnswerInput): AnswerValidation {
  const issues: AnswerIssue[] = [];
  const answer: HumanInputAnswer = {};
  switch (request.kind) {
    case 'approval': {
      if (typeof input.approved !== 'boolean') {
        issues.push({ field: 'approved', rule: 'required', message: 'Approve or reject' });
        break;
      }
      answer.approved = input.approved;
      const reason = checkText('freeText', input.freeText ?? input.reason, false, issues);
      if (reason !== undefined) answer.freeText = reason;
      break;
    }
    case 'single_select': {
      const id = checkChoice('choiceId', input.choiceId, request.options ?? [], true, issues);
      if (id !== undefined) answer.choiceId = id;
      break;
    }
    case 'multi_select': {
      const options = request.options ?? [];
      const ids = checkChoices(
        'choiceIds',
        input.choiceIds,
        options,
        request.minSelections ?? 1,
        request.maxSelections ?? options.length,
        issues,
      );
      if (ids !== undefined) answer.choiceIds = ids;
      break;
    }
    case 'free_text': {
      const value = checkText('freeText', input.freeText, true, issues);
      if (value !== undefined) answer.freeText = value;
      break;
    }
    case 'multi_question': {
      const given = input.answers ?? {};
      if (typeof given !== 'object' || Array.isArray(given)) {
        issues.push({ field: 'answers', rule: 'type', message: 'Answer each question' });
        break;
      }
      const questions = request.questions ?? [];
      for (const key of Object.keys(given)) {
        if (!questions.some((q) => q.id === key)) {
          issues.push({
            field: `answers.${key}`,
            rule: 'unknown_question',
            message: `There is no question "${key}"`,
          });
        }
      }
      const answers: Record<string, string | string[]> = {};
      for (const question of questions) {
        const value = checkQuestion(question, given[question.id], issues);
        if (value !== undefined) answers[question.id] = value;
      }
      answer.answers = answers;
      break;
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, answer };
}

/** The request body for an answer; throws `HumanInputAnswerError` (issues name the field) when it doesn't fit. */
export function buildAnswer(request: HumanInputRequest, input: AnswerInput): HumanInputAnswer {
  const result = validateAnswer(request, input);
  if (!result.ok) throw new HumanInputAnswerError(result.issues);
  return result.answer;
}

/** An answer as people read it: "Approved", "Rejected: too risky", "Europe, US East", the text. */
export function describeAnswer(request: HumanInputRequest, answer: HumanInputAnswer): string {
  switch (request.kind) {
    case 'approval': {
      const verdict = answer.approved ? 'Approved' : 'Rejected';
      return answer.freeText ? `${verdict}: ${answer.freeText}` : verdict;
    }
    case 'single_select':
      return labelOf(request.options, answer.choiceId ?? '');
    case 'multi_select':
      return (answer.choiceIds ?? []).map((id) => labelOf(request.options, id)).join(', ');
    case 'free_text':
      return answer.freeText ?? '';
    case 'multi_question':
      return (request.questions ?? [])
        .filter((q) => answer.answers?.[q.id] !== undefined)
        .map((q) => {
          const value = answer.answers?.[q.id];
          const shown = Array.isArray(value)
            ? value.map((id) => labelOf(q.options, id)).join(', ')
            : q.kind === 'free_text'
              ? String(value)
              : labelOf(q.options, String(value));
          return `${q.prompt} ${shown}`;
        })
        .join(' · ');
  }
}
