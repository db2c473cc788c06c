/**
 * Friendly checks for what people type, for callers (the Slack bot, the n8n node) to run before calling
 * the client. The client itself refuses only what the spec forbids (no goal, wrong JSON types, a
 * redirect without a message, limit over 200); these say, in words for a person, what else makes no
 * sense to send. Each returns every problem at once, naming the field; an empty list means "fine".
 * Nothing here changes what was typed: the caller sends the value as given.
 * Pure: no timers, no I/O (the n8n node bundles this file).
 */

export interface InputProblem {
  /** The field as the caller names it: `goal`, `budget`, `maxIterations`, `message`, `sessionId`, … */
  field: string;
  /** A sentence for the person who typed it. */
  message: string;
}

const isBlank = (value: string) => value.trim() === '';

/** `value` shown in a message: short, and never the whole of a long paste. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

export interface StartInput {
  goal?: unknown;
  /** USD ceiling (`guardrails.maxCostPerSession`). */
  budget?: unknown;
  maxIterations?: unknown;
}

/** A goal that says something, a budget above 0, and a whole number of iterations from 1. */
export function checkStartInput(input: StartInput): InputProblem[] {
  const problems: InputProblem[] = [];
  if (typeof input.goal !== 'string' || isBlank(input.goal)) {
    problems.push({ field: 'goal', message: 'Tell the agent what to do: the goal is empty' });
  }
  if (input.budget !== undefined) problems.push(...checkBudget(input.budget, 'budget'));
  if (input.maxIterations !== undefined) {
    const n = input.maxIterations;
    if (!(typeof n === 'number' && Number.isInteger(n) && n >= 1)) {
      problems.push({
        field: 'maxIterations',
        message: `Max iterations must be a whole number of 1 or more (got ${shown(n)})`,
      });
    }
  }
  return problems;
}

/** A budget in USD above 0 (and, when known, above what was already spent). */
export function checkBudget(budget: unknown, field = 'newBudget', spent?: number): InputProblem[] {
  if (!(typeof budget === 'number' && Number.isFinite(budget) && budget > 0)) {
    return [
      {
        field,
        message: `The budget must be a positive number of USD, like 5 or 2.50 (got ${shown(budget)})`,
      },
    ];
  }
  if (spent !== undefined && Number.isFinite(spent) && budget <= spent) {
    return [{ field, message: `The new budget must be more than the $${spent.toFixed(2)} already spent` }];
  }
  return [];
}

/** A redirect needs a direction that says something (the client only requires that one is given). */
export function checkRedirect(message: unknown): InputProblem[] {
  return typeof message === 'string' && !isBlank(message)
    ? []
    : [{ field: 'message', message: 'Say where the agent should go instead: the new direction is empty' }];
}

/**
 * An id as people paste them: not blank, no spaces or line breaks (usually a copy that caught too much),
 * and none of `/ ? # \` that the client refuses anyway.
 */
export function checkId(id: unknown, field = 'sessionId'): InputProblem[] {
  const label =
    field === 'inputId' ? 'The input id' : field === 'sessionId' ? 'The session id' : `"${field}"`;
  if (typeof id !== 'string' || isBlank(id)) return [{ field, message: `${label} is empty` }];
  if (/\s/.test(id)) {
    return [{ field, message: `${label} "${shown(id)}" contains spaces or line breaks; copy just the id` }];
  }
  if (/[/?#\\]/.test(id) || id === '.' || id === '..') {
    return [{ field, message: `${label} "${shown(id)}" is not an id (it contains / ? # or \\)` }];
  }
  return [];
}

/** An email address of the usual shape (for signup forms): one @, something on each side, a dot after it. */
export function checkEmail(email: unknown, field = 'email'): InputProblem[] {
  if (typeof email !== 'string' || isBlank(email)) return [{ field, message: 'The email address is empty' }];
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    return [{ field, message: `"${shown(email)}" does not look like an email address` }];
  }
  return [];
}

/** The problems as one line: `goal: …; budget: …`. */
export const describeProblems = (problems: readonly InputProblem[]): string =>
  problems.map((p) => `${p.field}: ${p.message}`).join('; ');
