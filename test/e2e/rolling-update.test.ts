import { describe, expect, it, vi } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, BOB, CHANNEL, textOf, WAIT_MS } from './harness.js';
import { cardsOf, duplicates, isPrompt, postKeys } from './helpers.js';

// A rolling update is a SIGTERM to each replica in turn. The replica going away finishes its posts and
// releases its leases; the other takes its sessions at its next poke pass. The leases here live an hour:
// a take-over seen within the test's budget can't be a lease expiring.
describe('SIGTERM to a replica following sessions mid-work, on PostgreSQL', () => {
  const database = scratchDatabase('bot_rolling');
  const world = useBotProcesses({ emulatorSpeed: 3, store: { database } });

  it(
    'the other replica takes its sessions at once: every message once, in order, and its questions answerable',
    async () => {
      const { sandbox } = world;
      const env = (id: string) => world.env({ REPLICA_ID: id, LEASE_TTL_SECONDS: '3600' });
      // Started together, as a deployment's replicas are (their migrations take turns under a lock).
      const [a, b] = await Promise.all([world.spawn(env('replica-a')), world.spawn(env('replica-b'))]);
      const ws = sandbox.workspace;
      const drivers = [sandbox.driver(a.eventsUrl), sandbox.driver(b.eventsUrl)];
      const goals = [
        ...[0, 1, 2, 3].map((i) => `scenario:growing_round rollout ${i}`),
        ...[0, 1].map((i) => `scenario:approval release ${i}`),
      ];
      for (const [i, goal] of goals.entries()) {
        await drivers[i % 2]?.command({ user: i % 2 ? BOB : ALICE, channel: CHANNEL, text: `start ${goal}` });
      }
      const cards = await cardsOf(ws, CHANNEL, goals);
      const growing = cards.slice(0, 4);
      const approvals = cards.slice(4);
      // Each unfinished session and its lease's owner (null: none yet).
      const owners = async () =>
        new Map(
          (
            await database.query<{ session_id: string; owner: string | null }>(
              'SELECT s.session_id, l.owner FROM sessions s LEFT JOIN leases l USING (session_id) WHERE NOT s.finished',
            )
          ).map((r) => [r.session_id, r.owner]),
        );
      // Both replicas follow some of the sessions, and A's are mid-work: some notes out, more to come.
      await vi.waitFor(
        async () => {
          const held = [...(await owners()).values()];
          if (!held.includes('replica-a') || !held.includes('replica-b'))
            throw new Error(`leases: ${JSON.stringify(held)}`);
        },
        { timeout: WAIT_MS, interval: 200 },
      );
      for (const card of growing) {
        await ws.waitFor(
          () => ws.replies(CHANNEL, card.ts).find((m) => /Progress note 3 of 30/.test(textOf(m))),
          {
            what: 'the third progress note',
            timeoutMs: WAIT_MS,
          },
        );
      }

      await a.kill('SIGTERM');
      expect({ code: a.child.exitCode, signal: a.child.signalCode }).toEqual({ code: 0, signal: null });
      expect(a.output.some((l) => /"replicaId":"replica-a".*leases released/.test(l))).toBe(true);
      expect(a.output.some((l) => /grace ran short/.test(l))).toBe(false);
      // Replica B holds every unfinished session, A's among them, though A's leases had an hour to live.
      await vi.waitFor(
        async () => {
          const held = await owners();
          const left = [...held].filter(([, owner]) => owner !== 'replica-b');
          if (left.length > 0) throw new Error(`not yet taken over: ${JSON.stringify(left)}`);
        },
        { timeout: WAIT_MS, interval: 100 },
      );

      // Every question is answered through B, the replica left, by the session's starter.
      for (const [i, card] of approvals.entries()) {
        const prompt = await ws.waitFor(() => ws.replies(CHANNEL, card.ts).find(isPrompt), {
          what: 'the approval prompt',
          timeoutMs: patient(60_000),
        });
        const starter = (4 + i) % 2 ? BOB : ALICE;
        const click = await drivers[1]?.act({
          user: starter,
          channel: CHANNEL,
          ts: prompt.ts,
          actionId: 'input_approve',
        });
        expect(click?.status).toBe(200);
        await ws.waitFor(
          () =>
            ws
              .replies(CHANNEL, card.ts)
              .find((m) => /Deployed v2\.3\.1 to production after approval/.test(textOf(m))),
          { what: 'the deployment after approval', timeoutMs: patient(60_000) },
        );
      }
      for (const card of growing) {
        await ws.waitFor(
          () => ws.replies(CHANNEL, card.ts).find((m) => /Finished after 30 progress notes/.test(textOf(m))),
          { what: 'the final report', timeoutMs: patient(120_000) },
        );
      }
      for (const card of cards) {
        expect(duplicates(postKeys(ws.replies(CHANNEL, card.ts)))).toEqual([]);
      }
      for (const card of growing) {
        // A thread that fell behind gets several notes in one post: every note, in order, once.
        const notes = ws
          .replies(CHANNEL, card.ts)
          .flatMap((m) =>
            [...(m.text ?? '').matchAll(/Progress note (\d+) of 30/g)].map((x) => Number(x[1])),
          );
        expect(notes).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      }
      for (const card of approvals) {
        const texts = ws.replies(CHANNEL, card.ts).map((m) => textOf(m));
        expect(texts.filter((t) => /I need approval before deploying/.test(t))).toHaveLength(1);
      }
    },
    patient(300_000),
  );
});
