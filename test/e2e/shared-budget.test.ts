import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, BOB, CHANNEL, textOf } from './harness.js';

const SESSIONS = 8;

// Two replicas need a real PostgreSQL: TEST_DATABASE_URL's, or the one started for the run.
describe("two replicas at saturation share Slack's limits", () => {
  const database = scratchDatabase('bot_budget');
  // Slack's own figures (one post a second per channel, a burst of 5), whatever SANDBOX_RATE_* says.
  const world = useBotProcesses({ emulatorSpeed: 1, sandbox: { rateLimits: {} }, store: { database } });

  it(
    'together they post in one channel no faster than Slack allows: no 429s',
    async () => {
      const { sandbox } = world;
      const ws = sandbox.workspace;
      // Started together, as a deployment's replicas are (their migrations take turns under a lock).
      const [a, b] = await Promise.all([
        world.spawn(world.env({ REPLICA_ID: 'budget-a' })),
        world.spawn(world.env({ REPLICA_ID: 'budget-b' })),
      ]);
      const drivers = [sandbox.driver(a.eventsUrl), sandbox.driver(b.eventsUrl)];
      const from = ws.apiCalls.at(-1)?.seq ?? 0;
      // Eight sessions saying a message a second each, in one channel: eight times what Slack lets it
      // post. Each replica alone would post at Slack's pace, so two would post twice as fast.
      for (let i = 0; i < SESSIONS; i++) {
        await drivers[i % 2]?.command({
          user: i % 2 ? BOB : ALICE,
          channel: CHANNEL,
          text: `start scenario:growing_round shared-budget run ${i}`,
        });
      }
      const cards = await ws.waitFor(
        () => {
          const found = (ws.messages.get(CHANNEL) ?? []).filter(
            (m) => !m.thread_ts && /shared-budget run \d/.test(textOf(m)),
          );
          return found.length === SESSIONS ? found : undefined;
        },
        // Cards wait their turn at one post a second, beside every other suite's processes.
        { what: `${SESSIONS} cards`, timeoutMs: patient(60_000) },
      );
      // Both replicas follow some of the sessions (each posts its own sessions' chatter).
      const owners = await database.query<{ owner: string }>(
        'SELECT DISTINCT owner FROM leases ORDER BY owner',
      );
      expect(owners.map((o) => o.owner)).toEqual(['budget-a', 'budget-b']);
      // Every session's report, then the calls the two made while saturated.
      for (const card of cards) {
        await ws.waitFor(
          () => ws.replies(CHANNEL, card.ts).find((m) => /Finished after 30 progress notes/.test(textOf(m))),
          { what: `the report under ${card.ts}`, timeoutMs: patient(150_000) },
        );
      }
      const calls = ws.apiCalls.filter((c) => c.seq > from && !c.event);
      const posts = calls.filter((c) => c.method === 'chat.postMessage' && c.channel === CHANNEL);
      const edits = calls.filter((c) => c.method === 'chat.update' && c.channel === CHANNEL);
      // Saturated: more to say than the channel took (the chatter went out batched, or into a session's
      // latest post by an edit while the channel's posts were behind).
      expect(posts.length).toBeGreaterThan(15);
      expect(posts.length + edits.length).toBeGreaterThan(30);
      expect(calls.filter((c) => c.status === 429)).toEqual([]);
      // The budget they spent is one row per limit in the database.
      const rows = await database.query<{ key: string }>('SELECT key FROM slack_budgets ORDER BY key');
      expect(rows.map((r) => r.key)).toContain(`chat.postMessage:${CHANNEL}`);
    },
    patient(240_000),
  );
});
