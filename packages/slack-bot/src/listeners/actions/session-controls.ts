import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { decodeRef } from '../../blocks/ids.js';
import { raiseBudgetModal, redirectModal } from '../../blocks/modals.js';
import type { SignalKind } from '../../services/session-service.js';
import type { ListenerContext } from '../context.js';
import { clickedValue, tell } from './respond.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** Pause, Resume and Cancel on the card (Cancel's confirm dialog is Slack's, before we hear of it). */
export const signalButton =
  (ctx: ListenerContext, kind: Exclude<SignalKind, 'redirect'>) =>
  async ({ ack, body, respond }: Args): Promise<void> => {
    await ack();
    const ref = decodeRef(clickedValue(body));
    if (!ref) return;
    const result = await ctx.sessions.signal(ref.sessionId, body.user.id, kind);
    if (!result.ok) await tell(respond, `⚠️ ${result.message}`);
  };

/** Redirect and Raise budget open a modal; who may act is checked first, so others never see the form. */
export const modalButton =
  (ctx: ListenerContext, which: 'redirect' | 'raise_budget') =>
  async ({ ack, body, respond, client }: Args): Promise<void> => {
    await ack();
    const ref = decodeRef(clickedValue(body));
    if (!ref) return;
    const allowed = await ctx.sessions.authorize(ref.sessionId, body.user.id);
    if (!allowed.ok) {
      await tell(respond, `🚫 ${allowed.message}`);
      return;
    }
    if (allowed.session.finished) {
      await tell(respond, 'This session has already ended.');
      return;
    }
    const view =
      which === 'redirect'
        ? redirectModal(ref.sessionId)
        : raiseBudgetModal(ref.sessionId, await ctx.sessions.spend(ref.sessionId), allowed.session.budget);
    await client.views.open({ trigger_id: body.trigger_id, view: view as never });
  };
