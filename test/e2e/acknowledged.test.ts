import { readFileSync } from 'node:fs';
import { functionsFromManifest, SENT_TO_BOTS, type SentToBots } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ALICE, CAROL, CHANNEL, useHarness } from './harness.js';

// The manifest's steps, so the sandbox can run them as Slack would.
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
const h = useHarness({ sandbox: { functions: functionsFromManifest(manifest) } });

type Kind = SentToBots[keyof SentToBots];

/** Slack counts a request answered when the app says 2xx within 3 s: Bolt answers 404 for one not acked. */
const answered = (status: number | 'timeout' | undefined) => status === 200;

async function startForm() {
  const opened = await h.driver.command({ user: ALICE, channel: CHANNEL, text: 'start' });
  expect(opened.status).toBe(200);
  return h.sandbox.workspace.waitFor(
    () => {
      const modal = h.driver.openModal(ALICE);
      // Not a workflow step's confirmation left open by another case: the form this command opened.
      return modal?.callback_id === 'start_session' ? modal : undefined;
    },
    { what: 'the start form' },
  );
}

const firstDelivery = async (sent: Promise<{ deliveries: Array<{ status: number | 'timeout' }> }>) =>
  (await sent).deliveries[0]?.status;

/**
 * One way to make the sandbox send each kind of request it can send a bot, and the status the bot answered.
 * Typed by the sandbox's own list, so a kind it learns to send fails to compile here until it is added.
 */
const sends: Record<Kind, () => Promise<number | 'timeout' | undefined>> = {
  slash_command: async () => (await h.driver.command({ user: ALICE, channel: CHANNEL, text: 'list' })).status,
  block_actions: async () => {
    const { cardTs } = await h.start('scenario:long keep indexing --max-iterations 100000');
    return (await h.driver.act({ user: ALICE, channel: CHANNEL, ts: cardTs, actionId: 'session_pause' }))
      .status;
  },
  view_submission: async () => {
    const form = await startForm();
    return (await h.driver.submitView({ user: ALICE, viewId: form.id, values: { goal: { value: '' } } }))
      .status;
  },
  // Sent by Slack only for a view that asks (`notify_on_close`): of the bot's, only a workflow step's
  // confirmation does, so the start form is given that flag here, as a view that asked would have it.
  view_closed: async () => {
    const form = await startForm();
    h.sandbox.workspace.saveView({ ...form, notify_on_close: true });
    return (await h.driver.closeView({ user: ALICE, viewId: form.id }))?.status;
  },
  message: () =>
    h.driver
      .say({ user: ALICE, channel: CHANNEL, text: 'just chatting' })
      .then((said) => said.events[0]?.deliveries[0]?.status),
  app_mention: () =>
    h.driver
      .mention({ user: ALICE, channel: CHANNEL, text: 'help' })
      .then((said) => said.events.find((e) => e.type === 'app_mention')?.deliveries[0]?.status),
  app_home_opened: async () => (await h.driver.appHomeOpened({ user: ALICE })).status,
  agent_session_stopped: () =>
    firstDelivery(
      h.driver.deliverEvent({
        type: 'agent_session_stopped',
        channel: CHANNEL,
        thread_ts: '1.000001',
        user: ALICE,
        streaming_message_ts: [],
        event_ts: '1.000002',
      }),
    ),
  code_channel_action: () =>
    firstDelivery(
      h.driver.deliverEvent({
        type: 'code_channel_action',
        channel: 'C0NOTOURS',
        user: ALICE,
        key: 'cancel',
      }),
    ),
  function_executed: () =>
    firstDelivery(
      h.driver.runStep({
        callbackId: 'run_agent_session',
        inputs: { goal: 'scenario:complete tidy the docs', channel: CHANNEL },
        user: ALICE,
      }),
    ),
  tokens_revoked: () =>
    firstDelivery(h.driver.deliverEvent({ type: 'tokens_revoked', tokens: { oauth: [], bot: [] } })),
  app_uninstalled: () => firstDelivery(h.driver.deliverEvent({ type: 'app_uninstalled' })),
  user_change: () => firstDelivery(h.driver.deactivateUser({ user: CAROL })),
};

describe('every request the sandbox can send the bot is acknowledged', () => {
  it('the list covers every kind the sandbox sends', () => {
    expect(Object.keys(sends).sort()).toEqual(Object.values(SENT_TO_BOTS).flat().sort());
  });

  it.each(Object.keys(sends) as Kind[])('%s: answered 2xx within Slack’s 3 s', async (kind) => {
    expect(answered(await sends[kind]())).toBe(true);
  });

  it('closing the start form sends the bot nothing: it never asked to be told', async () => {
    const form = await startForm();
    expect(await h.driver.closeView({ user: ALICE, viewId: form.id })).toBeUndefined();
    expect(h.sandbox.workspace.views.get(form.id)?.closed).toBe(true);
  });
});
