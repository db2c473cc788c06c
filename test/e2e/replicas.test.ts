import { describe, expect, it, vi } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, BOB, CHANNEL, textOf, WAIT_MS } from './harness.js';
import { duplicates, postKeys } from './helpers.js';
import { afterLeasePasses } from './lease-passes.js';
import { expectNoSecrets, secretsOf } from './secrets.js';

// Several replicas need a real PostgreSQL: TEST_DATABASE_URL's, or the one started for the run.
describe('two replicas on one PostgreSQL', () => {
  const database = scratchDatabase('bot_replicas');
  const world = useBotProcesses({ emulatorSpeed: 3, store: { database } });

  it(
    'split the sessions, post each message once, and take over a killed replica’s sessions',
    async () => {
      const { sandbox, output } = world;
      const env = (id: string) => world.env({ REPLICA_ID: id, LEASE_TTL_SECONDS: '2' });
      // Started together, as a deployment's replicas are (their migrations take turns under a lock).
      const [a, b] = await Promise.all([world.spawn(env('replica-a')), world.spawn(env('replica-b'))]);
      const ws = sandbox.workspace;
      const drivers = [sandbox.driver(a.eventsUrl), sandbox.driver(b.eventsUrl)];
      for (let i = 0; i < 6; i++) {
        await drivers[i % 2]?.command({
          user: i % 2 ? BOB : ALICE,
          channel: CHANNEL,
          text: `start scenario:growing_round replica batch ${i}`,
        });
      }
      const cards = await ws.waitFor(
        () => {
          const found = (ws.messages.get(CHANNEL) ?? []).filter(
            (m) => !m.thread_ts && /replica batch \d/.test(textOf(m)),
          );
          return found.length === 6 ? found : undefined;
        },
        { what: 'six cards', timeoutMs: WAIT_MS },
      );
      // Both replicas follow some of the sessions.
      const split = await vi.waitFor(
        async () => {
          const rows = await database.query<{ owner: string; n: string }>(
            'SELECT owner, count(*) AS n FROM leases GROUP BY owner ORDER BY owner',
          );
          if (rows.length < 2) throw new Error(`leases held by ${rows.map((r) => r.owner).join(', ')}`);
          return rows.map((r) => ({ owner: r.owner, n: Number(r.n) }));
        },
        { timeout: WAIT_MS, interval: 200 },
      );
      expect(split.map((s) => s.owner)).toEqual(['replica-a', 'replica-b']);
      for (const s of split) expect(s.n).toBeGreaterThanOrEqual(1);

      // Replica A works on its sessions a while, then dies without a word; B takes them over once the
      // leases expire.
      await afterLeasePasses(a, 3);
      await a.kill('SIGKILL');
      for (const card of cards) {
        await ws.waitFor(() => /Completed/.test(textOf(ws.findMessage(CHANNEL, card.ts))), {
          what: `completion of ${card.ts}`,
          timeoutMs: patient(60_000),
        });
        // Six sessions share the channel at Slack's own pace: its backlog drains well after the cards say so.
        await ws.waitFor(
          () => ws.replies(CHANNEL, card.ts).find((m) => /Finished after 30 progress notes/.test(textOf(m))),
          { what: 'the final report', timeoutMs: patient(120_000) },
        );
      }
      for (const card of cards) {
        const thread = ws.replies(CHANNEL, card.ts);
        expect(duplicates(postKeys(thread))).toEqual([]);
        // A thread that fell behind gets several notes in one post (a batch): every note, in order, counts.
        const notes = thread.flatMap((m) =>
          [...(m.text ?? '').matchAll(/Progress note (\d+) of 30/g)].map((x) => Number(x[1])),
        );
        expect(notes).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      }
      expect(
        output.some((l) => /"owner":"replica-b".*following a session|following a session.*replica-b/.test(l)),
      ).toBe(true);
      expectNoSecrets(output, secretsOf(sandbox));
    },
    patient(420_000),
  );
});
