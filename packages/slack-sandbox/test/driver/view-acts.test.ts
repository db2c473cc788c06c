import type { AddressInfo, Server } from 'node:net';
import type { App, BlockAction } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewBlockActionsPayload, viewState } from '../../src/driver/view-acts.js';
import { type RunningSandbox, type SlackDriver, startSandbox } from '../../src/index.js';
import { boltApp } from '../bolt-app.js';

// A press inside a view — the Home tab, a modal opened from it — reaches a real Bolt app as Slack sends
// it: `block_actions` with `container.type: "view"` and the view, then `view_submission`. Through the
// driver, and through the page's route (/sandbox/view-act) alike.
let sandbox: RunningSandbox;
let app: App;
let driver: SlackDriver;
let eventsUrl: string;
const presses: BlockAction[] = [];
const submitted: Array<{ user: string; values: unknown; metadata: string }> = [];

const HOME_BLOCKS = [
  { type: 'section', text: { type: 'mrkdwn', text: 'Your key: none' } },
  {
    type: 'actions',
    block_id: 'keys',
    elements: [
      {
        type: 'static_select',
        action_id: 'region',
        placeholder: { type: 'plain_text', text: 'Region' },
        options: [
          { text: { type: 'plain_text', text: 'EU' }, value: 'eu' },
          { text: { type: 'plain_text', text: 'US' }, value: 'us' },
        ],
      },
      { type: 'button', action_id: 'link', value: 'workspace', text: { type: 'plain_text', text: 'Link' } },
    ],
  },
];

beforeAll(async () => {
  sandbox = await startSandbox({ triggerTtlMs: 60_000 });
  app = boltApp(sandbox);
  app.event('app_home_opened', async ({ event, client }) => {
    await client.views.publish({
      user_id: event.user,
      view: { type: 'home', private_metadata: 'home-meta', blocks: HOME_BLOCKS },
    });
  });
  app.action<BlockAction>('region', async ({ ack, body }) => {
    await ack();
    presses.push(body);
  });
  app.action<BlockAction>('link', async ({ ack, body, client }) => {
    await ack();
    presses.push(body);
    // A modal opened from the Home tab: only possible with the press's own trigger id.
    await client.views.open({
      trigger_id: body.trigger_id,
      view: {
        type: 'modal',
        callback_id: 'link_form',
        private_metadata: body.view?.id ?? '',
        title: { type: 'plain_text', text: 'Link a key' },
        submit: { type: 'plain_text', text: 'Link' },
        blocks: [
          {
            type: 'input',
            block_id: 'api_key',
            label: { type: 'plain_text', text: 'Key' },
            element: { type: 'plain_text_input', action_id: 'value' },
          },
          {
            type: 'actions',
            block_id: 'more',
            elements: [{ type: 'button', action_id: 'check', text: { type: 'plain_text', text: 'Check' } }],
          },
        ],
      },
    });
  });
  app.action<BlockAction>('check', async ({ ack, body }) => {
    await ack();
    presses.push(body);
  });
  app.view('link_form', async ({ ack, view, body }) => {
    submitted.push({ user: body.user.id, values: view.state.values, metadata: view.private_metadata });
    await ack();
  });
  const server = (await app.start(0)) as Server;
  eventsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  driver = sandbox.driver(eventsUrl);
});

afterAll(async () => {
  await app?.stop();
  await sandbox?.close();
});

const homeOf = (user: string) => {
  const id = sandbox.workspace.homeViews.get(user);
  return id ? sandbox.workspace.views.get(id) : undefined;
};

describe('acting inside a view', () => {
  it('builds block_actions from a view as Slack does: the view as container, its state without buttons', () => {
    const seed = sandbox.workspace.seed;
    const state = viewState(HOME_BLOCKS, { keys: { region: 'us' } });
    expect(state).toEqual({
      keys: { region: { type: 'static_select', selected_option: expect.objectContaining({ value: 'us' }) } },
    });
    const payload = viewBlockActionsPayload({
      seed,
      user: { id: 'U0BOB', username: 'bob', name: 'bob', team_id: seed.teamId },
      view: { id: 'V1', type: 'home', blocks: HOME_BLOCKS, state: { values: state } },
      triggerId: 'T.1',
      action: { type: 'button', action_id: 'link' },
    });
    expect(payload).toMatchObject({
      type: 'block_actions',
      container: { type: 'view', view_id: 'V1' },
      trigger_id: 'T.1',
      team: { id: seed.teamId },
      view: { id: 'V1', state: { values: state } },
      actions: [{ action_id: 'link' }],
    });
    for (const absent of ['channel', 'message', 'response_url', 'state'])
      expect(payload).not.toHaveProperty(absent);
    expect(() => viewState(HOME_BLOCKS, { keys: { nothing: 'x' } })).toThrow(/no keys\/nothing/);
  });

  it('a Home tab button reaches Bolt with the view; the modal it opens is submitted', async () => {
    await driver.appHomeOpened({ user: 'U0BOB' });
    const home = await sandbox.workspace.waitFor(() => homeOf('U0BOB'));
    const pressed = await driver.actInView({ user: 'U0BOB', viewId: home.id, actionId: 'link' });
    expect(pressed.status).toBe(200);
    const press = presses.at(-1);
    expect(press?.container).toEqual({ type: 'view', view_id: home.id });
    expect(press?.view).toMatchObject({ id: home.id, type: 'home', private_metadata: 'home-meta' });
    expect(press?.view).not.toHaveProperty('user');
    expect(press?.actions[0]).toMatchObject({ type: 'button', action_id: 'link', value: 'workspace' });
    expect(press?.channel).toBeUndefined();
    expect(press?.response_url).toBeUndefined();

    const modal = await sandbox.workspace.waitFor(() => driver.openModal('U0BOB'));
    expect(modal.private_metadata).toBe(home.id);
    // A button inside the modal, with what is typed so far.
    await driver.actInView({
      user: 'U0BOB',
      viewId: modal.id,
      actionId: 'check',
      values: { api_key: { value: 'typed so far' } },
    });
    expect(presses.at(-1)?.container).toEqual({ type: 'view', view_id: modal.id });
    expect(presses.at(-1)?.view?.state.values).toEqual({
      api_key: { value: { type: 'plain_text_input', value: 'typed so far' } },
    });
    const done = await driver.submitView({
      user: 'U0BOB',
      viewId: modal.id,
      values: { api_key: { value: 'emu_key_1234' } },
    });
    expect(done.status).toBe(200);
    expect(submitted.at(-1)).toEqual({
      user: 'U0BOB',
      metadata: home.id,
      values: { api_key: { value: { type: 'plain_text_input', value: 'emu_key_1234' } } },
    });
    expect(driver.openModal('U0BOB')).toBeUndefined();
  });

  it('the page’s route presses and chooses in the Home tab the same way, and names what is wrong', async () => {
    sandbox.connectBot(eventsUrl);
    await driver.appHomeOpened({ user: 'U0CAROL' });
    const home = await sandbox.workspace.waitFor(() => homeOf('U0CAROL'));
    const post = (body: unknown) =>
      fetch(`${sandbox.url}/sandbox/view-act`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const chose = await post({ user: 'U0CAROL', viewId: home.id, actionId: 'region', value: 'eu' });
    expect(chose.status).toBe(200);
    const press = presses.at(-1);
    expect(press?.user.id).toBe('U0CAROL');
    expect(press?.actions[0]).toMatchObject({ action_id: 'region', selected_option: { value: 'eu' } });
    expect(press?.view?.state.values).toEqual({
      keys: { region: { type: 'static_select', selected_option: expect.objectContaining({ value: 'eu' }) } },
    });
    const missing = await post({ user: 'U0CAROL', viewId: home.id, actionId: 'nothing' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      error: expect.stringMatching(/no element with action_id nothing/),
    });
    const noUser = await post({ viewId: home.id, actionId: 'link' });
    expect(await noUser.json()).toMatchObject({ error: 'user is required' });
  });
});
