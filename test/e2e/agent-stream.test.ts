import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { type BotProcess, useBotProcesses } from './bot-process.js';
import { ALICE, CHANNEL, newCard, textOf } from './harness.js';
import { duplicates, postKeys } from './helpers.js';

// The agent surface: the agent's work streams into the session's thread, one streaming message for the
// session's rounds (continuations past 12,000 characters), each message exactly once — also across SIGKILL with a
// stream open. The real bot as a process, the sandbox speaking Slack's chat.startStream / appendStream /
// stopStream at Slack's own limits, the emulator's `chatty` script (72 messages, one over 40,000 characters,
// tool calls and reasoning). Run with and without EMULATOR_QUIRKS=all.
const world = useBotProcesses({ emulatorSpeed: 10, store: { dataDirPrefix: 'bot-agent-stream-' } });

const streamState = (m: SandboxMessage) => (m as { streaming_state?: string }).streaming_state;
const isStream = (m: SandboxMessage) => streamState(m) !== undefined;
const OBSERVATIONS = Array.from({ length: 24 }, (_, i) => i).filter((i) => i !== 12 && i % 10 !== 5);

async function startChatty(bot: BotProcess, name: string): Promise<string> {
  const ws = world.sandbox.workspace;
  const driver = world.sandbox.driver(bot.eventsUrl);
  const card = await newCard(
    ws,
    () =>
      driver.command({ user: ALICE, channel: CHANNEL, text: `start scenario:chatty stream review ${name}` }),
    { what: 'a card' },
  );
  return card.ts;
}

const reported = (ts: string) =>
  world.sandbox.workspace.replies(CHANNEL, ts).some((m) => /Reviewed 24 modules/.test(textOf(m)));
/** The report is there, and every stream stopped (a stream's last stop follows the report). */
const finished = (ts: string) =>
  reported(ts) &&
  world.sandbox.workspace
    .replies(CHANNEL, ts)
    .filter(isStream)
    .every((m) => streamState(m) === 'completed');

/** Every agent message of the session in the thread exactly once: by its key, and by what it says. */
async function expectEachOnce(cardTs: string): Promise<void> {
  const ws = world.sandbox.workspace;
  const thread = ws.replies(CHANNEL, cardTs);
  const sessionId = /session `([^`]+)`/.exec(textOf(ws.findMessage(CHANNEL, cardTs)))?.[1] ?? '';
  const written = (await world.emulator.admin.sessions()).find(
    (s) => s.sessionId === sessionId,
  )?.messageCount;
  expect(written).toBeGreaterThanOrEqual(72);
  const streams = thread.filter(isStream);
  // The 49,610-character message goes as a file, as the classic thread's does; the stream stops before it
  // and the chatter after it goes into a continuation below it.
  expect(streams.length).toBeGreaterThan(1);
  const uploads = thread.filter((m) => /too long for a message/.test(m.text ?? ''));
  expect(uploads).toHaveLength(1);
  expect(streams.every((m) => streamState(m) === 'completed')).toBe(true);
  for (const m of streams) expect(m.text?.length ?? 0).toBeLessThanOrEqual(12_000);
  expect(streams.slice(1).some((m) => /^_\(continued/.test(m.text ?? ''))).toBe(true);
  // Keys: each in one stream's metadata, and every message the agent wrote has one.
  const keys = postKeys(streams);
  expect(duplicates(keys)).toEqual([]);
  const messages = new Set(keys.filter((k) => k.startsWith('msg:')).map((k) => k.replace(/~\d+$/, '')));
  expect(messages.size + uploads.length).toBe(written);
  // Content: no agent message of the thread's classic kind, each observation and tool result shown once.
  // (A stream's text is its markdown; its blocks show the same markdown again, and the tasks.)
  const said = thread.map((m) => m.text ?? '').join('\n');
  const shown = thread.map((m) => JSON.stringify(m.blocks ?? [])).join('\n');
  for (const i of OBSERVATIONS) expect(said.split(`Observation ${i + 1}.`).length - 1).toBe(1);
  for (let i = 0; i < 24; i++) expect(shown.split(`export const module${i} = ${i};`).length - 1).toBe(1);
  expect(said + shown).not.toContain('Thinking about observation'); // reasoning stays hidden
  const tasks = streams.flatMap((m) => (m.blocks ?? []) as Array<{ type?: string; status?: string }>);
  expect(tasks.filter((b) => b.type === 'task_card').every((b) => b.status === 'complete')).toBe(true);
}

describe('the agent surface streams the work', () => {
  it(
    'a chatty session: streamed, each message exactly once, tasks complete with their results',
    async () => {
      const bot = await world.spawn(world.env({ AGENT_SLACK_SURFACE: 'agent' }));
      const ts = await startChatty(bot, 'once');
      await world.sandbox.workspace.waitFor(() => finished(ts), {
        what: 'the final report',
        timeoutMs: patient(180_000),
      });
      await expectEachOnce(ts);
      await bot.kill('SIGTERM');
    },
    patient(240_000),
  );

  it(
    'SIGKILL with a stream open: after the restart nothing is lost and nothing is twice',
    async () => {
      const ws = world.sandbox.workspace;
      const bot = await world.spawn(world.env({ AGENT_SLACK_SURFACE: 'agent' }));
      const ts = await startChatty(bot, 'killed');
      await ws.waitFor(() => ws.replies(CHANNEL, ts).some((m) => streamState(m) === 'in_progress'), {
        what: 'an open stream',
        timeoutMs: patient(60_000),
      });
      expect(reported(ts)).toBe(false);
      await bot.kill('SIGKILL');
      await world.spawn(world.env({ AGENT_SLACK_SURFACE: 'agent' }));
      await ws.waitFor(() => finished(ts), {
        what: 'the final report after the restart',
        timeoutMs: patient(240_000),
      });
      await expectEachOnce(ts);
    },
    patient(360_000),
  );
});
