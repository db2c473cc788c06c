import type { HumanInputRequest } from '@agent-sessions/core';

// The questions an agent asks, one of each kind, as the tests of core, the bot and the n8n node use them:
// the shapes of the emulator's scenarios (an approval, an environment, regions, a release name, a form).

/** A question of `kind` with the fields every kind has; `extra` adds or replaces any. */
export const question = (
  kind: HumanInputRequest['kind'],
  extra: Partial<HumanInputRequest> = {},
): HumanInputRequest => ({ inputId: 'in_1', kind, prompt: 'Deploy v2.3.1?', raw: null, ...extra });

export const approval: HumanInputRequest = {
  inputId: 'in_1',
  kind: 'approval',
  prompt: 'Deploy v2.3.1?',
  raw: {},
};

export const singleSelect: HumanInputRequest = {
  inputId: 'in_2',
  kind: 'single_select',
  prompt: 'Which environment?',
  options: [
    { id: 'staging', label: 'Staging', description: 'Safe to break' },
    { id: 'production', label: 'Production' },
    { id: 'canary', label: 'Canary (5% of traffic)' },
  ],
  raw: {},
};

/** One or two of three. */
export const multiSelect: HumanInputRequest = {
  inputId: 'in_3',
  kind: 'multi_select',
  prompt: 'Which regions?',
  options: [
    { id: 'eu', label: 'Europe' },
    { id: 'us', label: 'US East' },
    { id: 'ap', label: 'Asia Pacific' },
  ],
  minSelections: 1,
  maxSelections: 2,
  raw: {},
};

export const freeText: HumanInputRequest = {
  inputId: 'in_4',
  kind: 'free_text',
  prompt: 'Release name?',
  raw: {},
};

/** A required text, an optional choice, a required multiple choice. */
export const multiQuestion: HumanInputRequest = {
  inputId: 'in_5',
  kind: 'multi_question',
  prompt: 'Two details',
  questions: [
    { id: 'name', prompt: 'Release name?', kind: 'free_text', required: true },
    {
      id: 'channel',
      prompt: 'Channel?',
      kind: 'single_select',
      required: false,
      options: [
        { id: 'stable', label: 'Stable' },
        { id: 'beta', label: 'Beta' },
      ],
    },
    {
      id: 'targets',
      prompt: 'Targets?',
      kind: 'multi_select',
      required: true,
      options: [
        { id: 'web', label: 'Web' },
        { id: 'ios', label: 'iOS' },
      ],
    },
  ],
  raw: {},
};
