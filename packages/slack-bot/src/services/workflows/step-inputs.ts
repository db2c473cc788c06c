/**
 * The two Workflow Builder steps' inputs, read from what Slack sends in `function_executed`: each
 * checked, and each problem named by the step's field (as Workflow Builder shows it) and the rule.
 */

import type { ConfirmedStart } from '../../blocks/workflow-confirm.js';
import { parseObject } from '../people/starting.js';

/** The steps' callback ids, as the manifest declares them. */
export const RUN_STEP = 'run_agent_session';
export const WAIT_STEP = 'wait_for_agent_session';

/** Slack's ids as its types give them: a person (`slack#/types/user_id`) and a conversation (`channel_id`). */
const USER_ID = /^[UW][A-Z0-9]{2,}$/;
const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

/** What "Run an agent session" asks for, checked: what its confirmation shows the runner. */
export type RunInputs = ConfirmedStart;

type Read<T> = { ok: true; value: T } | { ok: false; problems: string[] };

const text = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number') return String(value);
  return undefined;
};

/** A number Slack sent as a number or as its text (a workflow variable is text until Slack types it). */
function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  const t = text(value);
  return t === undefined ? undefined : Number(t.replace(/^\$/, ''));
}

/** The context: a JSON object, given as one or as its text. */
function contextOf(
  value: unknown,
): { ok: true; value?: Record<string, unknown> } | { ok: false; error: string } {
  if (value === undefined || value === null || value === '') return { ok: true };
  if (typeof value === 'object' && !Array.isArray(value))
    return { ok: true, value: Object.fromEntries(Object.entries(value)) };
  if (typeof value !== 'string') return { ok: false, error: 'The context must be a JSON object' };
  const parsed = parseObject(value);
  return parsed.ok ? { ok: true, value: parsed.value } : { ok: false, error: parsed.error };
}

/** An id input: absent, or of its Slack type's form (the problem names the field and the form). */
function idOf(field: string, value: unknown, pattern: RegExp, rule: string, problems: string[]) {
  const id = text(value);
  if (id !== undefined && !pattern.test(id)) problems.push(`${field}: ${rule}`);
  return id !== undefined && pattern.test(id) ? id : undefined;
}

/**
 * The person who ran the workflow, from Slack's `interactivity` input (`interactor.id`): Workflow Builder
 * fills it in, never the workflow's builder, and only when a person started the run (a link, a button, a
 * form). Undefined: nobody ran it (a schedule, an event, a webhook). A value of another form is a problem.
 */
export function runnerOf(inputs: Record<string, unknown>): Read<string | undefined> {
  const interactivity = inputs.interactivity;
  if (interactivity === undefined || interactivity === null || interactivity === '')
    return { ok: true, value: undefined };
  const interactor =
    typeof interactivity === 'object' && 'interactor' in interactivity ? interactivity.interactor : undefined;
  const id =
    typeof interactor === 'object' && interactor !== null && 'id' in interactor ? interactor.id : undefined;
  if (typeof id === 'string' && USER_ID.test(id)) return { ok: true, value: id };
  return {
    ok: false,
    problems: ['interactivity: Slack’s interactivity context, whose interactor.id is a user id (U… or W…)'],
  };
}

/**
 * The step's interactivity pointer (`interactivity.interactivity_pointer`): what lets the app open a view
 * for the person who ran the workflow (`views.open`), briefly and once, as a trigger_id does.
 */
export function pointerOf(inputs: Record<string, unknown>): string | undefined {
  const interactivity = inputs.interactivity;
  if (typeof interactivity !== 'object' || interactivity === null) return undefined;
  const pointer = Reflect.get(interactivity, 'interactivity_pointer');
  return typeof pointer === 'string' && pointer !== '' ? pointer : undefined;
}

/**
 * Run inputs back in the step's own input names, as `readRunInputs` reads them: what a runner confirmed,
 * kept until they answer and read again then, so what starts is what they saw. Slack's interactivity
 * context (with its secret) is never among them.
 */
export function stepInputsOf(read: RunInputs): Record<string, unknown> {
  return {
    goal: read.goal,
    ...(read.channelId === undefined ? {} : { channel: read.channelId }),
    ...(read.budget === undefined ? {} : { budget: read.budget }),
    ...(read.maxIterations === undefined ? {} : { max_iterations: read.maxIterations }),
    ...(read.context === undefined ? {} : { context: read.context }),
    ...(read.askUserId === undefined ? {} : { mention: read.askUserId }),
  };
}

export function readRunInputs(inputs: Record<string, unknown>): Read<RunInputs> {
  const problems: string[] = [];
  const goal = text(inputs.goal);
  if (!goal) problems.push('goal: tell the agent what to do (the goal is required)');
  const budget = numberOf(inputs.budget);
  if (budget !== undefined && !(Number.isFinite(budget) && budget > 0))
    problems.push('budget: a positive number of USD, like 5 or 2.50');
  const maxIterations = numberOf(inputs.max_iterations);
  if (maxIterations !== undefined && !(Number.isInteger(maxIterations) && maxIterations > 0))
    problems.push('max_iterations: a whole number above 0');
  const context = contextOf(inputs.context);
  if (!context.ok) problems.push(`context: ${context.error}`);
  const channelId = idOf(
    'channel',
    inputs.channel,
    CHANNEL_ID,
    'a channel id (C…, G… or D…), like a channel picked in Workflow Builder',
    problems,
  );
  const askUserId = idOf(
    'mention',
    inputs.mention,
    USER_ID,
    'a user id (U… or W…), like a person picked in Workflow Builder',
    problems,
  );
  if (problems.length > 0 || !goal) return { ok: false, problems };
  return {
    ok: true,
    value: {
      goal,
      ...(channelId ? { channelId } : {}),
      ...(budget === undefined ? {} : { budget }),
      ...(maxIterations === undefined ? {} : { maxIterations }),
      ...(context.ok && context.value ? { context: context.value } : {}),
      ...(askUserId ? { askUserId } : {}),
    },
  };
}

/** "Wait for an agent session": the session's id. */
export function readWaitInputs(inputs: Record<string, unknown>): Read<{ sessionId: string }> {
  const sessionId = text(inputs.session_id);
  return sessionId
    ? { ok: true, value: { sessionId } }
    : { ok: false, problems: ['session_id: the id of the session to wait for is required'] };
}
