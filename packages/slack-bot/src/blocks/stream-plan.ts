/**
 * A stream shown as a plan (`AGENT_TASK_DISPLAY=plan`): Slack shows the round's tool calls together as
 * one checklist under a title, instead of a timeline of tasks one after another. Pure: what
 * `chat.startStream` is given for it.
 */
import type { AnyChunk } from '@slack/types';
import { safeMarkdown } from './markup.js';
import { shownGoal } from './session-summary.js';

/** How a stream shows the agent's tool calls: Slack's timeline (each task in turn) or a plan (a checklist). */
export type TaskDisplay = 'timeline' | 'plan';

/** Slack's title limits are not published for plans: kept to a session title's (setStatus, 200). */
export const PLAN_TITLE_MAX = 200;

/**
 * The goal as a plan's title: one line, never empty, said as a continuation on the next stream; the
 * goal is someone else's words, so it can't ping anyone and its links show where they go.
 */
export function planTitle(goal: string, continuation = false): string {
  const line = safeMarkdown(shownGoal(goal).replace(/\s+/g, ' ')).trim() || 'Agent session';
  const text = continuation ? `${line} (continued)` : line;
  return text.length <= PLAN_TITLE_MAX ? text : `${text.slice(0, PLAN_TITLE_MAX - 1)}…`;
}

/** What a stream starts with, besides its content: timeline (Slack's default) needs nothing. */
export interface StreamStart {
  task_display_mode?: 'plan';
  /** Chunks that go before the content: the plan's title. */
  lead: AnyChunk[];
}

export function streamStart(
  display: TaskDisplay,
  goal: string | undefined,
  continuation: boolean,
): StreamStart {
  if (display !== 'plan') return { lead: [] };
  return {
    task_display_mode: 'plan',
    lead: [{ type: 'plan_update', title: planTitle(goal ?? '', continuation) }],
  };
}
