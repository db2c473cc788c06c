import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { CardUpdater, type CardUpdaterOptions } from '../../src/services/card-updater.js';
import { BotMetrics } from '../../src/services/metrics.js';

let sandbox: RunningSandbox;
let slack: webApi.WebClient;

beforeAll(async () => {
  sandbox = await startSandbox();
  slack = new webApi.WebClient(sandbox.botToken, { slackApiUrl: sandbox.apiUrl });
});

afterAll(async () => {
  await sandbox?.close();
});

const section = (text: string) => [{ type: 'section', text: { type: 'mrkdwn', text } }];

const updater = (options: CardUpdaterOptions) =>
  new CardUpdater(
    slack,
    createLogger({ secrets: [], level: 'silent' }),
    new BotMetrics(() => undefined),
    options,
  );

/** Posts a card; `edits()` counts how often Slack saw it edited since. */
async function postCard(text: string): Promise<{ ts: string; edits: () => number }> {
  const posted = await slack.chat.postMessage({ channel: 'C0AGENTS', text, blocks: section(text) as never });
  const ts = String(posted.ts);
  let edits = 0;
  sandbox.workspace.on('change', (c) => {
    if (c.kind === 'message_changed' && c.message.ts === ts) edits++;
  });
  return { ts, edits: () => edits };
}

it('folds a burst of changes into few edits that end on the latest state', async () => {
  const { ts, edits } = await postCard('v0');
  const cards = updater({ minIntervalMs: 400, maxPerMinute: 600 });
  for (let v = 1; v <= 40; v++) {
    cards.schedule('s1', async () => ({ channel: 'C0AGENTS', ts, text: `v${v}`, blocks: section(`v${v}`) }));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await sandbox.workspace.waitFor(() => sandbox.workspace.findMessage('C0AGENTS', ts)?.text === 'v40', {
    what: 'the latest state on the card',
  });
  // 40 changes over ~0.5 s with at most one edit per 400 ms: a handful of edits, not 40.
  expect(edits()).toBeGreaterThanOrEqual(1);
  expect(edits()).toBeLessThanOrEqual(3);
  await cards.stop();
  expect(cards.updates).toBe(edits());
});

it('edits at once when asked (a final state), and keeps editing other cards', async () => {
  const cards = updater({ minIntervalMs: 60_000 });
  const a = String((await slack.chat.postMessage({ channel: 'C0AGENTS', text: 'a0' })).ts);
  const b = String((await slack.chat.postMessage({ channel: 'C0AGENTS', text: 'b0' })).ts);
  cards.schedule('a', async () => ({ channel: 'C0AGENTS', ts: a, text: 'a1', blocks: section('a1') }));
  cards.schedule('b', async () => ({ channel: 'C0AGENTS', ts: b, text: 'b1', blocks: section('b1') }));
  await sandbox.workspace.waitFor(() => sandbox.workspace.findMessage('C0AGENTS', b)?.text === 'b1', {
    what: 'b edited',
  });
  // A second change to `a` inside its interval waits; a final state doesn't.
  cards.schedule('a', async () => ({ channel: 'C0AGENTS', ts: a, text: 'a2', blocks: section('a2') }));
  await cards.updateNow('a', async () => ({ channel: 'C0AGENTS', ts: a, text: 'a3', blocks: section('a3') }));
  expect(sandbox.workspace.findMessage('C0AGENTS', a)?.text).toBe('a3');
  await cards.stop();
});

it('does not send an edit that would change nothing', async () => {
  const { ts, edits } = await postCard('a');
  const cards = updater({ minIntervalMs: 0 });
  const card = (text: string) => async () => ({ channel: 'C0AGENTS', ts, text, blocks: section(text) });
  await cards.updateNow('s3', card('done'));
  await cards.updateNow('s3', card('done'));
  await cards.updateNow('s3', card('done'));
  expect(edits()).toBe(1);
  await cards.updateNow('s3', card('done, edited'));
  expect(edits()).toBe(2);
  // Once forgotten (another replica took the session over), the same content is sent again.
  cards.forget('s3');
  await cards.updateNow('s3', card('done, edited'));
  expect(edits()).toBe(3);
  expect(cards.updates).toBe(3);
  await cards.stop();
});
