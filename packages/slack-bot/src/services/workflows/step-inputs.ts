/**
 * The two Workflow Builder steps' inputs, read from what Slack sends in `function_executed`: each
 * checked, and each problem named by the step's field (as Workflow Builder shows it) and the rule.
 */
import { parseObject } from '../people/starting.js';

/** The steps' callback ids, as the manifest declares them. */
export const RUN_STEP = 'run_agent_session';
export const WAIT_STEP = 'wait_for_agent_session';

/** What "Run an agent session" asks for, checked. */
export interface RunInputs {
  goal: string;
  channelId?: string;
  budget?: number;
  maxIterations?: number;
  context?: Record<string, unknown>;
  /** The person to ask: the session is started as theirs. */
  userId?: string;
}

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
  const channelId = text(inputs.channel);
  const userId = text(inputs.mention);
  if (problems.length > 0 || !goal) return { ok: false, problems };
  return {
    ok: true,
    value: {
      goal,
      ...(channelId ? { channelId } : {}),
      ...(budget === undefined ? {} : { budget }),
      ...(maxIterations === undefined ? {} : { maxIterations }),
      ...(context.ok && context.value ? { context: context.value } : {}),
      ...(userId ? { userId } : {}),
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
