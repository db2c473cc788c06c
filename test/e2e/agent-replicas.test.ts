import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, BOB, CHANNEL, textOf, WAIT_MS } from './harness.js';
import { SIGNAL_ROUTE } from './helpers.js';
import { expectNoSecrets, secretsOf } from './secrets.js';

// Slack's agent sessions across bot processes: what Slack shows is set again when a bot (re)starts
// following a session, and Slack's Stop cancels once however many replicas hear it. Real processes
// (`node dist/main.js`); the assertions wait for what happens, never for an amount of time.

const findCard = (messages: SandboxMessage[] | undefined, goal: RegExp) =>
  (messages ?? []).find((m) => !m.thread_ts && goal.test(textOf(m)));

describe("Slack's status after a SIGKILL (PGlite on disk)", () => {
  const world = useBotProcesses({ emulatorSpeed: 5, store: { dataDirPrefix: 'bot-agent-restart-' } });

  it(
    'changed behind the bot’s back while it was down: the restarted bot sets it from the service’s',
    async () => {
      const { sandbox, output } = world;
      const env = world.env({ AGENT_SLACK_SURFACE: 'auto', LEASE_TTL_SECONDS: '2' });
      const first = await world.spawn(env);
      const ws = sandbox.workspace;
      await sandbox.driver(first.eventsUrl).command({
        user: ALICE,
        channel: CHANNEL,
        text: 'start scenario:approval ship the hotfix',
      });
      const card = await ws.waitFor(() => findCard(ws.messages.get(CHANNEL), /ship the hotfix/), {
        what: 'the card',
      });
      // The session waits for a person: Slack shows it suspended, and the card says so (edited once the
      // bot recorded the status: the restarted bot's first poll finds nothing new, so only a resync sets it).
      await sandbox.agent.waitForStatus(CHANNEL, card.ts, 'suspended', { timeoutMs: WAIT_MS });
      await ws.waitFor(
        () =>
          textOf(ws.messages.get(CHANNEL)?.find((m) => m.ts === card.ts)).includes('Waiting for an answer')
            ? true
            : undefined,
        { what: 'the card to say it waits', timeoutMs: WAIT_MS },
      );
      await first.kill('SIGKILL');
      // While no bot runs, Slack's view moves away from the service's (another app, a person, a lost call).
      sandbox.agent.setStatus(
        { channel: CHANNEL, threadTs: card.ts, status: 'closed' },
        'agents.sessions.setStatus',
      );
      const before = sandbox.agent.session(CHANNEL, card.ts)?.history.length ?? 0;
      await world.spawn(env);
      await ws.waitFor(
        () => {
          const session = sandbox.agent.session(CHANNEL, card.ts);
          return (session?.history.length ?? 0) > before && session?.status === 'suspended'
            ? true
            : undefined;
        },
        { what: 'the status set again by the restarted bot', timeoutMs: patient(60_000) },
      );
      const history = sandbox.agent.session(CHANNEL, card.ts)?.history ?? [];
      expect(history.slice(before).map((e) => e.status)).toEqual(['suspended']);
      expectNoSecrets(output, secretsOf(sandbox));
    },
    patient(150_000),
  );
});

describe('two Stops on two replicas, on PostgreSQL', () => {
  const world = useBotProcesses({
    emulatorSpeed: 5,
    sandbox: { rateLimits: false },
    store: { database: scratchDatabase('bot_agent_stop') },
  });

  it(
    'the starter and an approver click Stop on two replicas at once: one cancel, one note, closed',
    async () => {
      const { sandbox, emulator, output } = world;
      const env = (id: string) => world.env({ AGENT_SLACK_SURFACE: 'auto', REPLICA_ID: id });
      // Started together, as a deployment's replicas are (their migrations take turns under a lock).
      const [a, b] = await Promise.all([world.spawn(env('replica-a')), world.spawn(env('replica-b'))]);
      const ws = sandbox.workspace;
      await sandbox
        .driver(a.eventsUrl)
        .command({ user: ALICE, channel: CHANNEL, text: 'start scenario:long index the wiki' });
      const card = await ws.waitFor(() => findCard(ws.messages.get(CHANNEL), /index the wiki/), {
        what: 'the card',
      });
      await sandbox.agent.waitForStatus(CHANNEL, card.ts, 'processing', { timeoutMs: WAIT_MS });
      const signals = async () => (await emulator.admin.stats()).requests[SIGNAL_ROUTE] ?? 0;
      const before = await signals();
      const at = { channel: CHANNEL, threadTs: card.ts };
      await Promise.all([
        sandbox.driver(a.eventsUrl).stopAgentSession({ ...at, user: ALICE }),
        sandbox.driver(b.eventsUrl).stopAgentSession({ ...at, user: BOB }),
      ]);
      await sandbox.agent.waitForStatus(CHANNEL, card.ts, 'closed', { timeoutMs: WAIT_MS });
      await ws.waitFor(
        () => (ws.replies(CHANNEL, card.ts).some((m) => /⏹ stopped by/.test(textOf(m))) ? true : undefined),
        { what: 'the stop note', timeoutMs: WAIT_MS },
      );
      const sessionId = /session `([^`]+)`/.exec(textOf(card))?.[1] ?? '';
      await ws.waitFor(
        async () => ((await emulator.admin.session(sessionId))?.status === 'cancelled' ? true : undefined),
        { what: 'the emulator to record the cancel', timeoutMs: WAIT_MS },
      );
      expect((await signals()) - before).toBe(1);
      expect(ws.replies(CHANNEL, card.ts).filter((m) => /⏹ stopped by/.test(textOf(m)))).toHaveLength(1);
      expect(ws.ephemerals.filter((e) => /goes on/.test(e.text ?? ''))).toEqual([]);
      expectNoSecrets(output, secretsOf(sandbox));
    },
    patient(150_000),
  );
});
