import type { App } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { agentCommand } from './agent.js';
import { CHANNEL_COMMAND_PATTERN, channelCommand } from './channel-commands.js';

export function registerCommands(app: App, ctx: ListenerContext): void {
  app.command('/agent', agentCommand(ctx));
  if (ctx.codeChannels) app.command(CHANNEL_COMMAND_PATTERN, channelCommand(ctx));
}
