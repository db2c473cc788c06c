import type { HumanInputRequest } from '@agent-sessions/core';
import { z } from 'zod';
import { type SummarySnapshot, summaryOf } from '../../blocks/session-summary.js';
import type { PromptRecord, SessionRecord } from '../../store/records.js';

/** How MCP tools show sessions and questions: plain JSON a model reads, in the output schemas below. */

export const questionSchema = z.object({
  input_id: z.string(),
  kind: z.string().describe('approval, single_select, multi_select, free_text or multi_question'),
  prompt: z.string(),
  options: z.array(z.object({ id: z.string(), label: z.string() })).optional(),
  questions: z
    .array(
      z.object({
        id: z.string(),
        kind: z.string(),
        prompt: z.string(),
        options: z.array(z.object({ id: z.string(), label: z.string() })).optional(),
      }),
    )
    .optional(),
  min_selections: z.number().optional(),
  max_selections: z.number().optional(),
});
export type QuestionView = z.infer<typeof questionSchema>;

export const sessionSummarySchema = z.object({
  session_id: z.string(),
  goal: z.string(),
  status: z.string(),
  status_label: z.string().describe('The status in the words its Slack card uses'),
  channel_id: z.string(),
  started_by: z.string(),
  budget_usd: z.number().nullable(),
  finished: z.boolean(),
  created_at: z.string(),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

const optionsOf = (options: HumanInputRequest['options']) =>
  options?.map((o) => ({ id: o.id, label: o.label }));

export function questionView(request: HumanInputRequest): QuestionView {
  const options = optionsOf(request.options);
  return {
    input_id: request.inputId,
    kind: request.kind,
    prompt: request.prompt,
    ...(options ? { options } : {}),
    ...(request.questions
      ? {
          questions: request.questions.map((q) => {
            const inner = optionsOf(q.options);
            return { id: q.id, kind: q.kind, prompt: q.prompt, ...(inner ? { options: inner } : {}) };
          }),
        }
      : {}),
    ...(request.minSelections === undefined ? {} : { min_selections: request.minSelections }),
    ...(request.maxSelections === undefined ? {} : { max_selections: request.maxSelections }),
  };
}

/** A session as the store has it (the service not asked): its status in the card's words. */
export function sessionSummary(s: SessionRecord, now: number): SessionSummary {
  return {
    session_id: s.sessionId,
    goal: s.goal,
    status: s.status,
    status_label: summaryOf(s, undefined, now).label,
    channel_id: s.channelId,
    started_by: s.startedBy,
    budget_usd: s.budget,
    finished: s.finished,
    created_at: s.createdAt,
  };
}

/** The questions of a session still open, as a tool shows them. */
export const openQuestions = (pending: PromptRecord[]): QuestionView[] =>
  pending.filter((p) => p.state === 'pending').map((p) => questionView(p.request));

/**
 * A session's numbers as its card and `/agent status` show them: one summary of the store's record and
 * the service's snapshot (null when the service could not be asked). Cost, rounds and elapsed time stop
 * at the session's end; a number not known is null.
 */
export const sessionNumbersSchema = z.object({
  live_status: z.string().nullable().describe("The service's status now; null when it could not be asked"),
  status_label: z.string().describe('The status in the words its Slack card uses'),
  ended: z.boolean(),
  cost_usd: z.number().nullable(),
  budget_usd: z.number().nullable(),
  rounds: z.number().nullable(),
  elapsed_seconds: z.number().nullable().describe('From its start to its end (to now while it runs)'),
});
export type SessionNumbers = z.infer<typeof sessionNumbersSchema>;

export function sessionNumbers(
  s: SessionRecord,
  live: (SummarySnapshot & { status: string }) | undefined,
  now: number,
): SessionNumbers {
  const summary = summaryOf(s, live, now);
  return {
    live_status: live?.status ?? null,
    status_label: summary.label,
    ended: summary.ended,
    cost_usd: summary.cost ?? null,
    budget_usd: summary.budget,
    rounds: summary.rounds ?? null,
    elapsed_seconds: summary.elapsedMs === undefined ? null : Math.floor(summary.elapsedMs / 1000),
  };
}
