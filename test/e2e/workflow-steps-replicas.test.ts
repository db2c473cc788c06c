import { readFileSync } from 'node:fs';
import { functionsFromManifest, type StepRun } from '@agent-sessions/slack-sandbox';
import { describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { patient } from '../support/patience.js';
import { useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, CHANNEL, textOf } from './harness.js';
import { confirmStep } from './helpers.js';
import { expectNoSecrets, secretsOf } from './secrets.js';

// Workflow Builder steps on two replicas of one PostgreSQL store: every replica sweeps the open
// executions, and each step is completed by exactly one, even when a replica is SIGKILLed among them.
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));

describe('Workflow Builder steps across replicas and a SIGKILL, on PostgreSQL', () => {
  const database = scratchDatabase('bot_workflow_steps');
  const world = useBotProcesses({
    emulatorSpeed: 5,
    sandbox: { rateLimits: false, functions: functionsFromManifest(manifest) },
    store: { database },
  });

  it(
    'steps run on either replica and swept by both complete once each; one replica dies and comes back',
    async () => {
      const { sandbox, output } = world;
      const env = (id: string) =>
        world.env({ REPLICA_ID: id, LEASE_TTL_SECONDS: '2', WORKFLOW_STEP_CHECK_EVERY: '100ms' });
      // Started together, as a deployment's replicas are (their migrations take turns under a lock).
      let [a, b] = await Promise.all([world.spawn(env('replica-a')), world.spawn(env('replica-b'))]);
      const goals = ['tidy the changelog', 'check the links', 'count the tests', 'list the owners'];
      const runs: StepRun[] = [];
      for (const [i, goal] of goals.entries()) {
        runs.push(
          await sandbox.driver((i % 2 ? b : a).eventsUrl).runStep({
            callbackId: 'run_agent_session',
            inputs: { goal: `scenario:complete ${goal}`, channel: CHANNEL, mention: ALICE },
            user: ALICE,
          }),
        );
        // Alice's Start reaches the other replica: the start she was asked for is in the shared store.
        await confirmStep(sandbox.workspace, sandbox.driver((i % 2 ? a : b).eventsUrl), ALICE);
      }
      // A dies once every session started (a replica killed while starting one can't tell whether it
      // did: its step fails later, as docs/workflow-steps.md says), while they run; the other replica
      // and A's successor finish the sweep.
      await sandbox.workspace.waitFor(
        () => {
          const cards = (sandbox.workspace.messages.get(CHANNEL) ?? []).filter(
            (m) => !m.thread_ts && goals.some((g) => textOf(m).includes(g)) && /session `/.test(textOf(m)),
          );
          return cards.length === goals.length ? cards : undefined;
        },
        { what: 'every step’s card with its session', timeoutMs: patient(30_000) },
      );
      await a.kill('SIGKILL');
      a = await world.spawn(env('replica-a'));
      const executions = await sandbox.workspace.waitFor(
        () => {
          const all = runs.map((r) => sandbox.workspace.workflows.executions.get(r.execution.id));
          return all.every((e) => e && e.state !== 'running') ? all : undefined;
        },
        { what: 'every step completed', timeoutMs: patient(90_000) },
      );
      for (const execution of executions) {
        expect(execution).toMatchObject({ state: 'completed', completions: 1, refused: [] });
        expect(execution?.outputs).toMatchObject({ status: 'completed', session_id: expect.any(String) });
      }
      const sessions = new Set(executions.map((e) => e?.outputs?.session_id));
      expect(sessions.size).toBe(goals.length);
      // Recorded done once Slack answered the completion, a moment after the sandbox saw it.
      await vi.waitFor(
        async () => {
          const rows = await database.query<{ state: string; outcome: string; n: number }>(
            'SELECT state, outcome, count(*)::int AS n FROM workflow_executions GROUP BY state, outcome',
          );
          expect(rows).toEqual([{ state: 'done', outcome: 'success', n: goals.length }]);
        },
        { timeout: patient(10_000), interval: 100 },
      );
      expectNoSecrets(output, [...secretsOf(sandbox), ...runs.map((r) => r.token)]);
    },
    patient(180_000),
  );
});
