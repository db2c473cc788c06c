import type { AnswerInput, HumanInputRequest } from '@agent-sessions/core';
import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { ACTIONS, decodeRef } from '../../blocks/ids.js';
import { answerModal, rejectModal } from '../../blocks/modals.js';
import type { ListenerContext } from '../context.js';
import { clickedValue, tell } from './respond.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

interface SelectedOption {
  value: string;
}

/** What was picked in the prompt's checkboxes or multi-select before Submit (Slack sends `state.values`). */
function pickedIndexes(body: BlockAction): number[] {
  const values = (body.state?.values ?? {}) as Record<
    string,
    Record<string, { selected_options?: SelectedOption[] }>
  >;
  const picked = values.choices?.[ACTIONS.multiChoice]?.selected_options ?? [];
  return picked.map((o) => Number(o.value));
}

const optionIds = (request: HumanInputRequest, indexes: number[]) =>
  indexes.map((i) => request.options?.[i]?.id).filter((id): id is string => id !== undefined);

/** Answers that need no form: Approve, a choice button, a select, Submit of checkboxes. */
export const directAnswer =
  (ctx: ListenerContext) =>
  async ({ ack, body, respond, action }: Args): Promise<void> => {
    await ack();
    const actionId = (action as { action_id: string }).action_id;
    // A select's value is the option picked, so its prompt's ref rides in the block_id.
    const target =
      actionId === ACTIONS.select
        ? decodeRef((action as { block_id?: string }).block_id)
        : decodeRef(clickedValue(body));
    if (!target?.inputId) return;
    const prompt = await ctx.store.getPrompt(target.sessionId, target.inputId);
    if (!prompt) {
      await tell(respond, 'This question is not known here any more.');
      return;
    }
    const request = prompt.request as HumanInputRequest;
    let input: AnswerInput;
    if (actionId === ACTIONS.approve) input = { approved: true };
    else if (actionId === ACTIONS.select) {
      const selected = (action as { selected_option?: SelectedOption }).selected_option;
      input = { choiceId: optionIds(request, selected ? [Number(selected.value)] : [])[0] ?? '' };
    } else if (actionId === ACTIONS.submitChoices)
      input = { choiceIds: optionIds(request, pickedIndexes(body)) };
    else
      input = { choiceId: optionIds(request, target.option === undefined ? [] : [target.option])[0] ?? '' };
    const clicked = body.container?.is_ephemeral
      ? undefined
      : (body.container?.message_ts as string | undefined);
    const result = await ctx.sessions.answer(target.sessionId, target.inputId, body.user.id, input, clicked);
    if (!result.ok) await tell(respond, `⚠️ ${result.message}`);
  };

/** Reject and Answer open a form; who may answer and whether it is still open are checked first. */
export const formAnswer =
  (ctx: ListenerContext, which: 'reject' | 'answer') =>
  async ({ ack, body, respond, client }: Args): Promise<void> => {
    await ack();
    const ref = decodeRef(clickedValue(body));
    if (!ref?.inputId) return;
    const prompt = await ctx.store.getPrompt(ref.sessionId, ref.inputId);
    if (!prompt) {
      await tell(respond, 'This question is not known here any more.');
      return;
    }
    const allowed = await ctx.sessions.authorize(ref.sessionId, body.user.id);
    if (!allowed.ok) {
      await tell(respond, `🚫 ${allowed.message}`);
      return;
    }
    if (prompt.state === 'answered') {
      await tell(
        respond,
        prompt.answeredBy ? `Already answered by <@${prompt.answeredBy}>.` : 'Already answered.',
      );
      return;
    }
    const request = prompt.request as HumanInputRequest;
    const view =
      which === 'reject'
        ? rejectModal(ref.sessionId, ref.inputId, request.prompt)
        : answerModal(ref.sessionId, request);
    await client.views.open({ trigger_id: body.trigger_id, view: view as never });
  };

/** Ticking a checkbox sends an action too; the answer goes with Submit. */
export const acknowledgeOnly = async ({ ack }: Args): Promise<void> => {
  await ack();
};
