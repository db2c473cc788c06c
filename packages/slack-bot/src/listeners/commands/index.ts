import type { App } from '@slack/bolt';
import type { ListenerContext } from '../context.js';
import { agentCommand } from './agent.js';

export function registerCommands(app: App, ctx: ListenerContext): void {
  app.command('/agent', agentCommand(ctx));
}
