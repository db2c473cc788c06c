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
  });
}
