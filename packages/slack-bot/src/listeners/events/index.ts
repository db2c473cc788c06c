import type { App } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { agentSessionStopped } from './agent-session-stopped.js';
import { appHomeOpened } from './app-home-opened.js';
import { codeChannelAction } from './code-channel-action.js';
import { appMentioned, messageReceived } from './message.js';
import { appUninstalled, tokensRevoked } from './uninstalled.js';
import { userChanged } from './user-change.js';

export function registerEvents(app: App, ctx: ListenerContext): void {
  app.event('app_home_opened', appHomeOpened(ctx));
  app.event('message', messageReceived(ctx));
  app.event('app_mention', appMentioned(ctx));
  app.event('agent_session_stopped', agentSessionStopped(ctx));
  app.event('code_channel_action', codeChannelAction(ctx));
  app.event('user_change', userChanged(ctx));
  const { installs } = ctx;
  if (installs) {
    app.event('app_uninstalled', appUninstalled(installs));
    app.event('tokens_revoked', tokensRevoked(installs));
  }
}
