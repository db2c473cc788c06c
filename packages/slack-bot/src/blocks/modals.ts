import type { HumanInputQuestion, HumanInputRequest } from '@agent-sessions/core';
import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { encodeRef, REF_LIMITS, VIEWS } from './ids.js';
import { escapeMrkdwn, mrkdwn, plain, section } from './text.js';

/** Slack's text inputs take at most 3000 characters. */
const INPUT_MAX = 3000;

const textInput = (
  blockId: string,
  label: string,
  opts: {
    multiline?: boolean;
    optional?: boolean;
    placeholder?: string;
    hint?: string;
    initial?: string;
  } = {},
): InputBlock => ({
  type: 'input',
  block_id: blockId,
  optional: opts.optional ?? false,
  label: plain(label, 2000),
  ...(opts.hint ? { hint: plain(opts.hint, 2000) } : {}),
  element: {
    type: 'plain_text_input',
    action_id: 'value',
    multiline: opts.multiline ?? false,
    max_length: INPUT_MAX,
    ...(opts.placeholder ? { placeholder: plain(opts.placeholder, 150) } : {}),
    ...(opts.initial ? { initial_value: opts.initial } : {}),
  },
});

/** What a form carries back on submit: the ref of what it acts on (keyed when too long), and extras. */
export interface FormMetadata {
  ref?: string;
  channelId?: string;
  spend?: number;
}

const modal = (
  callbackId: string,
  title: string,
  submit: string,
  metadata: FormMetadata,
  blocks: KnownBlock[],
): ModalView => ({
  type: 'modal',
  callback_id: callbackId,
  title: plain(title, 24),
  submit: plain(submit, 24),
  close: plain('Cancel', 24),
  private_metadata: JSON.stringify(metadata),
  blocks,
});

/**
 * What the start form's fields suggest, and `/agent help` and the mention hint show as their flags: the
 * service's own default of iterations per round (50), and a small budget.
 */
export const START_EXAMPLES = { budget: '5', maxIterations: '50' } as const;

/** The start flags as help shows them. */
export const START_FLAGS = `[--budget ${START_EXAMPLES.budget}] [--max-iterations ${START_EXAMPLES.maxIterations}]`;

/** `/agent start` without a goal: everything a session takes. */
export function startModal(channelId: string, initialGoal = ''): ModalView {
  return modal(VIEWS.start, 'Start an agent', 'Start', { channelId }, [
    textInput('goal', 'Goal', {
      multiline: true,
      placeholder: 'What should the agent do?',
      initial: initialGoal,
    }),
    textInput('budget', 'Budget ($)', {
      optional: true,
      placeholder: START_EXAMPLES.budget,
      hint: 'The agent stops when it has spent this much.',
    }),
    textInput('max_iterations', 'Max iterations per round', {
      optional: true,
      placeholder: START_EXAMPLES.maxIterations,
    }),
    textInput('context', 'Context (JSON)', {
      multiline: true,
      optional: true,
      placeholder: '{"repo": "acme/api"}',
      hint: 'Any JSON object; passed to the agent as is.',
    }),
  ]);
}

/** What `/agent settings` shows: the channel's current defaults, or what was typed when a save failed. */
export interface ChannelSettingsShown {
  budget?: string;
  maxIterations?: string;
  context?: string;
  /** Each session in its own channel: archived at its end, or kept open. */
  codeChannel?: 'archive' | 'keep';
}

/** Where a channel's sessions live: their thread, or a channel each (a code channel). */
const CODE_CHANNEL_CHOICES = [
  { value: 'thread', text: 'In its thread here' },
  { value: 'archive', text: 'Each session in its own channel, archived at its end' },
  { value: 'keep', text: 'Each session in its own channel, kept open at its end' },
] as const;

function codeChannelChoice(shown: ChannelSettingsShown['codeChannel']): InputBlock {
  const options = CODE_CHANNEL_CHOICES.map((c) => ({
    text: { type: 'plain_text' as const, text: c.text },
    value: c.value,
  }));
  const initial = options.find((o) => o.value === (shown ?? 'thread'));
  return {
    type: 'input',
    block_id: 'code_channel',
    optional: true,
    label: { type: 'plain_text', text: 'Where each session works' },
    element: {
      type: 'radio_buttons',
      action_id: 'value',
      options,
      ...(initial ? { initial_option: initial } : {}),
    },
  };
}

/** `/agent settings`: a channel's defaults for new sessions; an empty field sets none. */
export function channelSettingsModal(channelId: string, shown: ChannelSettingsShown = {}): ModalView {
  return modal(VIEWS.channelSettings, 'Channel defaults', 'Save', { channelId }, [
    section(
      `New sessions in <#${channelId}> start with these, unless their own \`--budget\` or \`--max-iterations\` say otherwise. Leave a field empty for no default.`,
    ),
    textInput('budget', 'Default budget ($)', {
      optional: true,
      placeholder: '5',
      ...(shown.budget ? { initial: shown.budget } : {}),
    }),
    textInput('max_iterations', 'Default max iterations per round', {
      optional: true,
      placeholder: '50',
      ...(shown.maxIterations ? { initial: shown.maxIterations } : {}),
    }),
    textInput('context', 'Default context (JSON)', {
      multiline: true,
      optional: true,
      placeholder: '{"repo": "acme/api"}',
      hint: 'A JSON object; a session’s own context keys win over these.',
      ...(shown.context ? { initial: shown.context } : {}),
    }),
    codeChannelChoice(shown.codeChannel),
  ]);
}

const sessionRef = (sessionId: string) => encodeRef({ sessionId }, REF_LIMITS.metadata);

export function redirectModal(sessionId: string): ModalView {
  return modal(VIEWS.redirect, 'Redirect the agent', 'Redirect', { ref: sessionRef(sessionId) }, [
    textInput('message', 'New direction', { multiline: true, placeholder: 'Focus on the API docs instead' }),
  ]);
}

export function rejectModal(sessionId: string, inputId: string, prompt: string): ModalView {
  const ref = encodeRef({ sessionId, inputId }, REF_LIMITS.metadata);
  return modal(VIEWS.reject, 'Reject', 'Reject', { ref }, [
    section(`*The agent asked:*\n${escapeMrkdwn(prompt)}`),
    textInput('reason', 'Reason', {
      multiline: true,
      optional: true,
      placeholder: 'Tell the agent why',
    }),
  ]);
}

export function raiseBudgetModal(sessionId: string, spend: number, budget: number | null): ModalView {
  return modal(VIEWS.raiseBudget, 'Raise the budget', 'Resume', { ref: sessionRef(sessionId), spend }, [
    {
      type: 'section',
      text: mrkdwn(
        `Spent *$${spend.toFixed(2)}*${budget ? ` of a $${budget.toFixed(2)} budget` : ''}. The new budget must be more than that.`,
      ),
    },
    textInput('budget', 'New budget ($)', { placeholder: (Math.ceil(spend) + 5).toString() }),
  ]);
}

const questionBlock = (question: HumanInputQuestion, index: number): InputBlock => {
  const blockId = `q_${index}`;
  const options: PlainTextOption[] = (question.options ?? [])
    .slice(0, 100)
    .map((o, i) => ({ text: plain(o.label, 75), value: String(i) }));
  const base = {
    type: 'input' as const,
    block_id: blockId,
    optional: !question.required,
    label: plain(question.prompt, 2000),
  };
  switch (question.kind) {
    case 'single_select':
      return {
        ...base,
        element:
          options.length <= 10
            ? { type: 'radio_buttons', action_id: 'value', options }
            : { type: 'static_select', action_id: 'value', options },
      };
    case 'multi_select':
      return {
        ...base,
        element:
          options.length <= 10
            ? { type: 'checkboxes', action_id: 'value', options }
            : { type: 'multi_static_select', action_id: 'value', options },
      };
    default:
      return textInput(blockId, question.prompt, { multiline: true, optional: !question.required });
  }
};

/** Free text and multi-question requests: one input per question. Block ids are `q_<index>` (or `answer`). */
export function answerModal(sessionId: string, request: HumanInputRequest): ModalView {
  const intro = section(`*The agent asks:*\n${escapeMrkdwn(request.prompt)}`);
  const ref = encodeRef({ sessionId, inputId: request.inputId }, REF_LIMITS.metadata);
  const inputs =
    request.kind === 'multi_question'
      ? (request.questions ?? []).slice(0, 98).map(questionBlock)
      : [textInput('answer', 'Your answer', { multiline: true })];
  return modal(VIEWS.answer, 'Answer the agent', 'Send', { ref }, [intro, ...inputs]);
}
