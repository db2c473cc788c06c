import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, CHANNEL, newCard, textOf } from './harness.js';
import { duplicates, postKeys } from './helpers.js';

// AGENT_TASK_DISPLAY=plan: each stream is a plan titled with the goal, its tool calls the
// plan's tasks, ticking to complete; every message still once. The real bot as a process, the sandbox's
// chat.startStream (task_display_mode, plan_update) as Slack's, the emulator's `chatty` script.
// The store is not the subject: a scratch PostgreSQL database, which a bot opens for about a CPU-second
// less than PGlite.
const world = useBotProcesses({ emulatorSpeed: 10, store: { database: scratchDatabase('bot_agent_plan') } });

const isStream = (m: SandboxMessage) => (m as { streaming_state?: string }).streaming_state !== undefined;
type PlanBlock = { type?: string; title?: string; tasks?: Array<{ status?: string }> };

describe('a stream shown as a plan', () => {
  it(
    'every stream of the session starts in plan mode, titled with the goal; its tasks end complete',
    async () => {
      const bot = await world.spawn(world.env({ AGENT_SLACK_SURFACE: 'auto', AGENT_TASK_DISPLAY: 'plan' }));
      const ws = world.sandbox.workspace;
      const driver = world.sandbox.driver(bot.eventsUrl);
      const goal = 'scenario:chatty plan the review';
      const card = await newCard(
        ws,
        () => driver.command({ user: ALICE, channel: CHANNEL, text: `start ${goal}` }),
        {
          what: 'a card',
        },
      );
      await ws.waitFor(
        () =>
          ws.replies(CHANNEL, card.ts).some((m) => /Reviewed 24 modules/.test(textOf(m))) ? true : undefined,
        { what: 'the final report', timeoutMs: patient(120_000) },
      );
      const records = world.sandbox.agent.streams({ channel: CHANNEL, threadTs: card.ts });
      expect(records.length).toBeGreaterThan(1);
      for (const [i, record] of records.entries()) {
        expect(record.displayMode).toBe('plan');
        // Titled with the goal as people read it: without the emulator's `scenario:` word.
        expect(record.planTitle).toEqual(
          i === 0 ? 'plan the review' : expect.stringMatching(/^plan the review/),
        );
      }
      const streams = ws.replies(CHANNEL, card.ts).filter(isStream);
      const plans = streams.flatMap((m) => (m.blocks ?? []) as PlanBlock[]).filter((b) => b.type === 'plan');
      const tasks = plans.flatMap((p) => p.tasks ?? []);
      expect(tasks.length).toBeGreaterThan(0);
      expect(tasks.every((t) => t.status === 'complete')).toBe(true);
      expect(duplicates(postKeys(streams))).toEqual([]);
    },
    patient(180_000),
  );
});
