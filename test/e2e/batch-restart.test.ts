import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { ALICE, CHANNEL, newCard, textOf } from './harness.js';
import { duplicates, postKeys } from './helpers.js';

// Batches across SIGKILL, with Slack's limits on: the bot records a batch's messages (keys and content)
// before it posts them and lets the follower move on; killed with posts still queued, the next start
// finds what was posted by its metadata and posts the rest, each message exactly once.
const world = useBotProcesses({ emulatorSpeed: 10, store: { dataDirPrefix: 'bot-batch-restart-' } });

const isBatch = (m: SandboxMessage) => /"keys"/.test(JSON.stringify(m.metadata ?? {}));

it(
  'SIGKILLed while batched chatter is queued: every message exactly once after the restart',
  async () => {
    const { emulator, sandbox } = world;
    const ws = sandbox.workspace;
    const start = () => world.spawn(world.env());
    const bot = await start();
    const driver = sandbox.driver(bot.eventsUrl);
    const cards: string[] = [];
    for (const part of ['one', 'two']) {
      const card = await newCard(
        ws,
        () =>
          driver.command({
            user: ALICE,
            channel: CHANNEL,
            text: `start scenario:chatty review part ${part}`,
          }),
        { what: 'a card' },
      );
      cards.push(card.ts);
    }
    // The channel is behind (a batch went out), and more is still to come: kill it now.
    await ws.waitFor(() => cards.some((ts) => ws.replies(CHANNEL, ts).some(isBatch)), {
      what: 'a batched post',
      timeoutMs: patient(60_000),
    });
    const done = (ts: string) => ws.replies(CHANNEL, ts).some((m) => /Reviewed 24 modules/.test(textOf(m)));
    expect(cards.every(done)).toBe(false);
    await bot.kill('SIGKILL');

    await start();
    await ws.waitFor(() => cards.every(done), { what: 'both final reports', timeoutMs: patient(240_000) });
    // 72 from the script each; with EMULATOR_QUIRKS=concurrent-rounds their subagents write a few more.
    const written = new Map<string, number>();
    for (const s of await emulator.admin.sessions()) written.set(s.sessionId, s.messageCount);
    for (const ts of cards) {
      const thread = ws.replies(CHANNEL, ts);
      const sessionId = /session `([^`]+)`/.exec(textOf(ws.findMessage(CHANNEL, ts)))?.[1] ?? '';
      const total = written.get(sessionId) ?? 0;
      expect(total).toBeGreaterThanOrEqual(72);
      const keys = postKeys(thread);
      expect(duplicates(keys)).toEqual([]);
      const messages = new Set(keys.filter((k) => k.startsWith('msg:')).map((k) => k.replace(/~\d+$/, '')));
      const uploads = thread.filter((m) => /too long for a message/.test(m.text ?? ''));
      expect(messages.size + uploads.length).toBe(total);
    }
  },
  patient(360_000),
);
