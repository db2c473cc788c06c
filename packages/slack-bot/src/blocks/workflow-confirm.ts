/**
 * The confirmation a workflow step asks of the person who ran the workflow before it starts a session
 * in their name: whoever built the workflow wrote its goal and context, so the runner sees them (defused,
 * as any text the bot didn't write) with the budget and the channel, and starts it or cancels.
 */
import type { KnownBlock, ModalView } from '@slack/types';
import { safeMrkdwn } from './agent-message.js';
import { VIEWS } from './ids.js';
import { formatUsd, plain, section, truncate } from './text.js';

/** What the step asks to start, as its inputs were read. */
export interface ConfirmedStart {
  goal: string;
  channelId?: string;
  budget?: number;
  maxIterations?: number;
  context?: Record<string, unknown>;
  /** "Person to ask": who the session's questions go to; never who starts it. */
  askUserId?: string;
}

/** What the confirmation carries back: the step's execution. */
export interface ConfirmMetadata {
  executionId: string;
}

const GOAL_MAX = 2_500;
const CONTEXT_ENTRIES = 10;
const CONTEXT_VALUE_MAX = 80;

/** The context as a few `key: value` lines, each cut short: what the session is told besides its goal. */
function contextSummary(context: Record<string, unknown> | undefined): string {
  const entries = Object.entries(context ?? {});
  if (entries.length === 0) return 'none';
  const lines = entries.slice(0, CONTEXT_ENTRIES).map(([key, value]) => {
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    return `• ${safeMrkdwn(truncate(key, 40))}: ${safeMrkdwn(truncate(shown ?? '', CONTEXT_VALUE_MAX))}`;
  });
  const more = entries.length - CONTEXT_ENTRIES;
  return [...lines, ...(more > 0 ? [`…and ${more} more`] : [])].join('\n');
}

/** Whose key the session would run on, said plainly. */
const keyLine = (personalKey: boolean) =>
  personalKey ? 'on *your own* Agent Session Service key' : 'on this workspace’s Agent Session Service key';

export function confirmStartView(
  start: ConfirmedStart,
  executionId: string,
  options: { personalKey: boolean },
): ModalView {
  const metadata: ConfirmMetadata = { executionId };
  const blocks: KnownBlock[] = [
    section(
      `A workflow you ran asks to start an agent session *in your name*: ${keyLine(options.personalKey)}, with you named as its starter on its card and in the audit record. Whoever built the workflow wrote what follows, and chose where its result goes next (the session's report, whatever the channel): start it only if you mean to.`,
    ),
    section(`*Goal*\n${safeMrkdwn(truncate(start.goal, GOAL_MAX))}`),
    {
      type: 'section',
      fields: [
        {
          type: 'mrkdwn',
          text: `*Budget*\n${start.budget === undefined ? 'the channel’s default' : formatUsd(start.budget)}`,
        },
        {
          type: 'mrkdwn',
          text: `*Channel*\n${start.channelId ? `<#${start.channelId}>` : 'your DM with the app'}`,
        },
        ...(start.maxIterations === undefined
          ? []
          : [{ type: 'mrkdwn' as const, text: `*Max iterations*\n${start.maxIterations}` }]),
        ...(start.askUserId
          ? [{ type: 'mrkdwn' as const, text: `*Person to ask*\n<@${start.askUserId}>` }]
          : []),
      ],
    },
    section(`*Context*\n${contextSummary(start.context)}`),
  ];
  return {
    type: 'modal',
    callback_id: VIEWS.workflowConfirm,
    title: plain('Start agent session?', 24),
    submit: plain('Start', 24),
    close: plain('Cancel', 24),
    // Cancel and the X must reach the bot: the step then fails, saying the runner declined.
    notify_on_close: true,
    private_metadata: JSON.stringify(metadata),
    blocks,
  };
}

/** What a confirmation shows once its step no longer waits for it (answered, or past its deadline). */
export function confirmGoneView(): ModalView {
  return {
    type: 'modal',
    title: plain('Start agent session?', 24),
    close: plain('Close', 24),
    blocks: [
      section(
        'This workflow step no longer waits for your answer (it was answered, or it ran out of time), so nothing more starts from it. Run the workflow again to start its session.',
      ),
    ],
  };
}

/** The execution a confirmation is for, from its metadata; undefined when it isn't one of ours. */
export function confirmedExecutionOf(privateMetadata: string | undefined): string | undefined {
  try {
    const parsed: unknown = JSON.parse(privateMetadata || '{}');
    const id = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'executionId') : undefined;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}
