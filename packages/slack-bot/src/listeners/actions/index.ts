import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/ids.js';
import { KEY_ACTIONS } from '../../blocks/keys.js';
import { MCP_ACTIONS } from '../../blocks/mcp.js';
import type { ListenerContext } from '../context.js';
import { acknowledgeOnly } from './acknowledge-only.js';
import { answerClick } from './answer-click.js';
import { answerFormButton } from './answer-form-button.js';
import { feedbackButton } from './feedback-button.js';
import { keyButton } from './key-buttons.js';
import { mcpButton } from './mcp-buttons.js';
import { signalButton } from './signal-button.js';
import { steerFormButton } from './steer-form-button.js';

export function registerActions(app: App, ctx: ListenerContext): void {
  app.action(ACTIONS.pause, signalButton(ctx, 'pause'));
  app.action(ACTIONS.resume, signalButton(ctx, 'resume'));
  app.action(ACTIONS.cancel, signalButton(ctx, 'cancel'));
  app.action(ACTIONS.redirect, steerFormButton(ctx, 'redirect'));
  app.action(ACTIONS.raiseBudget, steerFormButton(ctx, 'raise_budget'));

  const answer = answerClick(ctx);
  app.action(ACTIONS.approve, answer);
  app.action(new RegExp(`^${ACTIONS.choose}_\\d+$`), answer);
  app.action(ACTIONS.select, answer);
  app.action(ACTIONS.submitChoices, answer);
  app.action(ACTIONS.multiChoice, acknowledgeOnly);
  app.action(ACTIONS.reject, answerFormButton(ctx));
  app.action(ACTIONS.answer, answerFormButton(ctx));
  app.action(ACTIONS.feedback, feedbackButton(ctx));
  app.action(KEY_ACTIONS.link, keyButton(ctx, 'link'));
  app.action(KEY_ACTIONS.signup, keyButton(ctx, 'signup'));
  app.action(KEY_ACTIONS.remove, keyButton(ctx, 'remove'));
  app.action(MCP_ACTIONS.connect, mcpButton(ctx, 'connect'));
  app.action(MCP_ACTIONS.revoke, mcpButton(ctx, 'revoke'));
  app.action(MCP_ACTIONS.revokePerson, mcpButton(ctx, 'revokePerson'));
}
