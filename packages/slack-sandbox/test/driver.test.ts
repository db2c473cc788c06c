import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, type SlackDriver, startSandbox } from '../src/index.js';
import { boltApp, driveBolt } from './bolt-app.js';
import { botClient } from './bot-client.js';

// A real Bolt app, pointed at the sandbox, receives what the driver sends exactly as it would from Slack.
let sandbox: RunningSandbox;
let app: App;
let driver: SlackDriver;
const clicks: Array<{ actionId: string; user: string; state: unknown }> = [];
const closed: string[] = [];
const userChanges: Array<{ id: string; deleted: boolean }> = [];
/** Each app_home_opened the app got: whose, and the hash of the Home it carried (none before a first publish). */
const homeOpens: Array<{ user: string; hash?: string }> = [];

beforeAll(async () => {
  sandbox = await startSandbox({ triggerTtlMs: 60_000 });
  app = boltApp(sandbox);
  app.command('/agent', async ({ ack, command, respond, client }) => {
    if (command.text.startsWith('reply ')) {
      const [, responseType, ...words] = command.text.split(' ');
      await ack({ response_type: responseType as 'ephemeral' | 'in_channel', text: words.join(' ') });
      return;
    }
    await ack();
    if (command.text === 'modal' || command.text === 'modal notify') {
      await client.views.open({
        trigger_id: command.trigger_id,
        view: {
          type: 'modal',
          callback_id: 'reason',
          ...(command.text === 'modal notify' ? { notify_on_close: true } : {}),
          title: { type: 'plain_text', text: 'Reject' },
          submit: { type: 'plain_text', text: 'Send' },
          blocks: [
            {
              type: 'input',
              block_id: 'reason',
              label: { type: 'plain_text', text: 'Why?' },
              element: { type: 'plain_text_input', action_id: 'value' },
            },
          ],
        },
      });
      return;
    }
    await respond({ response_type: 'ephemeral', text: `you said: ${command.text}` });
    await client.chat.postMessage({
      channel: command.channel_id,
      text: 'Approve?',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'Deploy?' } },
        {
          type: 'actions',
          block_id: 'choice',
          elements: [
            {
              type: 'checkboxes',
              action_id: 'regions',
              options: [
                { text: { type: 'plain_text', text: 'EU' }, value: 'eu' },
                { text: { type: 'plain_text', text: 'US' }, value: 'us' },
              ],
            },
            {
              type: 'button',
              action_id: 'approve',
              text: { type: 'plain_text', text: 'Approve' },
              value: 'in_1',
              style: 'primary',
            },
          ],
        },
      ],
    });
  });
  app.action('approve', async ({ ack, body, client }) => {
    await ack();
    if (body.type !== 'block_actions') return;
    clicks.push({ actionId: 'approve', user: body.user.id, state: body.state?.values });
    await client.chat.update({
      channel: body.channel?.id ?? '',
      ts: body.message?.ts ?? '',
      text: `Approved by <@${body.user.id}>`,
      blocks: [],
    });
  });
  app.view('reason', async ({ ack, view }) => {
    const reason = view.state.values.reason?.value?.value;
    if (!reason) await ack({ response_action: 'errors', errors: { reason: 'Please say why' } });
    else await ack();
  });
  app.event('app_home_opened', async ({ event, client }) => {
    const hash = (event.view as { hash?: string } | undefined)?.hash;
    homeOpens.push({ user: event.user, ...(hash ? { hash } : {}) });
    await client.views.publish({
      user_id: event.user,
      view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Your sessions' } }] },
      ...(hash ? { hash } : {}),
    });
  });
  app.event('user_change', async ({ event }) => {
    userChanges.push({ id: event.user.id, deleted: event.user.deleted });
  });
  driver = await driveBolt(sandbox, app);
});

afterAll(async () => {
  await app?.stop();
  await sandbox?.close();
});

describe('the driver against a real Bolt app', () => {
  it('sends a slash command; respond() and chat.postMessage land in the sandbox', async () => {
    const res = await driver.command({ user: 'U0ALICE', channel: 'C0AGENTS', text: 'start ship it' });
    expect(res.status).toBe(200);
    const ephemeral = await sandbox.workspace.waitFor(() =>
      sandbox.workspace.ephemerals.find((e) => e.text === 'you said: start ship it'),
    );
    expect(ephemeral).toMatchObject({ user: 'U0ALICE', channel: 'C0AGENTS', via: 'response_url' });
    await sandbox.workspace.waitFor(() =>
      sandbox.workspace.messages.get('C0AGENTS')?.find((m) => m.text === 'Approve?'),
    );
  });

  it('shows a slash command’s immediate reply as Slack does: ephemeral, or in the channel', async () => {
    const res = await driver.command({
      user: 'U0CAROL',
      channel: 'C0AGENTS',
      text: 'reply ephemeral usage: /agent help',
    });
    expect(res.body).toMatchObject({ text: 'usage: /agent help' });
    expect(sandbox.workspace.ephemerals.find((e) => e.text === 'usage: /agent help')).toMatchObject({
      user: 'U0CAROL',
      channel: 'C0AGENTS',
    });
    await driver.command({ user: 'U0CAROL', channel: 'C0AGENTS', text: 'reply in_channel for everyone' });
    expect(sandbox.workspace.messages.get('C0AGENTS')?.find((m) => m.text === 'for everyone')).toBeDefined();
    expect(sandbox.workspace.ephemerals.find((e) => e.text === 'for everyone')).toBeUndefined();
    // An empty ack shows nothing.
    const shown = sandbox.workspace.ephemerals.length;
    await driver.command({ user: 'U0CAROL', channel: 'C0AGENTS', text: 'modal' });
    expect(sandbox.workspace.ephemerals.length).toBe(shown);
  });

  it('clicks a button with the checkboxes chosen before, and sees the message edited', async () => {
    const message = await sandbox.workspace.waitFor(() =>
      sandbox.workspace.messages.get('C0AGENTS')?.find((m) => m.text === 'Approve?'),
    );
    driver.choose({ user: 'U0BOB', channel: 'C0AGENTS', ts: message.ts, actionId: 'regions', value: ['eu'] });
    const res = await driver.act({ user: 'U0BOB', channel: 'C0AGENTS', ts: message.ts, actionId: 'approve' });
    expect(res.status).toBe(200);
    await sandbox.workspace.waitFor(() => message.text === 'Approved by <@U0BOB>');
    expect(clicks.at(-1)).toMatchObject({
      user: 'U0BOB',
      state: { choice: { regions: { type: 'checkboxes', selected_options: [{ value: 'eu' }] } } },
    });
  });

  it('opens a modal from a command and gets inline errors back from a view submission', async () => {
    await driver.command({ user: 'U0ALICE', channel: 'C0AGENTS', text: 'modal' });
    const view = await sandbox.workspace.waitFor(() => driver.openModal('U0ALICE'));
    const empty = await driver.submitView({ user: 'U0ALICE', viewId: view.id, values: {} });
    expect(empty).toMatchObject({
      status: 200,
      body: { response_action: 'errors', errors: { reason: 'Please say why' } },
    });
    expect(driver.openModal('U0ALICE')?.id).toBe(view.id);
    const ok = await driver.submitView({
      user: 'U0ALICE',
      viewId: view.id,
      values: { reason: { value: 'too risky' } },
    });
    expect(ok.status).toBe(200);
    expect(driver.openModal('U0ALICE')).toBeUndefined();
  });

  it('a closed modal is told to the app only when its view asked (notify_on_close), as Slack does', async () => {
    app.view({ type: 'view_closed', callback_id: 'reason' }, async ({ ack, body }) => {
      closed.push(body.view.id);
      await ack();
    });
    await driver.command({ user: 'U0ALICE', channel: 'C0AGENTS', text: 'modal' });
    const quiet = await sandbox.workspace.waitFor(() => driver.openModal('U0ALICE'));
    expect(await driver.closeView({ user: 'U0ALICE', viewId: quiet.id })).toBeUndefined();
    expect(driver.openModal('U0ALICE')).toBeUndefined();
    await driver.command({ user: 'U0ALICE', channel: 'C0AGENTS', text: 'modal notify' });
    const told = await sandbox.workspace.waitFor(() => driver.openModal('U0ALICE'));
    expect(await driver.closeView({ user: 'U0ALICE', viewId: told.id })).toMatchObject({ status: 200 });
    expect(closed).toEqual([told.id]);
  });

  it('sends a bot only what SENT_TO_BOTS lists', async () => {
    await expect(driver.deliverEvent({ type: 'made_up_event' })).rejects.toThrow(
      /made_up_event is not in SENT_TO_BOTS\.events/,
    );
  });

  it('delivers app_home_opened as an Events API callback', async () => {
    const res = await driver.appHomeOpened({ user: 'U0CAROL' });
    expect(res.status).toBe(200);
    await sandbox.workspace.waitFor(() => sandbox.workspace.homeViews.get('U0CAROL'));
  });

  it('app_home_opened carries the Home as last published with its hash, which views.publish takes once', async () => {
    const homeOf = (user: string) => sandbox.workspace.views.get(sandbox.workspace.homeViews.get(user) ?? '');
    await driver.appHomeOpened({ user: 'U0BOB' });
    const first = await sandbox.workspace.waitFor(() => homeOf('U0BOB'), { what: 'Bob’s first Home' });
    expect(homeOpens.filter((o) => o.user === 'U0BOB')).toEqual([{ user: 'U0BOB' }]);
    // Opened again: the event carries the Home's hash, and the app's publish with it is taken.
    await driver.appHomeOpened({ user: 'U0BOB' });
    const second = await sandbox.workspace.waitFor(
      () => (homeOf('U0BOB')?.hash !== first.hash ? homeOf('U0BOB') : undefined),
      { what: 'Bob’s Home published again' },
    );
    expect(homeOpens.filter((o) => o.user === 'U0BOB')).toEqual([
      { user: 'U0BOB' },
      { user: 'U0BOB', hash: first.hash },
    ]);
    expect(second.id).toBe(first.id);
    // That hash names a Home no longer shown: Slack refuses it.
    const stale = await botClient(sandbox)
      .views.publish({ user_id: 'U0BOB', view: { type: 'home', blocks: [] }, hash: first.hash })
      .catch((e: { data?: unknown }) => e.data);
    expect(stale).toMatchObject({ ok: false, error: 'hash_conflict' });
    expect(homeOf('U0BOB')?.hash).toBe(second.hash);
  });

  it('is refused by Bolt when forged or stale', async () => {
    const forged = await driver.command(
      { user: 'U0ALICE', channel: 'C0AGENTS', text: 'x' },
      { forgeSignature: true },
    );
    expect(forged.status).toBe(401);
    const stale = await driver.command(
      { user: 'U0ALICE', channel: 'C0AGENTS', text: 'x' },
      { timestampOffsetSeconds: -600 },
    );
    expect(stale.status).toBe(401);
  });

  it('deactivates a person as Slack does: user_change with deleted set, users.info deleted: true, still listed in their channels', async () => {
    const client = botClient(sandbox);
    expect((await client.users.info({ user: 'U0CAROL' })).user?.deleted).toBe(false);
    const sent = await driver.deactivateUser({ user: 'U0CAROL' });
    expect(sent.deliveries[0]?.status).toBe(200);
    await sandbox.workspace.waitFor(() => userChanges.find((u) => u.id === 'U0CAROL'));
    expect(userChanges).toContainEqual({ id: 'U0CAROL', deleted: true });
    expect((await client.users.info({ user: 'U0CAROL' })).user).toMatchObject({
      id: 'U0CAROL',
      deleted: true,
    });
    expect((await client.conversations.members({ channel: 'C0GENERAL' })).members).toContain('U0CAROL');
    expect(() => driver.deactivateUser({ user: 'U0NOBODY' })).toThrow(/no person U0NOBODY/);
  });
});
