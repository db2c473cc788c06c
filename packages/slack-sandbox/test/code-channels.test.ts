import { beforeEach, describe, expect, it } from 'vitest';
import { boltInSandbox } from './bolt-app.js';

// agents.conversations.* (code channels), driven by Slack's own WebClient through a real Bolt app, answered
// with the errors and limits Slack's reference pages give; the context bar's action and a channel command
// as the app receives them; the switch that makes the workspace refuse code channels.
const bolt = boltInSandbox((app, received) => {
  app.event('code_channel_action', async ({ event }) => {
    received.push({ ...event });
  });
  app.command(/^\/(pause|redirect)$/, async ({ command, ack }) => {
    await ack();
    received.push({ command: command.command, text: command.text, channel: command.channel_id });
  });
});
const { received } = bolt;
beforeEach(() => {
  bolt.sandbox.workspace.codeChannels.configure('on');
});

const slackError = async (call: Promise<unknown>) =>
  ((await call.catch((e) => e)) as { data?: Record<string, unknown> }).data;

/** A card-like message in C0AGENTS and a code channel made from it for `sessionId`. */
async function codeChannel(sessionId: string): Promise<{ channel: string; origin: string }> {
  const origin = bolt.sandbox.workspace.post({
    channel: 'C0AGENTS',
    user: 'U0ALICE',
    text: 'fix the build',
  }).ts;
  const created = await bolt.app.client.agents.conversations.create({
    name: 'fix-the-build',
    session_id: sessionId,
    origin_channel_id: 'C0AGENTS',
    origin_message_ts: origin,
  });
  return { channel: created.channel_id as string, origin };
}

describe('agents.conversations.create', () => {
  it('makes a channel linked to its origin, its author invited, the same one again for the same session', async () => {
    const { channel, origin } = await codeChannel('ses_one');
    const record = bolt.sandbox.workspace.codeChannels.get(channel);
    expect(record).toMatchObject({ sessionId: 'ses_one', origin: { channel_id: 'C0AGENTS', ts: origin } });
    expect(bolt.sandbox.workspace.members(channel)).toEqual(expect.arrayContaining(['U0ALICE']));
    const again = await bolt.app.client.agents.conversations.create({ name: 'other', session_id: 'ses_one' });
    expect(again.channel_id).toBe(channel);
    expect(bolt.sandbox.workspace.codeChannels.all().filter((c) => c.sessionId === 'ses_one')).toHaveLength(
      1,
    );
  });

  it('refuses a half origin, a missing name without one, an unknown origin message', async () => {
    const half = await slackError(
      bolt.app.client.agents.conversations.create({ name: 'x', origin_channel_id: 'C0AGENTS' }),
    );
    expect(half).toMatchObject({ error: 'invalid_arguments' });
    expect(JSON.stringify(half)).toContain('origin_channel_id and origin_message_ts must be given together');
    const nameless = await slackError(bolt.app.client.agents.conversations.create({ name: '' }));
    expect(JSON.stringify(nameless)).toContain('missing required field: name');
    const gone = await slackError(
      bolt.app.client.agents.conversations.create({
        name: 'x',
        origin_channel_id: 'C0AGENTS',
        origin_message_ts: '1.000001',
      }),
    );
    expect(gone).toMatchObject({ error: 'message_not_found' });
  });

  it('takes the origin channel’s privacy unless is_private says otherwise, as conversations.info then reports', async () => {
    const origin = bolt.sandbox.workspace.post({ channel: 'C0AGENTS', user: 'U0ALICE', text: 'go' }).ts;
    const from = { origin_channel_id: 'C0AGENTS', origin_message_ts: origin };
    const asOrigin = await bolt.app.client.agents.conversations.create({ name: 'public-one', ...from });
    const closed = await bolt.app.client.agents.conversations.create({
      name: 'private-one',
      is_private: true,
      ...from,
    });
    const info = async (channel: string) =>
      (await bolt.app.client.conversations.info({ channel })).channel?.is_private;
    expect(await info(asOrigin.channel_id as string)).toBe(false);
    expect(await info(closed.channel_id as string)).toBe(true);
  });

  it("refuses a name outside Slack's channel-name rule (lowercase, digits, - and _, at most 80)", async () => {
    const spaced = await slackError(bolt.app.client.agents.conversations.create({ name: 'Fix the build' }));
    expect(spaced).toMatchObject({ error: 'invalid_name_specials' });
    const long = await slackError(bolt.app.client.agents.conversations.create({ name: 'a'.repeat(81) }));
    expect(long).toMatchObject({ error: 'invalid_name_maxlength' });
    const fine = await bolt.app.client.agents.conversations.create({ name: `a_${'b'.repeat(76)}-9` });
    expect(fine.ok).toBe(true);
  });

  it('a workspace that refuses code channels answers missing_scope, naming the scope', async () => {
    bolt.sandbox.workspace.codeChannels.configure('off');
    const refused = await slackError(bolt.app.client.agents.conversations.create({ name: 'x' }));
    expect(refused).toMatchObject({ ok: false, error: 'missing_scope', needed: 'code_channels:manage' });
  });
});

describe('setProperties, setView, setCommands, setCanvasContent', () => {
  it('keeps at most 5 context bar items, each with a known icon and type; other channels are not_agent_channel', async () => {
    const { channel } = await codeChannel('ses_bar');
    const item = (key: string) => ({ key, label: key, item_type: 'info' });
    const six = await slackError(
      bolt.app.client.agents.conversations.setProperties({
        channel_id: channel,
        code_channel: { context_bar_items: ['a', 'b', 'c', 'd', 'e', 'f'].map(item) },
      }),
    );
    expect(JSON.stringify(six)).toContain('context_bar_items must have at most 5 items, got 6');
    const icon = await slackError(
      bolt.app.client.agents.conversations.setProperties({
        channel_id: channel,
        code_channel: { context_bar_items: [{ key: 'k', label: 'l', icon: 'rocket' }] },
      }),
    );
    expect(JSON.stringify(icon)).toContain('context_bar_items[0].icon must be one of branch');
    await bolt.app.client.agents.conversations.setProperties({
      channel_id: channel,
      code_channel: {
        context_bar_items: [item('status'), { key: 'cancel', label: 'Cancel', item_type: 'action' }],
      },
    });
    expect(bolt.sandbox.workspace.codeChannels.get(channel)?.contextBar.map((i) => i.key)).toEqual([
      'status',
      'cancel',
    ]);
    const plain = await slackError(
      bolt.app.client.agents.conversations.setProperties({ channel_id: 'C0AGENTS', code_channel: {} }),
    );
    expect(plain).toMatchObject({ error: 'not_agent_channel' });
  });

  it('upserts views by view_key, checks each kind, caps content and the number of views', async () => {
    const { channel } = await codeChannel('ses_views');
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'Plan' } }];
    await bolt.app.client.agents.conversations.setView({
      channel_id: channel,
      type: 'block_kit',
      view_key: 'plan',
      blocks,
    });
    const second = await bolt.app.client.agents.conversations.setView({
      channel_id: channel,
      type: 'block_kit',
      view_key: 'plan',
      blocks,
    });
    expect(second.content_version).toBe(2);
    const keyless = await slackError(
      bolt.app.client.agents.conversations.setView({ channel_id: channel, type: 'block_kit', blocks }),
    );
    expect(JSON.stringify(keyless)).toContain('view_key is required for a block_kit view');
    const kind = await slackError(
      bolt.app.client.agents.conversations.setView({ channel_id: channel, type: 'video', view_key: 'v' }),
    );
    expect(JSON.stringify(kind)).toContain('type must be one of html, diff, block_kit, canvas, pull_request');
    const big = await slackError(
      bolt.app.client.agents.conversations.setView({
        channel_id: channel,
        type: 'html',
        view_key: 'big.html',
        content: 'x'.repeat(1_000_001),
      }),
    );
    expect(big).toMatchObject({ error: 'content_too_large' });
    const noCanvas = await slackError(
      bolt.app.client.agents.conversations.setView({
        channel_id: channel,
        type: 'canvas',
        view_key: 'c',
        canvas_id: 'F0NONE',
      }),
    );
    expect(noCanvas).toMatchObject({ error: 'canvas_not_found' });
    for (const key of ['a', 'b', 'c', 'd'])
      await bolt.app.client.agents.conversations.setView({
        channel_id: channel,
        type: 'block_kit',
        view_key: key,
        blocks,
      });
    const sixth = await slackError(
      bolt.app.client.agents.conversations.setView({
        channel_id: channel,
        type: 'block_kit',
        view_key: 'e',
        blocks,
      }),
    );
    expect(sixth).toMatchObject({ error: 'too_many_views' });
  });

  it('takes at most 10 commands, none of Slack’s own names; a canvas view whose content the agent rewrites', async () => {
    const { channel } = await codeChannel('ses_commands');
    const eleven = Array.from({ length: 11 }, (_, i) => ({ name: `c${i}` }));
    expect(
      JSON.stringify(
        await slackError(
          bolt.app.client.agents.conversations.setCommands({ channel_id: channel, commands: eleven }),
        ),
      ),
    ).toContain('commands must have at most 10 items, got 11');
    const builtin = await slackError(
      bolt.app.client.agents.conversations.setCommands({
        channel_id: channel,
        commands: [{ name: 'status' }],
      }),
    );
    expect(JSON.stringify(builtin)).toContain("collides with Slack's built-in /status");
    const set = await bolt.app.client.agents.conversations.setCommands({
      channel_id: channel,
      commands: [{ name: 'pause' }, { name: 'redirect', argument_hint: '<direction>' }],
    });
    expect(set.command_count).toBe(2);
    const canvas = await bolt.app.client.canvases.create({
      title: 'Report',
      document_content: { type: 'markdown', markdown: '# one' },
    });
    const canvasId = canvas.canvas_id as string;
    const unattached = await slackError(
      bolt.app.client.agents.conversations.setCanvasContent({
        channel: channel,
        canvas_id: canvasId,
        content: '# two',
      }),
    );
    expect(unattached).toMatchObject({ error: 'canvas_not_found' });
    await bolt.app.client.agents.conversations.setView({
      channel_id: channel,
      type: 'canvas',
      view_key: 'report',
      canvas_id: canvasId,
    });
    await bolt.app.client.agents.conversations.setCanvasContent({
      channel,
      canvas_id: canvasId,
      content: '# two',
    });
    expect(bolt.sandbox.workspace.codeChannels.canvases.get(canvasId)).toMatchObject({
      content: '# two',
      versions: 2,
    });
  });
});

describe('what a person does in a code channel, and the archive', () => {
  it('an action item click is code_channel_action; a channel command comes as a slash command', async () => {
    const { channel } = await codeChannel('ses_acts');
    await bolt.app.client.agents.conversations.setProperties({
      channel_id: channel,
      code_channel: {
        context_bar_items: [
          { key: 'status', label: 'Running' },
          { key: 'pause_resume', label: 'Pause', item_type: 'action' },
        ],
      },
    });
    await bolt.app.client.agents.conversations.setCommands({
      channel_id: channel,
      commands: [{ name: 'redirect' }],
    });
    await expect(bolt.driver.clickContextAction({ channel, key: 'status', user: 'U0ALICE' })).rejects.toThrow(
      /info item/,
    );
    await bolt.driver.clickContextAction({ channel, key: 'pause_resume', user: 'U0ALICE' });
    await bolt.driver.channelCommand({ channel, user: 'U0ALICE', name: 'redirect', text: 'docs first' });
    await expect(bolt.driver.channelCommand({ channel, user: 'U0ALICE', name: 'pause' })).rejects.toThrow(
      /has no \/pause/,
    );
    expect(received).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'code_channel_action',
          channel,
          user: 'U0ALICE',
          key: 'pause_resume',
        }),
        { command: '/redirect', text: 'docs first', channel },
      ]),
    );
  });

  it('archive: the summary shared back on the origin message once; then already_archived, and no more posts', async () => {
    const { channel, origin } = await codeChannel('ses_end');
    const summary = await bolt.app.client.chat.postMessage({ channel, text: 'Done: the build is green.' });
    await bolt.app.client.agents.conversations.archive({
      channel_id: channel,
      summary_message_ts: summary.ts as string,
    });
    const replies = bolt.sandbox.workspace.replies('C0AGENTS', origin);
    expect(replies.filter((m) => m.text === 'Done: the build is green.')).toHaveLength(1);
    expect(
      await slackError(bolt.app.client.agents.conversations.archive({ channel_id: channel })),
    ).toMatchObject({
      error: 'already_archived',
    });
    expect(await slackError(bolt.app.client.chat.postMessage({ channel, text: 'late' }))).toMatchObject({
      error: 'is_archived',
    });
    expect(bolt.sandbox.workspace.replies('C0AGENTS', origin)).toHaveLength(1);
  });

  it('agents.sessions.setStatus works in a code channel without thread_ts, and refuses one', async () => {
    const { channel } = await codeChannel('ses_status');
    await bolt.app.client.agents.sessions.setStatus({ channel_id: channel, status: 'processing' });
    expect(bolt.sandbox.workspace.agent.session(channel, '')?.status).toBe('processing');
    const threaded = await slackError(
      bolt.app.client.agents.sessions.setStatus({
        channel_id: channel,
        status: 'active',
        thread_ts: '1.000001',
      }),
    );
    expect(JSON.stringify(threaded)).toContain('thread_ts must be omitted for a session channel');
  });
});
