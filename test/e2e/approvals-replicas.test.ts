import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, CHANNEL, textOf } from './harness.js';
import { isPrompt } from './helpers.js';
import { expectNoSecrets, secretsOf } from './secrets.js';

const ESCALATION_CHANNEL = 'C0GENERAL';

// Reminders are claimed from the store, so each is sent exactly once however many replicas tick and
// however they die. Real processes (`node dist/main.js`) on one PostgreSQL, with short real settings:
// the assertions wait for what happens (event order), never for an amount of time.
describe('reminders across replicas and a SIGKILL, on PostgreSQL', () => {
  const world = useBotProcesses({
    emulatorSpeed: 5,
    // Three sessions' reminders and DMs at once would meet Slack's per-channel limits; pacing is not
    // what this test is about.
    sandbox: { rateLimits: false },
    store: { database: scratchDatabase('bot_reminders') },
  });

  it(
    'two replicas tick together and one is SIGKILLed and restarted: every reminder and escalation once',
    async () => {
      const { sandbox, output } = world;
      const env = (id: string) =>
        world.env({
          REPLICA_ID: id,
          LEASE_TTL_SECONDS: '2',
          AGENT_REMIND_AFTER: '1s',
          AGENT_REMIND_MAX: '3',
          AGENT_ESCALATE_TO: ESCALATION_CHANNEL,
        });
      // Started together, as a deployment's replicas are (their migrations take turns under a lock).
      const [a, b] = await Promise.all([world.spawn(env('replica-a')), world.spawn(env('replica-b'))]);
      const ws = sandbox.workspace;
      const goals = ['open the gates', 'rotate the keys', 'drain the queue'];
      for (const [i, goal] of goals.entries()) {
        await sandbox
          .driver((i % 2 ? b : a).eventsUrl)
          .command({ user: ALICE, channel: CHANNEL, text: `start scenario:approval ${goal}` });
      }
      const cards = await ws.waitFor(
        () => {
          const found = (ws.messages.get(CHANNEL) ?? []).filter(
            (m) => !m.thread_ts && goals.some((g) => textOf(m).includes(g)),
          );
          return found.length === goals.length ? found : undefined;
        },
        { what: 'three cards' },
      );
      const thread = (card: SandboxMessage) => ws.replies(CHANNEL, card.ts);
      for (const card of cards) {
        await ws.waitFor(() => thread(card).find(isPrompt), { what: 'a prompt', timeoutMs: patient(30_000) });
      }
      // Replica A dies without a word once the first reminders are out; a new A starts on the same store.
      for (const card of cards) {
        await ws.waitFor(() => thread(card).find((m) => /Reminder 1 of 3/.test(textOf(m))), {
          what: 'the first reminder',
          timeoutMs: patient(30_000),
        });
      }
      await a.kill('SIGKILL');
      await world.spawn(env('replica-a'));

      const escalations = () => ws.messages.get(ESCALATION_CHANNEL) ?? [];
      await ws.waitFor(() => (escalations().length >= goals.length ? true : undefined), {
        what: 'an escalation for each session',
        timeoutMs: patient(90_000),
      });
      for (const card of cards) {
        await ws.waitFor(() => thread(card).find((m) => /Escalated to/.test(textOf(m))), {
          what: 'the escalation note in the thread',
          timeoutMs: patient(20_000),
        });
      }
      // A step the killed replica had claimed and not finished is claimed again once its claim lapses, and the
      // next step waits for it: in every thread the steps come in order, each once, the escalation last.
      for (const card of cards) {
        const texts = thread(card).map((m) => textOf(m));
        const at = (pattern: RegExp) => texts.findIndex((t) => pattern.test(t));
        const order = [/Reminder 1 of 3/, /Reminder 2 of 3/, /Reminder 3 of 3/, /Escalated to/].map(at);
        expect(order.every((i) => i >= 0)).toBe(true);
        expect([...order].sort((x, y) => x - y)).toEqual(order);
        for (const step of [1, 2, 3]) {
          expect(
            texts.filter((t) => t.includes(`Reminder ${step} of 3`)),
            `reminder ${step}`,
          ).toHaveLength(1);
        }
        expect(texts.filter((t) => /Escalated to/.test(t))).toHaveLength(1);
        expect(texts.find((t) => t.includes('Reminder 1 of 3'))).toContain('<@U0ALICE>');
      }
      expect(escalations()).toHaveLength(goals.length);
      expect(textOf(escalations()[0])).toMatch(/needs a decision.*\/archives\/C0AGENTS\/p\d+/s);
      const dms = () => (ws.messages.get('D0ALICE') ?? []).filter((m) => /still waiting/.test(textOf(m)));
      // Every DM was out before its session's escalation was claimed (a step waits for the one before), and
      // one the killed replica had posted unrecorded was found in the DM, not sent again.
      expect(dms()).toHaveLength(goals.length * 3);
      expectNoSecrets(output, secretsOf(sandbox));
    },
    patient(240_000),
  );
});

// The same on the embedded store (PGlite on disk): runs everywhere, no PostgreSQL needed.
describe('reminders across a SIGKILL on PGlite', () => {
  const world = useBotProcesses({ emulatorSpeed: 5, store: { dataDirPrefix: 'bot-reminders-' } });

  it(
    'a reminder sent before the kill is not sent again; the next one comes after the restart',
    async () => {
      const { sandbox, output } = world;
      // A short lease time: a step claimed before the kill is the restarted bot's to send 2 s later.
      const env = world.env({ AGENT_REMIND_AFTER: '1s', AGENT_REMIND_MAX: '2', LEASE_TTL_SECONDS: '2' });
      const first = await world.spawn(env);
      const ws = sandbox.workspace;
      await sandbox.driver(first.eventsUrl).command({
        user: ALICE,
        channel: CHANNEL,
        text: 'start scenario:approval ship the hotfix',
      });
      const card = await ws.waitFor(
        () => (ws.messages.get(CHANNEL) ?? []).find((m) => !m.thread_ts && /ship the hotfix/.test(textOf(m))),
        { what: 'the card' },
      );
      const thread = () => ws.replies(CHANNEL, card.ts).map((m) => textOf(m));
      await ws.waitFor(() => thread().find((t) => t.includes('Reminder 1 of 2')), {
        what: 'the first reminder',
        timeoutMs: patient(30_000),
      });
      await first.kill('SIGKILL');
      await world.spawn(env);
      // When the kill fell between the reminder and its DM, step 1 is claimed again once its claim is stale
      // (a lease time) and step 2 waits for it.
      await ws.waitFor(() => thread().find((t) => t.includes('Reminder 2 of 2')), {
        what: 'the second reminder, from the restarted bot',
        timeoutMs: patient(60_000),
      });
      expect(thread().filter((t) => t.includes('Reminder 1 of 2'))).toHaveLength(1);
      expect(thread().filter((t) => t.includes('Reminder 2 of 2'))).toHaveLength(1);
      expectNoSecrets(output, secretsOf(sandbox));
    },
    patient(150_000),
  );
});
