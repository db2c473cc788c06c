import type { App } from '@slack/bolt';
import { VIEWS } from '../../blocks/ids.js';
import type { ListenerContext } from '../context.js';
import { answerSubmitted, rejectSubmitted } from './answer.js';
import { startSubmitted } from './start.js';
import { raiseBudgetSubmitted, redirectSubmitted } from './steer.js';

export function registerViews(app: App, ctx: ListenerContext): void {
  app.view(VIEWS.start, startSubmitted(ctx));
  app.view(VIEWS.redirect, redirectSubmitted(ctx));
  app.view(VIEWS.raiseBudget, raiseBudgetSubmitted(ctx));
  app.view(VIEWS.reject, rejectSubmitted(ctx));
  app.view(VIEWS.answer, answerSubmitted(ctx));
}
