import type { App } from '@slack/bolt';
import { VIEWS } from '../../blocks/ids.js';
import { KEY_VIEWS } from '../../blocks/keys.js';
import type { ListenerContext } from '../context.js';
import { answerSubmitted } from './answer-submitted.js';
import { channelSettingsSubmitted } from './channel-settings-submitted.js';
import { keySubmitted } from './key-submitted.js';
import { raiseBudgetSubmitted } from './raise-budget-submitted.js';
import { redirectSubmitted } from './redirect-submitted.js';
import { rejectSubmitted } from './reject-submitted.js';
import { startSubmitted } from './start-submitted.js';
import { viewClosed } from './view-closed.js';
import { workflowConfirmed } from './workflow-confirmed.js';

export function registerViews(app: App, ctx: ListenerContext): void {
  app.view(VIEWS.start, startSubmitted(ctx));
  app.view(VIEWS.redirect, redirectSubmitted(ctx));
  app.view(VIEWS.raiseBudget, raiseBudgetSubmitted(ctx));
  app.view(VIEWS.reject, rejectSubmitted(ctx));
  app.view(VIEWS.answer, answerSubmitted(ctx));
  app.view(VIEWS.channelSettings, channelSettingsSubmitted(ctx));
  app.view(KEY_VIEWS.link, keySubmitted(ctx, 'link'));
  app.view(KEY_VIEWS.signup, keySubmitted(ctx, 'signup'));
  app.view(VIEWS.workflowConfirm, workflowConfirmed(ctx));
  app.view({ type: 'view_closed', callback_id: /.*/ }, viewClosed(ctx));
}
