import type { HumanInputRequest } from '@agent-sessions/core';
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { raiseBudgetModal, startModal } from '../../blocks/modals.js';
import { promptMessage } from '../../blocks/prompt.js';
import { cardStateOf, sessionCard, statusLabel } from '../../blocks/session-card.js';
import { escapeMrkdwn, truncate } from '../../blocks/text.js';
import { type AgentCommand, parseAgentCommand, USAGE } from '../../command-parser.js';
import type { ListenerContext } from '../context.js';

type Args = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** `/agent …`: acknowledged at once (Slack's 3 seconds), answered through the response URL. */
export const agentCommand =
  (ctx: ListenerContext) =>
  async ({ command, ack, respond, client }: Args): Promise<void> => {
    const parsed = parseAgentCommand(command.text);
    if (parsed.kind === 'start_modal') {
      await ack();
      await client.views.open({
        trigger_id: command.trigger_id,
        view: startModal(command.channel_id) as never,
      });
      return;
    }
    if (parsed.kind === 'help' || parsed.kind === 'error') {
      await ack({
        response_type: 'ephemeral',
        text: parsed.kind === 'error' ? `⚠️ ${parsed.message}\n\n${USAGE}` : USAGE,
      });
      return;
    }
    await ack();
    const say = (text: string, blocks?: unknown[]) =>
      respond({ response_type: 'ephemeral', text, ...(blocks ? { blocks: blocks as never } : {}) });
    try {
      await run(ctx, parsed, command, say, (view) =>
        client.views.open({ trigger_id: command.trigger_id, view: view as never }).then(() => {}),
      );
    } catch (error) {
      ctx.logger.error({ err: error, subcommand: parsed.kind }, '/agent failed');
      await say('⚠️ Something went wrong on our side; nothing was changed. Please try again.');
    }
  };

async function run(
  ctx: ListenerContext,
  parsed: Exclude<AgentCommand, { kind: 'help' | 'error' | 'start_modal' }>,
  command: Args['command'],
  say: (text: string, blocks?: unknown[]) => Promise<unknown>,
  openModal: (view: unknown) => Promise<void>,
): Promise<void> {
  const user = command.user_id;
  switch (parsed.kind) {
    case 'start': {
      const result = await ctx.sessions.start({
        channelId: command.channel_id,
        userId: user,
        goal: parsed.goal,
        ...(parsed.budget === undefined ? {} : { budget: parsed.budget }),
        ...(parsed.maxIterations === undefined ? {} : { maxIterations: parsed.maxIterations }),
      });
      if (!result.ok) await say(`⚠️ ${result.message}`);
      return;
    }
    case 'status':
      await status(ctx, command.channel_id, parsed.sessionId, say);
      return;
    case 'list': {
      const sessions = await ctx.store.listSessions({ channelId: command.channel_id, activeOnly: true });
      await say(
        sessions.length === 0
          ? 'No active agent sessions in this channel. Start one with `/agent start &lt;goal&gt;`.'
          : [
              `*Active agent sessions in this channel (${sessions.length})*`,
              ...sessions.map(
                (s) =>
                  `• \`${s.sessionId}\` ${statusLabel(s.status)} — ${escapeMrkdwn(truncate(s.goal, 120))} (<@${s.startedBy}>)`,
              ),
            ].join('\n'),
      );
      return;
    }
    case 'resume': {
      // A session stopped by its budget needs a new one: ask for it rather than fail.
      const session = await ctx.store.getSession(parsed.sessionId);
      if (session?.status === 'cost_limit') {
        const allowed = await ctx.sessions.authorize(parsed.sessionId, user);
        if (!allowed.ok) {
          await say(`🚫 ${allowed.message}`);
          return;
        }
        const spend = await ctx.sessions.spend(parsed.sessionId);
        await openModal(raiseBudgetModal(parsed.sessionId, spend, session.budget));
        return;
      }
      const result = await ctx.sessions.signal(parsed.sessionId, user, 'resume');
      await say(result.ok ? '▶️ Resumed.' : `⚠️ ${result.message}`);
      return;
    }
    case 'pause':
    case 'cancel': {
      const result = await ctx.sessions.signal(parsed.sessionId, user, parsed.kind);
      await say(
        result.ok ? (parsed.kind === 'pause' ? '⏸️ Paused.' : '🛑 Cancelled.') : `⚠️ ${result.message}`,
      );
      return;
    }
    case 'redirect': {
      const result = await ctx.sessions.signal(parsed.sessionId, user, 'redirect', {
        message: parsed.message,
      });
      await say(result.ok ? '↪️ Redirected.' : `⚠️ ${result.message}`);
      return;
    }
  }
}

/** A session's card and any question still waiting, shown again to whoever asks. */
async function status(
  ctx: ListenerContext,
  channelId: string,
  sessionId: string | undefined,
  say: (text: string, blocks?: unknown[]) => Promise<unknown>,
): Promise<void> {
  const session = sessionId
    ? await ctx.store.getSession(sessionId)
    : (await ctx.store.listSessions({ channelId, activeOnly: true, limit: 1 }))[0];
  if (!session) {
    await say(
      sessionId
        ? `No session \`${escapeMrkdwn(sessionId)}\` was started from this workspace.`
        : 'No active session in this channel. `/agent status &lt;session-id&gt;` shows any session.',
    );
    return;
  }
  const card =
    (await ctx.publisher.card(session.sessionId)) ?? sessionCard(cardStateOf(session, undefined, Date.now()));
  // Live numbers from the service when this replica isn't the one following the session.
  const live = await ctx.client.sessions.get(session.sessionId).catch(() => undefined);
  const blocks = [...card.blocks.filter((b) => (b as { type?: string }).type !== 'actions')];
  if (live) {
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Now: ${statusLabel(live.status)} · $${(live.cost?.totalCost ?? 0).toFixed(3)} spent · ${live.rounds?.length ?? 0} rounds`,
        },
      ],
    });
  }
  const pending = await ctx.store.pendingPrompts(session.sessionId);
  for (const prompt of pending.slice(0, 3)) {
    blocks.push({ type: 'divider' }, ...promptMessage(prompt.request as HumanInputRequest, session).blocks);
  }
  await say(card.text, blocks.slice(0, 50));
}
