import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { ACTIONS } from '../../blocks/ids.js';
import type { RawAnswer } from '../../services/people/answering.js';
import type { ListenerContext } from '../context.js';
import { clickedIn, clickedMessage, tell } from './respond.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** What was picked in the prompt's checkboxes or multi-select before Submit (Slack sends `state.values`). */
function pickedIndexes(body: BlockAction): number[] {
  const picked = body.state?.values.choices?.[ACTIONS.multiChoice]?.selected_options ?? [];
  return picked.map((o) => Number(o.value));
}

/** The ref and raw answer a click carries: a select's ref rides in its block_id, a button's in its value. */
function interactionOf(body: BlockAction): { ref: string | undefined; answer: RawAnswer } | undefined {
  const action = body.actions[0];
  if (!action) return undefined;
  if (action.type === 'static_select') {
    return { ref: action.block_id, answer: { kind: 'option', index: Number(action.selected_option.value) } };
  }
  if (action.type !== 'button') return undefined;
  if (action.action_id === ACTIONS.approve) return { ref: action.value, answer: { kind: 'approve' } };
  if (action.action_id === ACTIONS.submitChoices)
    return { ref: action.value, answer: { kind: 'options', indexes: pickedIndexes(body) } };
  return { ref: action.value, answer: { kind: 'option' } };
}

/** Answers that need no form: Approve, a choice button, a select, Submit under checkboxes. */
export const answerClick =
  (ctx: ListenerContext) =>
  async ({ ack, body, respond }: Args): Promise<void> => {
    await ack();
    const clicked = interactionOf(body);
    if (!clicked?.ref) return;
    const clickedTs = clickedMessage(body);
    const seenIn = clickedIn(body);
    const result = await ctx.answering.answer({
      ...clicked,
      userId: body.user.id,
      ...(clickedTs ? { clickedTs } : {}),
      ...(seenIn ? { seenIn } : {}),
    });
    if (!result.ok) await tell(respond, `⚠️ ${result.message}`);
  };
