import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../src/index.js';
import { storeBackends } from './backends.js';

for (const backend of storeBackends('channel_settings')) {
  describe.skipIf(backend.skip)(`a channel's defaults for new sessions (${backend.name})`, () => {
    let store: SqlStore;
    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('none until saved; the latest save kept, context as JSON, a cleared field null', async () => {
      expect(await store.channelSettings.get('C0AGENTS')).toBeUndefined();
      await store.channelSettings.save(
        'C0AGENTS',
        { budget: 4.5, maxIterations: 12, context: { repo: 'acme/api', tags: ['a', 'b'] } },
        'U0BOB',
      );
      expect(await store.channelSettings.get('C0AGENTS')).toMatchObject({
        channelId: 'C0AGENTS',
        budget: 4.5,
        maxIterations: 12,
        context: { repo: 'acme/api', tags: ['a', 'b'] },
        updatedBy: 'U0BOB',
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      await store.channelSettings.save(
        'C0AGENTS',
        { budget: null, maxIterations: 30, context: null },
        'U0DAN',
      );
      expect(await store.channelSettings.get('C0AGENTS')).toMatchObject({
        budget: null,
        maxIterations: 30,
        context: null,
        updatedBy: 'U0DAN',
      });
      expect(await store.channelSettings.get('C0OTHER')).toBeUndefined();
    });
  });
}
