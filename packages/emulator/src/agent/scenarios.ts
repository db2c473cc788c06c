import type { HumanInputAnswer } from '../model.js';
import { complete, type Step, say, tool } from './steps.js';

export interface Scenario {
  description: string;
  /** Spend ceiling applied when the session sets none (only `cost_limit` has one). */
  defaultMaxCost?: number;
  steps(goal: string): Step[];
}

const choiceLabel = (answer: HumanInputAnswer, labels: Record<string, string>): string =>
  labels[answer.choiceId ?? ''] ?? String(answer.choiceId);

const researchOpening = (goal: string): Step[] => [
  say(1500, `I'll work on: ${goal}. First I'll look at what is there.`, {
    reasoning: 'Start by reading the repository and the open issues before changing anything.',
  }),
  tool(
    2000,
    'search_docs',
    { query: goal.slice(0, 80) },
    'Found 3 relevant documents: README.md, CHANGELOG.md, docs/release.md',
  ),
];

const longText = (paragraphs: number, seed: string): string =>
  Array.from(
    { length: paragraphs },
    (_, i) =>
      `Paragraph ${i + 1} of ${seed}: the agent explains its reasoning at length, citing the files it read, the commands it ran and what it concluded from each, so that a reviewer can follow every step without rerunning anything.`,
  ).join('\n\n');

export const SCENARIOS: Record<string, Scenario> = {
  complete: {
    description: 'Works for a few steps and completes with a report.',
    steps: (goal) => [
      ...researchOpening(goal),
      say(2000, 'Drafting the changes now.'),
      tool(2000, 'write_file', { path: 'docs/notes.md' }, 'Wrote 42 lines to docs/notes.md'),
      say(1500, 'All done: the notes are written and checked.'),
      complete(1000, `Completed: ${goal}`, ['Read 3 documents', 'Wrote docs/notes.md']),
    ],
  },
  approval: {
    description:
      'Asks for approval before deploying; approved -> deploys, rejected -> stops without deploying.',
    steps: (goal) => [
      ...researchOpening(goal),
      say(1500, 'The release is built and tested. I need approval before deploying to production.'),
      {
        kind: 'ask',
        delayMs: 1000,
        request: { kind: 'approval', prompt: 'Deploy v2.3.1 to production?' },
        onAnswer: (answer) =>
          answer.approved
            ? [
                tool(
                  1500,
                  'deploy',
                  { version: 'v2.3.1', target: 'production' },
                  'Deployed v2.3.1 to production',
                ),
                complete(1000, 'Deployed v2.3.1 to production after approval.'),
              ]
            : [
                say(
                  1000,
                  `Understood, I won't deploy.${answer.freeText ? ` Reason noted: ${answer.freeText}` : ''}`,
                ),
                complete(1000, 'Deployment skipped: the request was rejected.'),
              ],
      },
    ],
  },
  single_select: {
    description: 'Asks which environment to use (one of three), then completes using it.',
    steps: (goal) => [
      ...researchOpening(goal),
      {
        kind: 'ask',
        delayMs: 1500,
        request: {
          kind: 'single_select',
          prompt: 'Which environment should I deploy to?',
          options: [
            { id: 'staging', label: 'Staging', description: 'Safe to break' },
            { id: 'production', label: 'Production' },
            { id: 'canary', label: 'Canary (5% of traffic)' },
          ],
        },
        onAnswer: (answer) => {
          const env = choiceLabel(answer, { staging: 'Staging', production: 'Production', canary: 'Canary' });
          return [
            tool(1500, 'deploy', { target: answer.choiceId }, `Deployed to ${env}`),
            complete(1000, `Deployed to ${env}.`),
          ];
        },
      },
    ],
  },
  multi_select: {
    description: 'Asks which regions to deploy to (1 to 2 of 3), then completes.',
    steps: (goal) => [
      ...researchOpening(goal),
      {
        kind: 'ask',
        delayMs: 1500,
        request: {
          kind: 'multi_select',
          prompt: 'Which regions should I deploy to?',
          options: [
            { id: 'eu', label: 'Europe', description: 'Frankfurt' },
            { id: 'us', label: 'US East' },
            { id: 'ap', label: 'Asia Pacific', description: 'Singapore' },
          ],
          minSelections: 1,
          maxSelections: 2,
        },
        onAnswer: (answer) => [
          tool(
            1500,
            'deploy',
            { regions: answer.choiceIds },
            `Deployed to ${(answer.choiceIds ?? []).join(', ')}`,
          ),
          complete(1000, `Deployed to ${(answer.choiceIds ?? []).length} region(s).`),
        ],
      },
    ],
  },
  free_text: {
    description: 'Asks for a release name (free text), then completes using it.',
    steps: (goal) => [
      ...researchOpening(goal),
      {
        kind: 'ask',
        delayMs: 1500,
        request: { kind: 'free_text', prompt: 'What should the release be called?' },
        onAnswer: (answer) => [
          say(1000, `Naming the release "${answer.freeText}".`),
          complete(1000, `Release "${answer.freeText}" prepared.`),
        ],
      },
    ],
  },
  multi_question: {
    description:
      'Asks two questions at once (a required free-text name and a channel choice), then completes.',
    steps: (goal) => [
      ...researchOpening(goal),
      {
        kind: 'ask',
        delayMs: 1500,
        request: {
          kind: 'multi_question',
          prompt: 'Two details before I publish',
          questions: [
            { id: 'name', prompt: 'Release name?', kind: 'free_text', required: true },
            {
              id: 'channel',
              prompt: 'Channel?',
              kind: 'single_select',
              options: [
                { id: 'stable', label: 'Stable' },
                { id: 'beta', label: 'Beta' },
              ],
            },
          ],
        },
        onAnswer: (answer) => [
          say(
            1000,
            `Publishing "${String(answer.answers?.name)}" to ${String(answer.answers?.channel ?? 'stable')}.`,
          ),
          complete(1000, 'Published.'),
        ],
      },
    ],
  },
  unreadable_question: {
    description:
      'Asks when to run a migration in a shape our client does not read (an MCP-style elicitation message, not human_input_needed, with the id under requestId); answered with freeText to that id, says "Got it: <text>" and completes.',
    steps: (goal) => [
      say(1500, `I'll work on: ${goal}. One thing I can't decide alone.`),
      {
        kind: 'ask',
        delayMs: 1500,
        wire: 'elicitation',
        request: { kind: 'free_text', prompt: 'When may I run the database migration?' },
        onAnswer: (answer) => [
          say(1000, `Got it: ${answer.freeText}`),
          complete(1000, `Migration scheduled: ${answer.freeText}`),
        ],
      },
    ],
  },
  cost_limit: {
    description:
      'Expensive steps: stops in cost_limit at the session ceiling (default $0.50 when none is set); resume with a larger newBudget to finish.',
    defaultMaxCost: 0.5,
    steps: (goal) => [
      say(1500, `Starting an expensive analysis of: ${goal}`),
      ...Array.from({ length: 6 }, (_, i) =>
        tool(1500, 'analyze_dataset', { shard: i + 1 }, `Shard ${i + 1} of 6 analysed`, 20_000),
      ),
      complete(1000, 'Analysed all 6 shards.'),
    ],
  },
  error: {
    description: 'Works briefly, then a tool fails and the session ends in error.',
    steps: (goal) => [
      ...researchOpening(goal),
      tool(1500, 'deploy', { target: 'production' }, 'error: connection refused (exit code 1)'),
      { kind: 'fail', delayMs: 500, error: "Tool 'deploy' failed: connection refused (exit code 1)" },
    ],
  },
  long: {
    description: 'Works until cancelled: a message and a tool call every few seconds.',
    steps: (goal) => [
      say(1500, `Starting long-running work on: ${goal}`),
      {
        kind: 'repeat',
        delayMs: 0,
        cycle: (i) => [
          say(2000, `Step ${i + 1}: checking the next batch.`),
          tool(1000, 'process_batch', { batch: i + 1 }, `Batch ${i + 1} processed`),
        ],
      },
    ],
  },
  growing_round: {
    description: 'One round that keeps growing slowly (30 messages, one per second), then completes.',
    steps: () => [
      ...Array.from({ length: 30 }, (_, i) => say(1000, `Progress note ${i + 1} of 30.`)),
      complete(500, 'Finished after 30 progress notes.'),
    ],
  },
  chatty: {
    description:
      'Many long messages fast: 72 in one round (some over 4,000 characters, one over 40,000), tool calls and reasoning, within the default 50 iterations, then completes.',
    steps: () => [
      ...Array.from({ length: 24 }, (_, i): Step[] => {
        const text =
          i === 12
            ? longText(220, 'the full audit')
            : i % 10 === 5
              ? longText(25, `note ${i}`)
              : `Observation ${i + 1}.`;
        return [
          say(100, text, { reasoning: `Thinking about observation ${i + 1} before acting.` }),
          tool(100, 'read_file', { path: `src/module_${i}.ts` }, `export const module${i} = ${i};`),
        ];
      }).flat(),
      complete(200, 'Reviewed 24 modules.', ['72 messages written']),
    ],
  },
};

export const SCENARIO_NAMES = Object.keys(SCENARIOS);

/**
 * `context.workSteps: n` puts n cycles of ordinary work (a message and a tool call, ~3 s each) before any
 * scenario's script: benchmarks use it to make questions arrive at spread-out times.
 */
export function workSteps(context: Record<string, unknown> | null): Step[] {
  const n = context?.workSteps;
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) return [];
  return Array.from({ length: Math.min(n, 10_000) }, (_, i) => [
    say(2000, `Working: step ${i + 1} of ${n}.`),
    tool(1000, 'process_batch', { batch: i + 1 }, `Batch ${i + 1} processed`),
  ]).flat();
}

/** `context.scenario`, else a `scenario:<name>` word in the goal, else `complete`. */
export function scenarioFor(goal: string, context: Record<string, unknown> | null): string | undefined {
  const fromContext = context?.scenario;
  if (typeof fromContext === 'string') return fromContext;
  const match = /(?:^|\s)scenario:([a-z_]+)/i.exec(goal);
  if (match?.[1]) return match[1].toLowerCase();
  return 'complete';
}
