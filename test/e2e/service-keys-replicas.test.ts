import { randomBytes } from 'node:crypto';
import type { SandboxView, SlackDriver } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, CHANNEL, newCard, textOf } from './harness.js';
import { homeOf, homeText, pressInHome } from './home-tab.js';
import { afterLeasePasses } from './lease-passes.js';

// Service keys on two replicas (real processes on one PostgreSQL): a key linked on one is used by the other,
// and a key removed on one stops the session wherever it is followed — said once in its thread, not once
// per replica — and linked again it is followed again.
const ALICE_KEY = `emu_alice_${randomBytes(8).toString('hex')}`;
const ENCRYPTION_KEY = randomBytes(32).toString('base64');

describe('service keys across replicas, on PostgreSQL', () => {
  const database = scratchDatabase('bot_keys');
  const world = useBotProcesses({
    emulatorSpeed: 5,
    sandbox: { rateLimits: false },
    store: { database },
    emulatorKeys: [ALICE_KEY],
  });

  it(
    'linked on one, used by the other; removed on the other, said once; linked again, followed again',
    async () => {
      const env = (id: string) =>
        world.env({
          REPLICA_ID: id,
          LEASE_TTL_SECONDS: '2',
          AGENT_KEYS: 'per-person',
          AGENT_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
        });
      // Started together, as a deployment's replicas are (their migrations take turns under a lock).
      const [a, b] = await Promise.all([world.spawn(env('replica-a')), world.spawn(env('replica-b'))]);
      const { sandbox } = world;
      const ws = sandbox.workspace;
      const onA = sandbox.driver(a.eventsUrl);
      const onB = sandbox.driver(b.eventsUrl);

      const openHome = async (driver: SlackDriver) => {
        const before = homeOf(sandbox, ALICE)?.hash;
        await driver.appHomeOpened({ user: ALICE, eventId: `Ev${randomBytes(6).toString('hex')}` });
        return ws.waitFor(
          () => {
            const view = homeOf(sandbox, ALICE);
            return view && view.hash !== before ? view : undefined;
          },
          { what: 'Alice’s Home tab' },
        );
      };
      const link = async (driver: SlackDriver) => {
        await openHome(driver);
        const before = driver.openModal(ALICE)?.id;
        await pressInHome(sandbox, driver, ALICE, 'keys_link');
        const form = await ws.waitFor(
          () => {
            const modal = driver.openModal(ALICE);
            return modal && modal.id !== before ? (modal as SandboxView) : undefined;
          },
          { what: 'the link form' },
        );
        const response = await driver.submitView({
          user: ALICE,
          viewId: form.id,
          values: { api_key: { value: ALICE_KEY } },
        });
        expect((response.body as { errors?: unknown } | undefined)?.errors).toBeUndefined();
      };

      await link(onA);
      const card = await newCard(
        ws,
        () => onB.command({ user: ALICE, channel: CHANNEL, text: 'start scenario:long index the archive' }),
        { what: 'the session card', timeoutMs: patient(30_000) },
      );
      const sessionId = /session `([^`]+)`/.exec(textOf(card))?.[1] as string;
      expect((await world.emulator.admin.session(sessionId))?.accountId).toBe('acct_1');
      const thread = () => ws.replies(CHANNEL, card.ts);
      await ws.waitFor(() => thread().find((m) => /Step 1:/.test(textOf(m))), {
        what: 'the agent at work',
        timeoutMs: patient(30_000),
      });

      await openHome(onB);
      await pressInHome(sandbox, onB, ALICE, 'keys_remove');
      const notice =
        /stopped following this session: the Agent Session Service key it runs under was removed/;
      const said = await ws.waitFor(() => thread().find((m) => notice.test(textOf(m))), {
        what: 'the removed-key notice',
        timeoutMs: patient(30_000),
      });
      // Both replicas read the slot again at each lease pass, and the leases may move between them: some
      // passes of each later, still one notice.
      await afterLeasePasses(a, 3);
      await afterLeasePasses(b, 3);
      expect(thread().filter((m) => notice.test(textOf(m)))).toHaveLength(1);
      // The last Home published says so. A replica's refresh that read the store before the removal and
      // publishes after the remover's own is refused its hash (hash_conflict) and drawn again: waited for.
      await ws.waitFor(
        () => (homeText(homeOf(sandbox, ALICE)).includes('No key linked') ? true : undefined),
        {
          what: 'Alice’s Home without her key',
          timeoutMs: patient(20_000),
        },
      );

      await link(onA);
      await ws.waitFor(
        () => thread().find((m) => Number(m.ts) > Number(said.ts) && /Step \d+:/.test(textOf(m))),
        { what: 'the agent’s work in the thread again', timeoutMs: patient(30_000) },
      );
      const rows = await database.query<{ ciphertext: string }>('SELECT ciphertext FROM service_keys');
      expect(rows.map((r) => r.ciphertext).join('\n')).not.toContain(ALICE_KEY);
      expect(
        world.output.filter((line) => line.includes(ALICE_KEY) || line.includes(ENCRYPTION_KEY)),
      ).toEqual([]);
      // Two processes starting and several waits, on a machine that may be busy: more than one wait's limit.
    },
    patient(180_000),
  );
});
