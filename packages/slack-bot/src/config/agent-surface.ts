/**
 * Slack's agent surfaces: which of them sessions live on (`AGENT_SLACK_SURFACE`), when `auto` tries agent
 * sessions again after falling back (`AGENT_SURFACE_RETRY_MINUTES`), how a stream shows its tasks
 * (`AGENT_TASK_DISPLAY`) and the Messages tab's suggested prompts (`AGENT_SUGGESTED_PROMPTS`), each problem
 * named by its variable.
 */
import { z } from 'zod';
import type { TaskDisplay } from '../blocks/stream-plan.js';
import type { SuggestedPrompt } from '../services/people/messages-tab.js';
import { DEFAULT_SURFACE_RETRY_MS, type SurfaceSetting } from '../services/slack-out/agent-surface/index.js';
import { blankAsUnset } from './fields.js';

/** Slack shows up to four suggested prompts (assistant.threads.setSuggestedPrompts). */
export const MAX_SUGGESTED_PROMPTS = 4;

/** When nothing says otherwise: what the bot does, in words a person would type. */
export const DEFAULT_SUGGESTED_PROMPTS: SuggestedPrompt[] = [
  { title: 'Start an agent', message: 'Summarise what changed in our API this week' },
  { title: 'What can you do?', message: 'help' },
  // A long task works in a channel of its own (a code channel), its summary back here at the end.
  {
    title: 'A long task, in its own channel',
    message: '--channel Review our open pull requests, one by one',
  },
];

const NAME = 'AGENT_SUGGESTED_PROMPTS';
const FORM = `${NAME} must be a JSON array of 1 to ${MAX_SUGGESTED_PROMPTS} prompts, each "text" or {"title": "…", "message": "…"}`;

/**
 * `AGENT_SUGGESTED_PROMPTS`: a JSON array; a string is both title and message. Every problem is named by
 * its place (`AGENT_SUGGESTED_PROMPTS[2].message …`); undefined when unset or blank.
 */
export function parseSuggestedPrompts(
  raw: string | undefined,
): { ok: true; prompts: SuggestedPrompt[] | undefined } | { ok: false; errors: string[] } {
  if (raw === undefined || raw.trim() === '') return { ok: true, prompts: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message : 'unreadable';
    return { ok: false, errors: [`${FORM}; it is not valid JSON (${why.slice(0, 120)})`] };
  }
  if (!Array.isArray(parsed)) return { ok: false, errors: [`${FORM}; got ${typeName(parsed)}`] };
  if (parsed.length === 0 || parsed.length > MAX_SUGGESTED_PROMPTS)
    return { ok: false, errors: [`${FORM}; got ${parsed.length}`] };
  const errors: string[] = [];
  const prompts: SuggestedPrompt[] = [];
  parsed.forEach((item: unknown, i) => {
    const at = `${NAME}[${i}]`;
    if (typeof item === 'string') {
      if (item.trim() === '') errors.push(`${at} must not be empty`);
      else prompts.push({ title: item.trim(), message: item.trim() });
      return;
    }
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      errors.push(`${at} must be a string or {"title", "message"}; got ${typeName(item)}`);
      return;
    }
    const { title, message } = item as Record<string, unknown>;
    const bad = (field: string, value: unknown) =>
      typeof value !== 'string' || value.trim() === ''
        ? `${at}.${field} must be a non-empty string; got ${typeName(value)}`
        : undefined;
    const problems = [bad('title', title), bad('message', message)].filter((p) => p !== undefined);
    if (problems.length > 0) errors.push(...problems);
    else prompts.push({ title: String(title).trim(), message: String(message).trim() });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, prompts };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.trim() === '' ? 'an empty string' : 'a string';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

export const agentSurfaceSchema = z.object({
  AGENT_SLACK_SURFACE: blankAsUnset(
    z
      .enum(['auto', 'agent', 'classic'], { error: 'AGENT_SLACK_SURFACE must be auto, agent or classic' })
      .default('auto'),
  ),
  AGENT_SURFACE_RETRY_MINUTES: blankAsUnset(
    z.coerce
      .number({ error: 'AGENT_SURFACE_RETRY_MINUTES must be a number of minutes (0: never retry)' })
      .int({ error: 'AGENT_SURFACE_RETRY_MINUTES must be a whole number of minutes (0: never retry)' })
      .min(0, { error: 'AGENT_SURFACE_RETRY_MINUTES must be 0 (never retry) or more' })
      .optional(),
  ),
  AGENT_TASK_DISPLAY: blankAsUnset(
    z
      .enum(['timeline', 'plan'], { error: 'AGENT_TASK_DISPLAY must be timeline or plan' })
      .default('timeline'),
  ),
  AGENT_SUGGESTED_PROMPTS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const parsed = parseSuggestedPrompts(raw);
      if (parsed.ok) return parsed.prompts;
      for (const message of parsed.errors) ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }),
});

/** What the surfaces, the stream poster and the Messages tab are given. */
export interface AgentSurfaceConfig {
  surface: SurfaceSetting;
  /** Under `auto`, after a fallback to classic: when agent sessions are tried again (0: never). */
  surfaceRetryMs: number;
  taskDisplay: TaskDisplay;
  /** Unset: DEFAULT_SUGGESTED_PROMPTS (npm start fills it with the emulator's scenarios). */
  suggestedPrompts?: SuggestedPrompt[];
}

export function agentSurfaceSettings(env: z.output<typeof agentSurfaceSchema>): AgentSurfaceConfig {
  const minutes = env.AGENT_SURFACE_RETRY_MINUTES;
  return {
    surface: env.AGENT_SLACK_SURFACE,
    surfaceRetryMs: minutes === undefined ? DEFAULT_SURFACE_RETRY_MS : minutes * 60_000,
    taskDisplay: env.AGENT_TASK_DISPLAY ?? 'timeline',
    ...(env.AGENT_SUGGESTED_PROMPTS ? { suggestedPrompts: env.AGENT_SUGGESTED_PROMPTS } : {}),
  };
}
