import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { agentSessionStopped } from '../../src/listeners/events/agent-session-stopped.js';
import { appHomeOpened } from '../../src/listeners/events/app-home-opened.js';
import { appMentioned, incomingOf, messageReceived } from '../../src/listeners/events/message.js';
import { args, asContext, fakeContext, recorder } from './fake-args.js';

type Args = SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs;

function open(tab: string) {
  const r = recorder();
  const ctx = fakeContext(r.rec);
  const a = args<Args>({
    event: { type: 'app_home_opened', user: 'U0ALICE', tab, channel: 'D0ALICE' },
    body: { event_id: 'Ev1' },
    client: r.client,
  });
  return { ...r, ctx, go: () => appHomeOpened(asContext(ctx))(a) };
}

describe('app_home_opened', () => {
  it('publishes the viewer’s sessions', async () => {
    const r = open('home');
    await r.go();
    expect(r.ctx.directory.home).toHaveBeenCalledWith('U0ALICE', 'Ev1', []);
    expect(r.rec.published).toEqual([{ user_id: 'U0ALICE', view: { type: 'home', blocks: [] } }]);
  });

  it('publishes nothing for a re-delivered event, or another tab', async () => {
    const again = open('home');
    again.ctx.directory.home.mockResolvedValueOnce(undefined);
    await again.go();
    expect(again.rec.published).toEqual([]);
    const other = open('about');
    await other.go();
    expect(other.rec.order).toEqual([]);
  });

  it('the Messages tab (agent view): its suggested prompts, no Home view', async () => {
    const messages = open('messages');
    await messages.go();
    expect(messages.rec.order).toEqual(['messagesTab.opened']);
    expect(messages.ctx.messagesTab.opened).toHaveBeenCalledWith('U0ALICE', 'D0ALICE');
  });
});

describe('agent_session_stopped (Slack’s Stop button)', () => {
  it('hands the click to the Stop service with its event id (Slack’s retries carry the same)', async () => {
    const r = recorder();
    const ctx = fakeContext(r.rec);
    const event = {
      type: 'agent_session_stopped',
      channel: 'C0AGENTS',
      thread_ts: '1700000000.000100',
      user: 'U0CAROL',
      streaming_message_ts: [],
      event_ts: '1700000001.000200',
    };
    await agentSessionStopped(asContext(ctx))(args({ event, body: { event_id: 'Ev7' }, client: r.client }));
    expect(ctx.stopping.stop).toHaveBeenCalledWith({
      eventId: 'Ev7',
      channelId: 'C0AGENTS',
      threadTs: '1700000000.000100',
      userId: 'U0CAROL',
    });
  });
});

describe('message and app_mention', () => {
  const body = { event_id: 'Ev9', team_id: 'T0SANDBOX' };
  const event = {
    type: 'message',
    user: 'U0ALICE',
    channel: 'C0AGENTS',
    channel_type: 'channel',
    text: 'hi',
    ts: '1.5',
  };

  it('a person’s message (a reply, a file share) becomes one IncomingMessage', () => {
    expect(incomingOf({ ...event, thread_ts: '1.1' }, body, 'U0BOT')).toEqual({
      eventId: 'Ev9',
      teamId: 'T0SANDBOX',
      channelId: 'C0AGENTS',
      channelType: 'channel',
      userId: 'U0ALICE',
      text: 'hi',
      ts: '1.5',
      threadTs: '1.1',
      botUserId: 'U0BOT',
    });
    expect(incomingOf({ ...event, subtype: 'file_share' }, body, 'U0BOT')).toBeDefined();
  });

  it('edits, deletions, bots and the bot itself are not', () => {
    expect(incomingOf({ ...event, subtype: 'message_changed' }, body, 'U0BOT')).toBeUndefined();
    expect(incomingOf({ ...event, subtype: 'message_deleted' }, body, 'U0BOT')).toBeUndefined();
    expect(incomingOf({ ...event, bot_id: 'B0OTHER' }, body, 'U0BOT')).toBeUndefined();
    expect(incomingOf({ ...event, user: 'U0BOT' }, body, 'U0BOT')).toBeUndefined();
  });

  it('both listeners hand the message to the conversation service', async () => {
    const r = recorder();
    const ctx = asContext(fakeContext(r.rec));
    const a = { event, body, context: { botUserId: 'U0BOT' } };
    await messageReceived(ctx)(args<Parameters<ReturnType<typeof messageReceived>>[0]>(a));
    await appMentioned(ctx)(
      args<Parameters<ReturnType<typeof appMentioned>>[0]>({
        ...a,
        event: { ...event, type: 'app_mention' },
      }),
    );
    expect(r.rec.order).toEqual(['conversation.handle', 'conversation.handle']);
  });
});
