import { describeAnswer, type HumanInputAnswer, type HumanInputRequest } from '@agent-sessions/core';
import type { ActionsBlock, Checkboxes, KnownBlock, MultiStaticSelect, PlainTextOption } from '@slack/types';
import type { PromptRecord } from '../store/records.js';
import { safeMrkdwn } from './agent-message.js';
import { ACTIONS, type ActionRef, encodeRef, REF_LIMITS } from './ids.js';
import { blockWords, escapeMrkdwn, mrkdwn, plain, type SlackMessage, slackDate, truncate } from './text.js';

const MAX_BUTTON_CHOICES = 5;
const MAX_CHECKBOXES = 10;
const MAX_SELECT_OPTIONS = 100;

export interface PromptContext {
  sessionId: string;
  /** Mentioned, so the person who started the session is notified. */
  startedBy: string;
  /** Who may answer ("Waiting for an approver: <!subteam^S1>"), from the policy; shown under the controls. */
  answerers?: string;
}

const option = (label: string, index: number, description?: string): PlainTextOption => ({
  text: plain(label, 75),
  value: String(index),
  ...(description ? { description: plain(description, 75) } : {}),
});

/** A human-input request as a message in the session's thread, with controls to answer it. */
export function promptMessage(request: HumanInputRequest, ctx: PromptContext): SlackMessage {
  const ref = { sessionId: ctx.sessionId, inputId: request.inputId };
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwn(`<@${ctx.startedBy}> *The agent asks:*\n${escapeMrkdwn(request.prompt)}`),
    },
    ...answerControls(request, ref),
  ];
  const options = request.options ?? [];
  if (options.length > MAX_SELECT_OPTIONS) {
    blocks.push({
      type: 'context',
      elements: [mrkdwn(`Only the first ${MAX_SELECT_OPTIONS} of ${options.length} options fit in Slack.`)],
    });
  }
  if (ctx.answerers) blocks.push({ type: 'context', elements: [mrkdwn(`👤 ${ctx.answerers}`)] });
  // The notification text is read as mrkdwn too: the agent's words escaped there as in the blocks.
  return { text: `The agent asks: ${safeMrkdwn(truncate(request.prompt, 200))}`, blocks };
}

/** The blocks a person answers with, by the request's kind. */
function answerControls(request: HumanInputRequest, ref: ActionRef): KnownBlock[] {
  const value = encodeRef(ref, REF_LIMITS.value);
  switch (request.kind) {
    case 'approval':
      return [
        {
          type: 'actions',
          block_id: 'answer',
          elements: [
            {
              type: 'button',
              action_id: ACTIONS.approve,
              text: plain('Approve', 75),
              style: 'primary',
              value,
            },
            { type: 'button', action_id: ACTIONS.reject, text: plain('Reject', 75), style: 'danger', value },
          ],
        },
      ];
    case 'single_select':
      return singleSelectControls(request, ref);
    case 'multi_select':
      return multiSelectControls(request, value);
    case 'free_text':
    case 'multi_question':
      return formControls(request, value);
    default:
      return [];
  }
}

/** One button per option when they fit, else a select (its ref in the block_id). */
function singleSelectControls(request: HumanInputRequest, ref: ActionRef): KnownBlock[] {
  const options = request.options ?? [];
  if (options.length <= MAX_BUTTON_CHOICES) {
    return [
      {
        type: 'actions',
        block_id: 'answer',
        elements: options.map((o, i) => ({
          type: 'button',
          action_id: `${ACTIONS.choose}_${i}`,
          text: plain(o.label, 75),
          value: encodeRef({ ...ref, option: i }, REF_LIMITS.value),
        })),
      },
    ];
  }
  return [
    {
      type: 'section',
      // The select's value is the option, so the prompt's ref rides in the block_id: its short key
      // when the ref is longer than a block_id may be.
      block_id: encodeRef(ref, REF_LIMITS.blockId),
      text: mrkdwn('Choose one:'),
      accessory: {
        type: 'static_select',
        action_id: ACTIONS.select,
        placeholder: plain('Choose…', 150),
        options: options.slice(0, MAX_SELECT_OPTIONS).map((o, i) => option(o.label, i, o.description)),
      },
    },
  ];
}

/** Checkboxes (or a multi-select when there are many options), a Submit button and how many to choose. */
function multiSelectControls(request: HumanInputRequest, value: string): KnownBlock[] {
  const options = request.options ?? [];
  const min = request.minSelections ?? 1;
  const max = request.maxSelections ?? options.length;
  const element: Checkboxes | MultiStaticSelect =
    options.length <= MAX_CHECKBOXES
      ? {
          type: 'checkboxes',
          action_id: ACTIONS.multiChoice,
          options: options.map((o, i) => option(o.label, i, o.description)),
        }
      : {
          type: 'multi_static_select',
          action_id: ACTIONS.multiChoice,
          placeholder: plain('Choose…', 150),
          max_selected_items: max,
          options: options.slice(0, MAX_SELECT_OPTIONS).map((o, i) => option(o.label, i)),
        };
  const choices: ActionsBlock = { type: 'actions', block_id: 'choices', elements: [element] };
  return [
    choices,
    {
      type: 'actions',
      block_id: 'answer',
      elements: [
        {
          type: 'button',
          action_id: ACTIONS.submitChoices,
          text: plain('Submit', 75),
          style: 'primary',
          value,
        },
      ],
    },
    {
      type: 'context',
      elements: [mrkdwn(min === max ? `Choose ${min}.` : `Choose ${min} to ${max}.`)],
    },
  ];
}

/** An Answer button that opens the form; for several questions, the list of them above it. */
function formControls(request: HumanInputRequest, value: string): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (request.kind === 'multi_question' && request.questions?.length) {
    // What will be asked, before anyone opens the form (the form shows each question in full).
    const list = request.questions
      .map((q) => `• ${escapeMrkdwn(truncate(q.prompt, 300))}${q.required ? '' : ' _(optional)_'}`)
      .join('\n');
    blocks.push({ type: 'section', text: mrkdwn(list) });
  }
  blocks.push({
    type: 'actions',
    block_id: 'answer',
    elements: [
      { type: 'button', action_id: ACTIONS.answer, text: plain('Answer', 75), style: 'primary', value },
    ],
  });
  return blocks;
}

/** The prompt after it was answered: who answered what and when; controls gone. */
export function answeredPrompt(
  request: HumanInputRequest,
  answer: HumanInputAnswer,
  by: string,
  at: Date,
): SlackMessage {
  const time = slackDate(at);
  const rejected = request.kind === 'approval' && answer.approved === false;
  const summary = describeAnswer(request, answer);
  const icon = rejected ? '❌' : '✅';
  const line =
    request.kind === 'approval'
      ? `${icon} ${rejected ? 'Rejected' : 'Approved'} by <@${by}>${answer.freeText ? `: ${escapeMrkdwn(answer.freeText)}` : ''}`
      : `${icon} <@${by}> answered: ${escapeMrkdwn(summary)}`;
  return {
    text: `${safeMrkdwn(truncate(summary, 200))} — answered by a person ${time}`,
    blocks: [
      { type: 'section', text: mrkdwn(`*The agent asked:*\n${escapeMrkdwn(request.prompt)}`) },
      { type: 'context', elements: [mrkdwn(`${line} · ${time}`)] },
    ],
  };
}

/** cost_limit: the budget is spent; a person may raise it and resume. */
export function costLimitMessage(sessionId: string, startedBy: string, spend: number): SlackMessage {
  const text = `Budget reached at $${spend.toFixed(2)}`;
  return {
    text,
    blocks: [
      {
        type: 'section',
        text: mrkdwn(`<@${startedBy}> 💸 *${text}.* The agent stopped; raise the budget to let it continue.`),
      },
      {
        type: 'actions',
        block_id: 'budget',
        elements: [
          {
            type: 'button',
            action_id: ACTIONS.raiseBudget,
            text: plain('Raise budget and resume', 75),
            style: 'primary',
            value: encodeRef({ sessionId }),
          },
        ],
      },
    ],
  };
}

/**
 * The budget prompt once the session has left cost_limit: the button gone, and what became of it
 * (resumed under a new budget, or ended some other way).
 */
export function costLimitResolved(
  startedBy: string,
  outcome: { resumed: true; budget: number | null } | { resumed: false; status: string },
): SlackMessage {
  const result = outcome.resumed
    ? `✅ The budget was raised${outcome.budget === null ? '' : ` to $${outcome.budget.toFixed(2)}`} and the agent continued.`
    : `The session ended (${escapeMrkdwn(outcome.status)}) without more budget.`;
  return {
    text: `Budget reached. ${result}`,
    blocks: [{ type: 'section', text: mrkdwn(`<@${startedBy}> 💸 *Budget reached.* ${result}`) }],
  };
}

/** How a prompt looks once answered, from what the store recorded (an answer null: answered elsewhere). */
export function promptAsAnswered(
  record: Pick<PromptRecord, 'request' | 'answer' | 'answeredBy' | 'answeredAt' | 'carried'>,
): SlackMessage {
  const shown = answeredShown(record);
  if (!record.carried?.length) return shown;
  // The agent's messages the prompt's post carried stay ahead of it, in its blocks and in its text.
  return {
    ...shown,
    text: [...record.carried.map((block) => blockWords([block])), shown.text]
      .filter((t) => t.length > 0)
      .join('\n\n'),
    blocks: [...record.carried, ...(shown.blocks ?? [])],
  };
}

function answeredShown(
  record: Pick<PromptRecord, 'request' | 'answer' | 'answeredBy' | 'answeredAt'>,
): SlackMessage {
  const { request } = record;
  if (record.answer && record.answeredBy) {
    return answeredPrompt(
      request,
      record.answer,
      record.answeredBy,
      record.answeredAt ? new Date(record.answeredAt) : new Date(),
    );
  }
  return {
    text: 'Answered outside Slack',
    blocks: [
      { type: 'section', text: mrkdwn(`*The agent asked:*\n${escapeMrkdwn(request.prompt)}`) },
      { type: 'context', elements: [mrkdwn('✅ Answered outside Slack')] },
    ],
  };
}
