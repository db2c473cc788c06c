import { expect, it } from 'vitest';
import { inWorkspace } from '../../src/workspace.js';
import { describeWithStore, storeBackends } from './backends.js';

for (const backend of storeBackends('workflow_executions')) {
  describeWithStore(backend, `Workflow Builder step executions (${backend.name})`, (store) => {
    it('recorded once per execution id, with the workspace it came from', async () => {
      const workspace = { teamId: 'T1', key: 'T1', isEnterpriseInstall: false, isolated: true };
      const first = await inWorkspace(workspace, () =>
        store.workflowExecutions.record({
          executionId: 'Fx1',
          callbackId: 'run_agent_session',
          state: 'starting',
        }),
      );
      const again = await store.workflowExecutions.record({
        executionId: 'Fx1',
        callbackId: 'run_agent_session',
        state: 'starting',
      });
      expect([first, again]).toEqual([true, false]);
      await store.workflowExecutions.started('Fx1', {
        sessionId: 's_1',
        channelId: 'C1',
        userId: 'U1',
        permalink: 'https://x/archives/C1/p1',
      });
      expect(await store.workflowExecutions.get('Fx1')).toMatchObject({
        executionId: 'Fx1',
        sessionId: 's_1',
        channelId: 'C1',
        userId: 'U1',
        permalink: 'https://x/archives/C1/p1',
        state: 'waiting',
        teamId: 'T1',
        workspace: 'T1',
      });
      expect((await store.workflowExecutions.open()).map((e) => e.executionId)).toContain('Fx1');
    });

    /** Steps started and asking their runner to confirm `pending`, as the step's listener records them. */
    async function asking(
      ids: string[],
      pending: Parameters<typeof store.workflowExecutions.awaitConfirmation>[1],
    ) {
      for (const id of ids) {
        await store.workflowExecutions.record({
          executionId: id,
          callbackId: 'run_agent_session',
          state: 'starting',
        });
        await store.workflowExecutions.awaitConfirmation(id, pending);
      }
    }

    it('a confirmation is answered once, by its runner only: Start or Cancel, whichever comes first', async () => {
      const pending = {
        runner: 'U0ALICE',
        inputs: { goal: 'ship', budget: 4 },
        workflow: { executionId: 'Wx1', step: 'Run an agent session' },
      };
      await asking(['FxASK1', 'FxASK2'], pending);
      expect(await store.workflowExecutions.get('FxASK1')).toMatchObject({ state: 'confirming', pending });
      expect(await store.workflowExecutions.answer('FxASK1', 'U0BOB', 'confirm')).toBeUndefined();
      // Two replicas receive a Start and a Cancel at once: one of them takes it.
      const answers = await Promise.all([
        store.workflowExecutions.answer('FxASK1', 'U0ALICE', 'confirm'),
        store.workflowExecutions.answer('FxASK1', 'U0ALICE', 'decline'),
        store.workflowExecutions.answer('FxASK1', 'U0ALICE', 'confirm'),
      ]);
      expect(answers.filter((a) => a !== undefined)).toHaveLength(1);
      expect(await store.workflowExecutions.answer('FxASK2', 'U0ALICE', 'decline')).toMatchObject(pending);
      expect(await store.workflowExecutions.answer('FxASK2', 'U0ALICE', 'confirm')).toBeUndefined();
      expect(await store.workflowExecutions.get('FxASK2')).toMatchObject({
        state: 'confirming',
        pending: { ...pending, declined: true },
      });
      const confirmed = await store.workflowExecutions.answer('FxASK3', 'U0ALICE', 'confirm');
      expect(confirmed).toBeUndefined();
    });

    it('a Start past the deadline, or while the sweep is completing the step, is taken by nobody', async () => {
      const pending = { runner: 'U0ALICE', inputs: { goal: 'ship' }, workflow: { executionId: 'Wx2' } };
      await asking(['FxLATE', 'FxSWEPT'], pending);
      // Asked a moment ago, with a deadline already behind it: too late.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store.workflowExecutions.answer('FxLATE', 'U0ALICE', 'confirm', 1)).toBeUndefined();
      expect(await store.workflowExecutions.answer('FxLATE', 'U0ALICE', 'confirm', 60_000)).toMatchObject(
        pending,
      );
      // The sweep holds it to fail it: a Start meanwhile starts nothing.
      expect(await store.workflowExecutions.claim('FxSWEPT', 'sweep-1', 60_000)).toBeDefined();
      expect(await store.workflowExecutions.answer('FxSWEPT', 'U0ALICE', 'confirm', 60_000)).toBeUndefined();
      await store.workflowExecutions.release('FxSWEPT', 'sweep-1');
      expect(await store.workflowExecutions.answer('FxSWEPT', 'U0ALICE', 'confirm', 60_000)).toMatchObject(
        pending,
      );
    });

    it('completed by one claimer at a time; done once; a lapsed claim is taken over', async () => {
      await store.workflowExecutions.record({
        executionId: 'Fx2',
        callbackId: 'wait_for_agent_session',
        state: 'waiting',
        sessionId: 's_2',
      });
      const claims = await Promise.all(
        ['replica-a', 'replica-b', 'replica-c'].map((c) => store.workflowExecutions.claim('Fx2', c, 60_000)),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      const holder = ['replica-a', 'replica-b', 'replica-c'][claims.findIndex(Boolean)] as string;
      expect(await store.workflowExecutions.finish('Fx2', 'someone-else', 'success')).toBe(false);
      expect(await store.workflowExecutions.finish('Fx2', holder, 'success')).toBe(true);
      expect(await store.workflowExecutions.claim('Fx2', 'replica-d', 60_000)).toBeUndefined();
      expect(await store.workflowExecutions.get('Fx2')).toMatchObject({ state: 'done', outcome: 'success' });
      expect((await store.workflowExecutions.open()).map((e) => e.executionId)).not.toContain('Fx2');

      // A claim whose replica died lapses (here at once) and is claimed again; a released one at once.
      await store.workflowExecutions.record({
        executionId: 'Fx3',
        callbackId: 'run_agent_session',
        state: 'waiting',
      });
      expect(await store.workflowExecutions.claim('Fx3', 'dead', 0)).toBeDefined();
      expect(await store.workflowExecutions.claim('Fx3', 'alive', 60_000)).toBeDefined();
      await store.workflowExecutions.release('Fx3', 'alive');
      expect(await store.workflowExecutions.claim('Fx3', 'next', 60_000)).toBeDefined();
    });

    it('reads open executions page by page: every one is reached, however many are before it', async () => {
      const crowd = { teamId: 'T0CROWD', key: 'T0CROWD', isEnterpriseInstall: false, isolated: true };
      await inWorkspace(crowd, async () => {
        for (let i = 0; i < 205; i++)
          await store.workflowExecutions.record({
            executionId: `FxCROWD${String(i).padStart(3, '0')}`,
            callbackId: 'wait_for_agent_session',
            state: 'waiting',
          });
      });
      await store.workflowExecutions.record({
        executionId: 'FxLATE',
        callbackId: 'run_agent_session',
        state: 'starting',
      });
      const seen: string[] = [];
      let after: Parameters<typeof store.workflowExecutions.open>[0] = { limit: 100 };
      for (;;) {
        const page = await store.workflowExecutions.open(after);
        seen.push(...page.map((e) => e.executionId));
        const last = page.at(-1);
        if (page.length < 100 || !last) break;
        after = { after: last, limit: 100 };
      }
      expect(seen).toContain('FxLATE');
      expect(seen.filter((id) => id.startsWith('FxCROWD'))).toHaveLength(205);
      expect(new Set(seen).size).toBe(seen.length);
    });

    it('prunes done executions older than the retention, never an open one', async () => {
      await store.workflowExecutions.record({
        executionId: 'FxDONE',
        callbackId: 'run_agent_session',
        state: 'waiting',
      });
      await store.workflowExecutions.claim('FxDONE', 'me', 60_000);
      await store.workflowExecutions.finish('FxDONE', 'me', 'success');
      await store.workflowExecutions.record({
        executionId: 'FxSTILL',
        callbackId: 'run_agent_session',
        state: 'waiting',
      });
      expect(await store.workflowExecutions.prune(3_600_000)).toBe(0);
      expect(await store.workflowExecutions.get('FxDONE')).toBeDefined();
      expect(await store.workflowExecutions.prune(0)).toBeGreaterThanOrEqual(1);
      expect(await store.workflowExecutions.get('FxDONE')).toBeUndefined();
      expect(await store.workflowExecutions.get('FxSTILL')).toMatchObject({ state: 'waiting' });
    });
  });
}
