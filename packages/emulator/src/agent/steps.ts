import type { HumanInputAnswer, HumanInputRequest, QuestionWire } from '../model.js';

/** One thing the scripted agent does, after `delayMs` of (virtual) time. */
export type Step =
  | { kind: 'say'; delayMs: number; text: string; reasoning?: string; tokens?: number }
  | {
      kind: 'tool';
      delayMs: number;
      name: string;
      args: Record<string, unknown>;
      result: string;
      tokens?: number;
    }
  | {
      kind: 'ask';
      delayMs: number;
      request: Omit<HumanInputRequest, 'inputId'>;
      /** Absent: `human_input_needed`. */
      wire?: QuestionWire;
      /** What the agent does with the answer. */
      onAnswer: (answer: HumanInputAnswer) => Step[];
    }
  | { kind: 'complete'; delayMs: number; summary: string; details?: string[] }
  | { kind: 'fail'; delayMs: number; error: string }
  /** Appends `cycle()` and itself again: a script that works until cancelled. */
  | { kind: 'repeat'; delayMs: number; cycle: (iteration: number) => Step[] };

export const say = (
  delayMs: number,
  text: string,
  extra: { reasoning?: string; tokens?: number } = {},
): Step => ({
  kind: 'say',
  delayMs,
  text,
  ...extra,
});

export const tool = (
  delayMs: number,
  name: string,
  args: Record<string, unknown>,
  result: string,
  tokens?: number,
): Step => ({ kind: 'tool', delayMs, name, args, result, ...(tokens === undefined ? {} : { tokens }) });

export const complete = (delayMs: number, summary: string, details?: string[]): Step => ({
  kind: 'complete',
  delayMs,
  summary,
  ...(details ? { details } : {}),
});
