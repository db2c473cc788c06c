import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { CHANNEL_COMMANDS } from '../../blocks/code-channel.js';
import type { ListenerContext } from '../context.js';

type Args = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** The agent's commands in its code channels, as Slack delivers them: a slash command each. */
export const CHANNEL_COMMAND_PATTERN = new RegExp(`^/(${CHANNEL_COMMANDS.map((c) => c.name).join('|')})$`);

/** `/pause`, `/redirect <text>`…: acknowledged at once, answered privately (or with a form). */
export const channelCommand =
  (ctx: ListenerContext) =>
  async ({ command, ack, respond, client }: Args): Promise<void> => {
    await ack();
    const steering = ctx.codeChannels;
    if (!steering) return;
    try {
      const name = command.command.replace(/^\//, '');
      const reply = await steering.command(command.channel_id, command.user_id, name, command.text ?? '');
      if ('view' in reply) await client.views.open({ trigger_id: command.trigger_id, view: reply.view });
      else
        await respond({
          response_type: 'ephemeral',
          ...(typeof reply.say === 'string' ? { text: reply.say } : reply.say),
        });
    } catch (error) {
      ctx.logger.error({ err: error, command: command.command }, 'a channel command failed');
      await respond({
        response_type: 'ephemeral',
        text: '⚠️ Something went wrong on our side; nothing was changed. Please try again.',
      });
    }
  };
