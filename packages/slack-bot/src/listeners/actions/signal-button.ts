import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { decodeRef, sessionOf } from '../../refs.js';
import type { SignalKind } from '../../services/people/steering.js';
import type { ListenerContext } from '../context.js';
import { clickedIn, clickedValue, tell } from './respond.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** Pause, Resume and Cancel on the card (Cancel's confirm dialog is Slack's, before we hear of it). */
export const signalButton =
  (ctx: ListenerContext, kind: Exclude<SignalKind, 'redirect'>) =>
  async ({ ack, body, respond }: Args): Promise<void> => {
    await ack();
    const sessionId = sessionOf(decodeRef(clickedValue(body)));
    if (!sessionId) return;
    const seenIn = clickedIn(body);
    const result = await ctx.steering.signal(sessionId, body.user.id, kind, {}, seenIn ? { seenIn } : {});
    if (!result.ok) await tell(respond, `⚠️ ${result.message}`);
  };
