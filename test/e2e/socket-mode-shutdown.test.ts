import type { ChildProcess } from 'node:child_process';
import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it, vi } from 'vitest';
import { patient } from '../support/patience.js';
import { socketModeEnv, useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, CHANNEL, textOf, WAIT_MS } from './harness.js';
import { cardsOf, duplicates, isPrompt, postKeys } from './helpers.js';

// A rolling update in Socket Mode: SIGTERM to a replica mid-work. It closes its WebSocket first, so Slack
// sends the next envelope down the other replica's connection; then it finishes its posts, releases its
// leases and exits 0 within the grace (SHUTDOWN_GRACE_SECONDS; past it main.js exits 1). The leases live
// an hour: a take-over seen within the test's budget is the release's, not an expiry's.

const until = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: WAIT_MS, interval: 100 });

/** Resolves when the process has exited (at once if it already has). */
const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

describe('SIGTERM to a Socket Mode replica following sessions mid-work', () => {
  const database = scratchDatabase('bot_socket_sigterm');
  const world = useBotProcesses({ emulatorSpeed: 3, store: { database } });

  it(
    'closes its socket, finishes its posts, hands its sessions over and exits 0: every message once',
    async () => {
      const { sandbox } = world;
      const hub = sandbox.socketMode;
      const ws = sandbox.workspace;
      const env = (id: string) =>
        socketModeEnv(world.env({ REPLICA_ID: id, LEASE_TTL_SECONDS: '3600' }), sandbox);
      // A connects first and starts every session: the sandbox sends each envelope down its first open
      // connection, as Slack picks one of the app's, so every request goes to A until A's socket closes.
      const a = await world.spawnSocketMode(env('replica-a'));
      await until(() => expect(hub.connected).toBe(1));
      const driver = sandbox.socketDriver();
      const growingGoals = [0, 1, 2, 3].map((i) => `scenario:growing_round over a socket ${i}`);
      const goals = [...growingGoals, 'scenario:approval over a socket release'];
      for (const goal of goals)
        await driver.command({ user: ALICE, channel: CHANNEL, text: `start ${goal}` });
      const cards = await cardsOf(ws, CHANNEL, goals);
      const growing = cards.slice(0, 4);
      const approval = cards[4] as SandboxMessage;
      const owners = async () =>
        new Map(
          (
            await database.query<{ session_id: string; owner: string }>(
              'SELECT l.session_id, l.owner FROM leases l JOIN sessions s USING (session_id) WHERE NOT s.finished',
            )
          ).map((r) => [r.session_id, r.owner]),
        );
      // A, alone, follows every session. B joins now: its first lease pass finds them all held, and its
      // next comes a third of the hour later, so until A goes B follows nothing.
      const aHeld = await until(async () => {
        const held = await owners();
        const mine = [...held].filter(([, owner]) => owner === 'replica-a').map(([id]) => id);
        if (mine.length < goals.length) throw new Error(`leases: ${JSON.stringify([...held])}`);
        return mine;
      });
      await world.spawnSocketMode(env('replica-b'));
      await until(() => expect(hub.connected).toBe(2));
      // A's sessions mid-work: some notes out, more to come.
      for (const card of growing)
        await ws.waitFor(
          () => ws.replies(CHANNEL, card.ts).find((m) => /Progress note 3 of 30/.test(textOf(m))),
          { what: 'the third progress note', timeoutMs: WAIT_MS },
        );

      const closesBefore = hub.closeCodes.length;
      a.child.kill('SIGTERM');
      // A closes its connection itself, with a close frame (1000): a process gone without closing it
      // would leave 1006. B's connection stays.
      await until(() => expect(hub.closeCodes.slice(closesBefore)).toEqual([1000]));
      expect(hub.connected).toBe(1);
      // The next request goes down B's connection, and B serves it.
      const later = await driver.command({
        user: ALICE,
        channel: CHANNEL,
        text: 'start scenario:growing_round after the socket closed',
      });
      expect(later.status).toBe(200);

      await exited(a.child);
      expect({ code: a.child.exitCode, signal: a.child.signalCode }).toEqual({ code: 0, signal: null });
      const aLines = a.output.filter((l) => l.includes('"replicaId":"replica-a"'));
      expect(aLines.some((l) => /leases released/.test(l))).toBe(true);
      expect(a.output.some((l) => /grace ran short|did not stop within/.test(l))).toBe(false);
      expect(a.output.some((l) => /could not close the Socket Mode connection/.test(l))).toBe(false);
      // B holds every session A followed and that is still running (the approval waits for its click at
      // least), though A's leases had an hour to live.
      const handedOver = await until(async () => {
        const held = await owners();
        const running = new Set(
          (
            await database.query<{ session_id: string }>('SELECT session_id FROM sessions WHERE NOT finished')
          ).map((r) => r.session_id),
        );
        const mine = aHeld.filter((id) => running.has(id));
        const left = mine.filter((id) => held.get(id) !== 'replica-b');
        if (left.length > 0) throw new Error(`not yet taken over: ${left.join(', ')}`);
        return mine;
      });
      expect(handedOver.length).toBeGreaterThanOrEqual(1);

      // The question is answered over B's connection, the session started after A closed is B's work.
      const prompt = await ws.waitFor(() => ws.replies(CHANNEL, approval.ts).find(isPrompt), {
        what: 'the approval prompt',
        timeoutMs: patient(60_000),
      });
      const click = await driver.act({
        user: ALICE,
        channel: CHANNEL,
        ts: prompt.ts,
        actionId: 'input_approve',
      });
      expect(click.status).toBe(200);
      await ws.waitFor(
        () =>
          ws
            .replies(CHANNEL, approval.ts)
            .find((m) => /Deployed v2\.3\.1 to production after approval/.test(textOf(m))),
        { what: 'the deployment after approval', timeoutMs: patient(60_000) },
      );
      // The card of the session started after A closed its socket.
      const laterCard = (
        await cardsOf(ws, CHANNEL, ['scenario:growing_round after the socket closed'])
      )[0] as SandboxMessage;
      for (const card of [...growing, laterCard])
        await ws.waitFor(
          () => ws.replies(CHANNEL, card.ts).find((m) => /Finished after 30 progress notes/.test(textOf(m))),
          { what: 'the final report', timeoutMs: patient(120_000) },
        );

      for (const card of [...cards, laterCard])
        expect(duplicates(postKeys(ws.replies(CHANNEL, card.ts)))).toEqual([]);
      for (const card of [...growing, laterCard]) {
        // A thread that fell behind gets several notes in one post: every note, in order, once.
        const notes = ws
          .replies(CHANNEL, card.ts)
          .flatMap((m) =>
            [...(m.text ?? '').matchAll(/Progress note (\d+) of 30/g)].map((x) => Number(x[1])),
          );
        expect(notes).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      }
      const asked = ws
        .replies(CHANNEL, approval.ts)
        .filter((m) => /I need approval before deploying/.test(textOf(m)));
      expect(asked).toHaveLength(1);
    },
    patient(300_000),
  );
});
