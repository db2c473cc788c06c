import type { AnswerInput, AnswerIssue, HumanInputRequest } from '@agent-sessions/core';

/** Raw answers as Slack delivers them, and their meaning for a question. */

/** What a form sent: each input block's value (text, one option value, or several), by block id. */
export type FormValues = Record<string, string | string[] | undefined>;

/** An answer as Slack delivered it, before it means anything: indexes, not ids; values, not answers. */
export type RawAnswer =
  | { kind: 'approve' }
  | { kind: 'reject'; reason?: string }
  /** A choice button (the index rides in the ref) or a select (the index is its value). */
  | { kind: 'option'; index?: number }
  /** Submit under checkboxes or a multi-select. */
  | { kind: 'options'; indexes: number[] }
  /** The answer form: `answer` for free text, `q_<index>` per question. */
  | { kind: 'form'; values: FormValues }
  /** Text typed anywhere else (a thread reply, "Answer as text"): the free-text answer. */
  | { kind: 'text'; text: string }
  /** An answer already in the request's own ids (an agent host over MCP): checked as any other. */
  | { kind: 'input'; input: AnswerInput };

const idsOf = (request: HumanInputRequest, indexes: number[]): string[] =>
  indexes.map((i) => request.options?.[i]?.id).filter((id): id is string => id !== undefined);

/** Indexes to option ids and form values to answers, by the question's own shape. */
export function toInput(request: HumanInputRequest, raw: RawAnswer, refOption?: number): AnswerInput {
  switch (raw.kind) {
    case 'approve':
      return { approved: true };
    case 'reject':
      return { approved: false, ...(raw.reason ? { reason: raw.reason } : {}) };
    case 'option': {
      const index = raw.index ?? refOption;
      return { choiceId: idsOf(request, index === undefined ? [] : [index])[0] ?? '' };
    }
    case 'options':
      return { choiceIds: idsOf(request, raw.indexes) };
    case 'text':
      return { freeText: raw.text };
    case 'input':
      return raw.input;
    case 'form': {
      if (request.kind !== 'multi_question') {
        const text = raw.values.answer;
        return typeof text === 'string' ? { freeText: text } : {};
      }
      const answers: Record<string, string | string[]> = {};
      (request.questions ?? []).forEach((question, index) => {
        const given = raw.values[`q_${index}`];
        if (given === undefined) return;
        // Options travel as their index (ids may exceed Slack's 75-character option values).
        const toId = (v: string) => question.options?.[Number(v)]?.id ?? v;
        if (question.kind === 'free_text')
          answers[question.id] = Array.isArray(given) ? given.join('\n') : given;
        else if (question.kind === 'single_select') answers[question.id] = toId(String(given));
        else answers[question.id] = (Array.isArray(given) ? given : [given]).map(toId);
      });
      return { answers };
    }
  }
}

/** Where an answer problem is shown: the issue's field mapped to the form block holding that input. */
export function errorsFor(
  issues: AnswerIssue[],
  request: HumanInputRequest,
  fallback: string,
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    let block = fallback;
    if (issue.field.startsWith('answers.')) {
      const id = issue.field.slice('answers.'.length);
      const index = (request.questions ?? []).findIndex((q) => q.id === id);
      if (index >= 0) block = `q_${index}`;
    }
    errors[block] = errors[block] ? `${errors[block]}; ${issue.message}` : issue.message;
  }
  return errors;
}
