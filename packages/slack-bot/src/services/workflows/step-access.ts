/**
 * Whom a workflow step acts for. Anyone may build a workflow around the app's steps and fill in their
 * inputs, so no input says who starts a session: the starter is the person who ran the workflow, as
 * Slack names them in the step's `interactivity` input, with their key, their name on the card and in the
 * record, and their rights in the channel. "Person to ask" only names who is asked, where the approvals
 * policy would let the runner's session ask them. A run nobody ran (a schedule, an event, a webhook) is
 * the workspace's own: its key, the bot as the card's starter, the workflow in the record, and only
 * where the operator allows such runs.
 */
import type { HumanInputRequest } from '@agent-sessions/core';
import type { SessionRecord } from '../../store/records.js';
import { type ActPolicy, isDirectConversation } from '../people/policy.js';
import type { StartInput } from '../people/starting.js';
import type { RunInputs } from './step-inputs.js';

/** The workflow run a step belongs to, as `function_executed` names it (Slack sends no workflow title). */
export interface WorkflowRef {
  /** `workflow_execution_id` (Wx…). */
  executionId: string;
  /** The step's title (`function.title`). */
  step?: string;
}

export interface StepAccess {
  /** Who is in a channel, as `/agent start`'s visibility and the `channel-members` policy read it. */
  members: { includes(channelId: string, userId: string): Promise<boolean> };
  /** AGENT_APPROVAL_POLICY: who may answer a session's questions. */
  policy: Pick<ActPolicy, 'mayAct'>;
  /** The bot's own user in the current workspace: the card's starter of a run nobody ran. */
  botUserId: () => Promise<string | undefined>;
  /** WORKFLOW_UNATTENDED_RUNS: whether a run with no person behind it may start a session. */
  unattended: boolean;
  /**
   * Whether a conversation is a public channel of the workspace (conversations.info): the one kind a run
   * nobody ran may start in, since no member's rights stand behind it and its result goes to whoever
   * built the workflow.
   */
  publicChannel: (channelId: string) => Promise<boolean>;
}

export type StartPlan = { ok: true; input: StartInput; ask?: string } | { ok: false; message: string };

/** The question the ask check is made for: an approval, the kind the policies are strictest about. */
const APPROVAL: HumanInputRequest = { inputId: 'workflow-ask', kind: 'approval', prompt: '', raw: null };

const NOBODY_RAN =
  'This step starts a session only for the person who runs the workflow, and nobody ran this one (it started from a schedule, an event or a webhook); runs with no person behind them are off here (WORKFLOW_UNATTENDED_RUNS).';

/** The start a step asks for, as its runner (or the workspace) may make it; or why it can't be made. */
export async function startPlan(
  access: StepAccess,
  runner: string | undefined,
  inputs: RunInputs,
  workflow: WorkflowRef,
): Promise<StartPlan> {
  const { askUserId, channelId, ...rest } = inputs;
  const origin = runner ? 'started by a workflow' : UNATTENDED_ORIGIN;
  let starter: string;
  if (runner) {
    starter = runner;
    // The runner's rights in the channel: a step posts only where its runner is a member.
    if (channelId && !(await access.members.includes(channelId, runner)))
      return {
        ok: false,
        message: `channel: ${channelId} is not a conversation you are in; the session starts only where the person who runs the workflow is a member. Pick a channel you are in, or leave it empty for your DM with the app.`,
      };
  } else {
    if (!access.unattended) return { ok: false, message: NOBODY_RAN };
    if (!channelId)
      return {
        ok: false,
        message: 'channel: required when nobody runs the workflow (there is no person’s DM to use).',
      };
    if (!(await access.publicChannel(channelId)))
      return {
        ok: false,
        message: `channel: ${channelId} is not a public channel; a run nobody ran starts sessions only in public channels, since no person's membership stands behind it and its result goes to the workflow's next steps. Pick a public channel, or have a person run the workflow.`,
      };
    const bot = await access.botUserId();
    if (!bot) return { ok: false, message: 'The app could not tell its own user here; try again.' };
    starter = bot;
  }
  const place = channelId ?? starter;
  if (askUserId && askUserId !== starter) {
    const target = {
      kind: 'answer' as const,
      session: { sessionId: '', startedBy: starter, channelId: place },
    };
    const verdict = await access.policy.mayAct(askUserId, { ...target, request: APPROVAL });
    if (!verdict.allowed)
      return {
        ok: false,
        message: `mention: ${askUserId} may not answer this session’s questions under AGENT_APPROVAL_POLICY, so the step can’t ask them. Leave "Person to ask" empty (the person who runs the workflow is asked), or name an approver${isDirectConversation(place) ? '' : ' or, under channel-members, a member of the channel'}.`,
      };
  }
  const input: StartInput = {
    ...rest,
    channelId: place,
    userId: starter,
    origin,
    workflow,
    ...(runner ? {} : { runsAs: 'workspace' as const }),
  };
  return { ok: true, input, ...(askUserId && askUserId !== starter ? { ask: askUserId } : {}) };
}

/** How a session started by a workflow nobody ran is recorded (its card's and the record's origin). */
export const UNATTENDED_ORIGIN = 'started by a workflow nobody ran';

/**
 * Whether "Wait for an agent session" may read a session: its outputs go to whoever built the workflow,
 * who fixed the session id, so seeing the session is not enough (an approver who runs it from a link may
 * see every session). A person's run reads only a session that person started; a run nobody ran, only
 * one a run nobody ran started in a public channel of the same workspace (whose card any member can read).
 * Any other id gets the one not-found answer.
 */
export async function waitable(
  access: Pick<StepAccess, 'botUserId' | 'publicChannel'>,
  runner: string | undefined,
  session: Pick<SessionRecord, 'startedBy' | 'origin' | 'workspace' | 'channelId'> | undefined,
  workspace: string | undefined,
): Promise<boolean> {
  if (!session) return false;
  if (runner) return session.startedBy === runner;
  // The card's origin may go on to say which channel defaults applied (" · Channel defaults: …").
  if (!session.origin?.startsWith(UNATTENDED_ORIGIN)) return false;
  if ((session.workspace ?? undefined) !== workspace) return false;
  const bot = await access.botUserId();
  return bot !== undefined && session.startedBy === bot && (await access.publicChannel(session.channelId));
}
