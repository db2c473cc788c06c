import type { HumanInputRequest } from '../model.js';
import { complete, type Step, say, tool } from './steps.js';

/** A subagent's own little script (`concurrent-rounds`), run beside the main line in its own round. */
export interface Subagent {
  steps: Step[];
  next: number;
}

// Questions of these scenarios come from a subagent's round; the others are asked by the main round
// while a newer subagent round is open. Either way the question's round isn't the newest.
export const ASKED_BY_SUBAGENT: ReadonlySet<string> = new Set([
  'approval',
  'single_select',
  'multi_question',
]);

/** Opened by the first piece of work of every main round. */
export const researcherSteps = (n: number): Step[] => [
  say(600, `Subagent ${n}: reading the context for the main agent.`),
  tool(800, 'read_file', { path: `notes/context_${n}.md` }, `Context ${n}: 12 lines`),
  say(700, `Subagent ${n}: summary sent to the main agent.`),
  complete(300, ''),
];

/** Opened beside a question (after the asker, so it is the newer round). */
export const helperSteps = (): Step[] => [
  say(700, 'Helper subagent: collecting the release notes meanwhile.'),
  tool(700, 'read_file', { path: 'CHANGELOG.md' }, 'CHANGELOG.md: 3 entries since the last release'),
  say(600, 'Helper subagent: release notes ready.'),
  complete(200, ''),
];

/** A subagent that says what it checks, then asks the main script's question. */
export const askerSteps = (step: Step & { kind: 'ask' }, request: HumanInputRequest): Step[] => [
  say(500, 'Subagent: checking what needs a decision before going on.'),
  { ...step, delayMs: 900, request },
];
