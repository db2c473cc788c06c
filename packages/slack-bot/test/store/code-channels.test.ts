import { expect, it } from 'vitest';
import { describeWithStore, storeBackends } from './backends.js';

const session = (sessionId: string) => ({
  sessionId,
  channelId: 'C0AGENTS',
  cardTs: '1.000100',
  startedBy: 'U0ALICE',
  goal: 'fix the build',
  budget: null,
});

for (const backend of storeBackends('code_channels')) {
  describeWithStore(backend, `a session's own channel (${backend.name})`, (store) => {
    it("wanted, opened (the session's home from then on), closed once however many ask", async () => {
      await store.sessions.create(session('s-open'));
      await store.codeChannels.want('s-open', 'keep');
      await store.codeChannels.want('s-open', 'archive');
      expect(await store.codeChannels.get('s-open')).toMatchObject({ state: 'wanted', atEnd: 'keep' });
      await store.codeChannels.opened('s-open', 'C0CODE1');
      expect((await store.sessions.get('s-open'))?.codeChannelId).toBe('C0CODE1');
      expect((await store.sessions.findByCodeChannel('C0CODE1'))?.sessionId).toBe('s-open');
      expect(await store.sessions.findByCodeChannel('C0AGENTS')).toBeUndefined();
      await store.codeChannels.canvas('s-open', 'F0CANVAS1');
      expect(await store.codeChannels.get('s-open')).toMatchObject({
        channelId: 'C0CODE1',
        canvasId: 'F0CANVAS1',
      });
      expect(await store.codeChannels.close('s-open')).toBe(true);
      expect(await store.codeChannels.close('s-open')).toBe(false);
    });

    it('refused: the session stays in its thread, with why; a refused row is never opened', async () => {
      await store.sessions.create(session('s-refused'));
      await store.codeChannels.want('s-refused', 'archive');
      await store.codeChannels.refused('s-refused', 'missing_scope');
      await store.codeChannels.opened('s-refused', 'C0CODE2');
      expect(await store.codeChannels.get('s-refused')).toMatchObject({
        state: 'thread',
        reason: 'missing_scope',
        channelId: null,
      });
    });

    it("lists a session's questions, waiting and answered", async () => {
      await store.sessions.create(session('s-questions'));
      const request = (inputId: string) => ({
        inputId,
        kind: 'free_text' as const,
        prompt: `Q ${inputId}?`,
        raw: {},
      });
      for (const id of ['a', 'b'])
        await store.prompts.save({
          sessionId: 's-questions',
          inputId: id,
          channelId: 'C0CODE3',
          messageTs: null,
          request: request(id),
          refKey: `k-${id}`,
        });
      await store.prompts.claim('s-questions', 'a', 'U0BOB');
      await store.prompts.complete('s-questions', 'a', { freeText: 'yes' });
      const questions = await store.codeChannels.questions('s-questions');
      expect(questions).toEqual(
        expect.arrayContaining([
          { inputId: 'a', prompt: 'Q a?', state: 'answered', answeredBy: 'U0BOB' },
          { inputId: 'b', prompt: 'Q b?', state: 'pending', answeredBy: null },
        ]),
      );
    });
  });
}
