import { ManualClock } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import { expect, it, vi } from 'vitest';
import { patient } from '../../../../../../test/support/patience.js';
import { BOLT_DEFAULTS, useSandboxWithClient } from '../../../../../../test/support/world.js';
import { createLogger } from '../../../../src/logger.js';
import { BotMetrics } from '../../../../src/services/ops/metrics.js';
import { OutboundQueue } from '../../../../src/services/slack-out/outbound/index.js';
import {
  CardUpdater,
  type CardUpdaterOptions,
} from '../../../../src/services/slack-out/thread/card-updater.js';

const world = useSandboxWithClient({}, BOLT_DEFAULTS);

const section = (text: string): KnownBlock[] => [{ type: 'section', text: { type: 'mrkdwn', text } }];

const updater = (options: CardUpdaterOptions) =>
  new CardUpdater(
    world.slack,
    createLogger({ secrets: [], level: 'silent' }),
    new BotMetrics(() => undefined),
    options,
  );

/** Posts a card; `edits()` counts how often Slack saw it edited since. */
async function postCard(text: string): Promise<{ ts: string; edits: () => number }> {
  const posted = await world.slack.chat.postMessage({ channel: 'C0AGENTS', text, blocks: section(text) });
  const ts = String(posted.ts);
  let edits = 0;
  world.sandbox.workspace.on('change', (c) => {
    if (c.kind === 'message_changed' && c.message.ts === ts) edits++;
  });
  return { ts, edits: () => edits };
}

it('folds a burst of changes into one edit per interval, ending on the latest state', async () => {
  // Time moves only when the test says: the count can't depend on how loaded the machine is.
  const clock = new ManualClock(1_000_000);
  const { ts, edits } = await postCard('v0');
  const cards = updater({ minIntervalMs: 400, maxPerMinute: 600, clock });
  const version = (v: number) => async () => ({
    channel: 'C0AGENTS',
    ts,
    text: `v${v}`,
    blocks: section(`v${v}`),
  });
  const shows = (text: string) =>
    world.sandbox.workspace.waitFor(
      () => world.sandbox.workspace.findMessage('C0AGENTS', ts)?.text === text,
      {
        what: `the card showing ${text}`,
      },
    );
  cards.schedule('s1', version(1));
  await clock.advance(0);
  await shows('v1');
  // 39 more changes, 10 ms apart: all inside the 400 ms after the first edit. The first of them waits
  // for its turn (a sleep on the clock) once the first edit's call has returned.
  cards.schedule('s1', version(2));
  await vi.waitFor(() => expect(clock.pendingSleeps).toBe(1), { timeout: patient(10_000) });
  await clock.advance(10);
  for (let v = 3; v <= 40; v++) {
    cards.schedule('s1', version(v));
    await clock.advance(10);
  }
  expect(edits()).toBe(1);
  await clock.advance(10);
  await shows('v40');
  expect(edits()).toBe(2);
  await cards.stop();
  expect(cards.updates).toBe(2);
});

it('edits at once when asked (a final state), and keeps editing other cards', async () => {
  const cards = updater({ minIntervalMs: 60_000, maxPerMinute: 6_000 });
  const a = String((await world.slack.chat.postMessage({ channel: 'C0AGENTS', text: 'a0' })).ts);
  const b = String((await world.slack.chat.postMessage({ channel: 'C0AGENTS', text: 'b0' })).ts);
  cards.schedule('a', async () => ({ channel: 'C0AGENTS', ts: a, text: 'a1', blocks: section('a1') }));
  cards.schedule('b', async () => ({ channel: 'C0AGENTS', ts: b, text: 'b1', blocks: section('b1') }));
  await world.sandbox.workspace.waitFor(
    () => world.sandbox.workspace.findMessage('C0AGENTS', b)?.text === 'b1',
    {
      what: 'b edited',
    },
  );
  // A second change to `a` inside its interval waits; a final state doesn't.
  cards.schedule('a', async () => ({ channel: 'C0AGENTS', ts: a, text: 'a2', blocks: section('a2') }));
  await cards.updateNow('a', async () => ({ channel: 'C0AGENTS', ts: a, text: 'a3', blocks: section('a3') }));
  expect(world.sandbox.workspace.findMessage('C0AGENTS', a)?.text).toBe('a3');
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

it("drops a card's waiting progress edit once another replica took the session over", async () => {
  // Time moves only when the test says: the progress edit waits for its interval until then.
  const clock = new ManualClock(1_000_000);
  const { ts } = await postCard('Starting');
  const other = String((await world.slack.chat.postMessage({ channel: 'C0AGENTS', text: 'other' })).ts);
  const cards = updater({ minIntervalMs: 5_000, maxPerMinute: 6_000, clock });
  // This process's last view of the session: running (what a progress edit is built from).
  const running = async () => ({ channel: 'C0AGENTS', ts, text: 'Running', blocks: section('Running') });
  const shows = (at: string, text: string) =>
    world.sandbox.workspace.waitFor(
      () => world.sandbox.workspace.findMessage('C0AGENTS', at)?.text === text,
      {
        what: `the card showing ${text}`,
      },
    );
  cards.schedule('s1', running);
  await clock.advance(0);
  await shows(ts, 'Running');
  await vi.waitFor(() => expect(cards.updates).toBe(1), { timeout: patient(10_000) });
  // A change inside the interval waits; then the lease moves, and the new owner draws the end.
  cards.schedule('s1', running);
  expect(cards.pendingByRank().progress).toBe(1);
  cards.forget('s1');
  expect(cards.pendingByRank().progress).toBe(0);
  await world.slack.chat.update({ channel: 'C0AGENTS', ts, text: 'Completed', blocks: section('Completed') });
  // Past the dropped edit's time, another card's edit goes: one edit at a time, the older one first.
  await clock.advance(10_000);
  cards.schedule('other', async () => ({
    channel: 'C0AGENTS',
    ts: other,
    text: 'other edited',
    blocks: section('other edited'),
  }));
  await clock.advance(0);
  await shows(other, 'other edited');
  await cards.stop();
  expect(world.sandbox.workspace.findMessage('C0AGENTS', ts)?.text).toBe('Completed');
  expect(cards.updates).toBe(2);
});

it('sends the same content again after a take-over that came while the edit was in flight', async () => {
  const { ts, edits } = await postCard('Starting');
  const cards = updater({ minIntervalMs: 0 });
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const done = cards.updateNow('s4', async () => {
    await held;
    return { channel: 'C0AGENTS', ts, text: 'Running', blocks: section('Running') };
  });
  // The lease moves while this edit is on its way: the new owner may draw something else after it.
  cards.forget('s4');
  release();
  await done;
  expect(edits()).toBe(1);
  await cards.updateNow('s4', async () => ({
    channel: 'C0AGENTS',
    ts,
    text: 'Running',
    blocks: section('Running'),
  }));
  expect(edits()).toBe(2);
  await cards.stop();
});

it('still sends a final edit waiting when the session was taken over (the end it shows stays true)', async () => {
  const { ts } = await postCard('Running');
  const busy = String((await world.slack.chat.postMessage({ channel: 'C0AGENTS', text: 'busy' })).ts);
  const cards = updater({ minIntervalMs: 0 });
  // Another card's edit is in flight: the final one waits for its turn.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const first = cards.updateNow('busy', async () => {
    await held;
    return { channel: 'C0AGENTS', ts: busy, text: 'busy done', blocks: section('busy done') };
  });
  const done = cards.updateNow('s2', async () => ({
    channel: 'C0AGENTS',
    ts,
    text: 'Completed',
    blocks: section('Completed'),
  }));
  expect(cards.pendingByRank().final).toBe(1);
  cards.forget('s2');
  expect(cards.pendingByRank().final).toBe(1);
  release();
  await Promise.all([first, done]);
  expect(world.sandbox.workspace.findMessage('C0AGENTS', ts)?.text).toBe('Completed');
  await cards.stop();
});

it('when the edit budget is scarce: final states first, then "waiting for you", progress folded to its latest', async () => {
  const clock = new ManualClock(0);
  const logger = createLogger({ secrets: [], level: 'silent' });
  const metrics = new BotMetrics(() => undefined);
  // One edit a second for the workspace, none saved up: every edit after the first waits its turn.
  const outbound = new OutboundQueue(logger, metrics, { updatePerMinute: 60, updateBurst: 1, clock });
  const cards = new CardUpdater(world.slack, logger, metrics, { minIntervalMs: 0, clock }, outbound);
  const ts: Record<string, string> = {};
  for (const name of ['p1', 'p2', 'wait', 'done'])
    ts[name] = String((await world.slack.chat.postMessage({ channel: 'C0AGENTS', text: `${name} v0` })).ts);
  const shown: string[] = [];
  const onChange = (c: { kind: string; message?: { ts: string; text?: string } }) => {
    if (c.kind === 'message_changed' && c.message && Object.values(ts).includes(c.message.ts))
      shown.push(c.message.text ?? '');
  };
  world.sandbox.workspace.on('change', onChange);
  const version = (name: string, v: string) => async () => ({
    channel: 'C0AGENTS',
    ts: ts[name] as string,
    text: `${name} ${v}`,
    blocks: section(`${name} ${v}`),
  });
  const editsSeen = (n: number) =>
    world.sandbox.workspace.waitFor(() => shown.length >= n || undefined, { what: `${n} edits` });

  cards.schedule('p1', version('p1', 'v1'));
  await editsSeen(1);
  // While the budget is spent: progress of two cards (one of them three times), a card waiting for a
  // person, and a final state, in that order.
  cards.schedule('p2', version('p2', 'v1'));
  cards.schedule('p1', version('p1', 'v2'));
  cards.schedule('wait', version('wait', 'waiting for you'), { rank: 'attention' });
  cards.schedule('p1', version('p1', 'v3'));
  const final = cards.updateNow('done', version('done', 'completed'));
  expect(cards.pendingByRank()).toEqual({ final: 1, attention: 1, progress: 2 });
  for (let n = 2; n <= 5; n++) {
    await clock.advance(1_000);
    await editsSeen(n);
    if (n === 2) await final;
  }
  expect(shown).toEqual(['p1 v1', 'done completed', 'wait waiting for you', 'p2 v1', 'p1 v3']);
  await vi.waitFor(() => expect(cards.updates).toBe(5), { timeout: patient(10_000) });
  world.sandbox.workspace.off('change', onChange);
  await cards.stop();
});
