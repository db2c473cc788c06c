import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { startModal } from '../../blocks/modals.js';
import type { SlackMessage } from '../../blocks/text.js';
import { type AgentCommand, parseAgentCommand, USAGE } from '../../command-parser.js';
import type { ListenerContext } from '../context.js';

type Args = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** How a subcommand answers: privately, with text or a message, or by opening a form. */
interface Reply {
  say(reply: string | SlackMessage): Promise<unknown>;
  open(view: ModalView): Promise<unknown>;
}

/** `/agent …`: acknowledged at once (Slack's 3 seconds), answered through the response URL. */
export const agentCommand =
  (ctx: ListenerContext) =>
  async ({ command, ack, respond, client }: Args): Promise<void> => {
    const parsed = parseAgentCommand(command.text);
    if (parsed.kind === 'help' || parsed.kind === 'error') {
      await ack({
        response_type: 'ephemeral',
        text:
          parsed.kind === 'help'
            ? USAGE
            : parsed.brief
              ? `⚠️ ${parsed.message}`
              : `⚠️ ${parsed.message}\n\n${USAGE}`,
      });
      return;
    }
    await ack();
    const reply: Reply = {
      say: (r) => respond({ response_type: 'ephemeral', ...(typeof r === 'string' ? { text: r } : r) }),
      open: (view) => client.views.open({ trigger_id: command.trigger_id, view }),
    };
    try {
      await run(ctx, parsed, command, reply);
    } catch (error) {
      ctx.logger.error({ err: error, subcommand: parsed.kind }, '/agent failed');
      await reply.say('⚠️ Something went wrong on our side; nothing was changed. Please try again.');
    }
  };

const DONE = { pause: '⏸️ Paused.', cancel: '🛑 Cancelled.', redirect: '↪️ Redirected.' } as const;

async function run(
  ctx: ListenerContext,
  parsed: Exclude<AgentCommand, { kind: 'help' | 'error' }>,
  command: Args['command'],
  reply: Reply,
): Promise<void> {
  const user = command.user_id;
  switch (parsed.kind) {
    case 'start_modal':
      await reply.open(startModal(command.channel_id));
      return;
    case 'start': {
      const result = await ctx.starting.start({
        channelId: command.channel_id,
        userId: user,
        goal: parsed.goal,
        ...(parsed.budget === undefined ? {} : { budget: parsed.budget }),
        ...(parsed.maxIterations === undefined ? {} : { maxIterations: parsed.maxIterations }),
        ...(parsed.codeChannel ? { codeChannel: true } : {}),
      });
      if (!result.ok) await reply.say(`⚠️ ${result.message}`);
      return;
    }
    case 'status':
      await reply.say(await ctx.directory.status(user, command.channel_id, parsed.sessionId));
      return;
    case 'list':
      await reply.say(await ctx.directory.list(user, command.channel_id));
      return;
    case 'settings': {
      const result = await ctx.channelSettings.open(command.channel_id, user);
      if (result.ok) await reply.open(result.view);
      else await reply.say(`🚫 ${result.message}`);
      return;
    }
    case 'history':
      await reply.say(await ctx.directory.history(user, parsed.sessionId));
      return;
    case 'resume': {
      const result = await ctx.steering.resume(parsed.sessionId, user);
      if (!result.ok) await reply.say(`⚠️ ${result.message}`);
      else if (result.view) await reply.open(result.view);
      else await reply.say('▶️ Resumed.');
      return;
    }
    case 'pause':
    case 'cancel':
    case 'redirect': {
      const extra = parsed.kind === 'redirect' ? { message: parsed.message } : {};
      const result = await ctx.steering.signal(parsed.sessionId, user, parsed.kind, extra);
      await reply.say(result.ok ? DONE[parsed.kind] : `⚠️ ${result.message}`);
      return;
    }
  }
}
