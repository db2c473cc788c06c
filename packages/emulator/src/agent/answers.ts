import { badRequest } from '../errors.js';
import type { HumanInputAnswer, HumanInputRequest, InputQuestion } from '../model.js';

const MAX_TEXT = 10_000;

function checkText(field: string, value: unknown, required: boolean): void {
  if (value === undefined || value === null) {
    if (required) throw badRequest(`${field} is required for this request and must be a non-empty string`);
    return;
  }
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
  if (required && value.trim() === '') throw badRequest(`${field} must not be empty`);
  if (value.length > MAX_TEXT) throw badRequest(`${field} must be at most ${MAX_TEXT} characters`);
}

function checkChoice(field: string, value: unknown, optionIds: string[]): void {
  if (typeof value !== 'string')
    throw badRequest(`${field} is required and must be one of: ${optionIds.join(', ')}`);
  if (!optionIds.includes(value)) {
    throw badRequest(`${field} "${value}" is not one of the offered options: ${optionIds.join(', ')}`);
  }
}

function checkChoices(field: string, value: unknown, optionIds: string[], min: number, max: number): void {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw badRequest(`${field} is required and must be an array of option ids`);
  }
  const ids = value as string[];
  const unknown = ids.filter((id) => !optionIds.includes(id));
  if (unknown.length > 0) {
    throw badRequest(
      `${field} contains ids that were not offered: ${unknown.join(', ')} (offered: ${optionIds.join(', ')})`,
    );
  }
  if (new Set(ids).size !== ids.length) throw badRequest(`${field} must not repeat an option`);
  if (ids.length < min) throw badRequest(`${field} must select at least ${min} option(s)`);
  if (ids.length > max) throw badRequest(`${field} must select at most ${max} option(s)`);
}

function checkQuestion(question: InputQuestion, value: unknown): void {
  const field = `answers.${question.id}`;
  const ids = (question.options ?? []).map((o) => o.id);
  if (value === undefined || value === null || value === '') {
    if (question.required) throw badRequest(`${field} is required ("${question.prompt}")`);
    return;
  }
  if (question.kind === 'free_text') checkText(field, value, Boolean(question.required));
  else if (question.kind === 'single_select') checkChoice(field, value, ids);
  else checkChoices(field, value, ids, question.required ? 1 : 0, ids.length);
}

/** Checks an answer against the request it answers; throws a 400 naming the field. */
export function validateAnswer(request: HumanInputRequest, answer: HumanInputAnswer): void {
  const optionIds = (request.options ?? []).map((o) => o.id);
  switch (request.kind) {
    case 'approval':
      if (typeof answer.approved !== 'boolean') {
        throw badRequest('approved is required for an approval request and must be a boolean');
      }
      checkText('freeText', answer.freeText, false);
      return;
    case 'single_select':
      checkChoice('choiceId', answer.choiceId, optionIds);
      return;
    case 'multi_select':
      checkChoices(
        'choiceIds',
        answer.choiceIds,
        optionIds,
        request.minSelections ?? 1,
        request.maxSelections ?? optionIds.length,
      );
      return;
    case 'free_text':
      checkText('freeText', answer.freeText, true);
      return;
    case 'multi_question': {
      const answers = answer.answers;
      if (
        answers === undefined ||
        answers === null ||
        typeof answers !== 'object' ||
        Array.isArray(answers)
      ) {
        throw badRequest(
          'answers is required for a multi-question request and must be an object keyed by question id',
        );
      }
      const questions = request.questions ?? [];
      const known = new Set(questions.map((q) => q.id));
      const stray = Object.keys(answers).filter((k) => !known.has(k));
      if (stray.length > 0) throw badRequest(`answers has unknown question ids: ${stray.join(', ')}`);
      for (const question of questions) checkQuestion(question, answers[question.id]);
      return;
    }
  }
}
