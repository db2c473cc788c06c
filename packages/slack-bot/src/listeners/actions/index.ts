import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/ids.js';
import type { ListenerContext } from '../context.js';
import { acknowledgeOnly, directAnswer, formAnswer } from './human-input.js';
import { modalButton, signalButton } from './session-controls.js';

export function registerActions(app: App, ctx: ListenerContext): void {
  app.action(ACTIONS.pause, signalButton(ctx, 'pause'));
  app.action(ACTIONS.resume, signalButton(ctx, 'resume'));
  app.action(ACTIONS.cancel, signalButton(ctx, 'cancel'));
  app.action(ACTIONS.redirect, modalButton(ctx, 'redirect'));
  app.action(ACTIONS.raiseBudget, modalButton(ctx, 'raise_budget'));

  const answer = directAnswer(ctx);
  app.action(ACTIONS.approve, answer);
  app.action(new RegExp(`^${ACTIONS.choose}_\\d+$`), answer);
  app.action(ACTIONS.select, answer);
  app.action(ACTIONS.submitChoices, answer);
  app.action(ACTIONS.multiChoice, acknowledgeOnly);
  app.action(ACTIONS.reject, formAnswer(ctx, 'reject'));
  app.action(ACTIONS.answer, formAnswer(ctx, 'answer'));
}
