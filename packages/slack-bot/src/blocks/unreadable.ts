import type { HumanInputRequest } from '@agent-sessions/core';
import type { Button, KnownBlock } from '@slack/types';
import { ACTIONS, encodeRef, REF_LIMITS } from './ids.js';
import { cancelButton } from './session-card.js';
import { escapeMrkdwn, mrkdwn, plain, type SlackMessage, section } from './text.js';

/** How much of the raw data is shown: enough to see what the agent sent, inside one section. */
export const RAW_EXCERPT_MAX = 1_500;

export const UNREADABLE_PROMPT = 'The agent is waiting for an answer that could not be read';

/**
 * What the answering service works with for a question nobody could read: a free-text question to the
 * input id found, so "Answer as text" goes through the same claim, checks and answered state as any other.
 */
export function unreadableAsFreeText(inputId: string, raw: unknown): HumanInputRequest {
  return { inputId, kind: 'free_text', prompt: UNREADABLE_PROMPT, raw };
}

/** The raw data as JSON, cut to `max` characters with how much was left out; safe inside a code block. */
export function rawExcerpt(raw: unknown, max = RAW_EXCERPT_MAX): string {
  let json: string;
  try {
    json = JSON.stringify(raw, null, 2) ?? String(raw);
  } catch {
    json = String(raw);
  }
  const cut =
    json.length <= max
      ? json
      : `${json.slice(0, max)}\n… (${(json.length - max).toLocaleString('en-US')} more characters not shown)`;
  // A fence inside would end the code block early.
  return escapeMrkdwn(cut).replace(/```/g, "'''");
}

/**
 * A session waiting on a question that could not be read: said in its thread, with the raw data, and
 * never without something to click — Answer as text when an input id was found, Cancel always.
 */
export function unreadableQuestionMessage(input: {
  sessionId: string;
  startedBy: string;
  inputId?: string;
  raw: unknown;
}): SlackMessage {
  const cancel = cancelButton(input.sessionId, 'Keep waiting');
  const answer: Button | undefined = input.inputId
    ? {
        type: 'button',
        action_id: ACTIONS.answer,
        text: plain('Answer as text', 75),
        style: 'primary',
        value: encodeRef({ sessionId: input.sessionId, inputId: input.inputId }, REF_LIMITS.value),
      }
    : undefined;
  const how = input.inputId
    ? 'Answer it as text, or cancel the session.'
    : 'No question id could be found, so it can’t be answered from here: cancel the session, or answer it with the API.';
  const blocks: KnownBlock[] = [
    section(`<@${input.startedBy}> ⚠️ *${UNREADABLE_PROMPT}.* ${how}`),
    section(`\`\`\`${rawExcerpt(input.raw)}\`\`\``),
    { type: 'actions', block_id: 'unreadable', elements: answer ? [answer, cancel] : [cancel] },
    { type: 'context', elements: [mrkdwn('What the service sent while waiting, as read.')] },
  ];
  return { text: `${UNREADABLE_PROMPT}.`, blocks };
}
