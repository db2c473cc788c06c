import { describe, expect, it } from 'vitest';
import { AgentSessionsClient as Client, MessagesPagingError, roundsInfoOf } from '../src/index.js';
import { startModelService } from './follow/harness.js';
import { KEY_A } from './helpers.js';

/** Paging faults the emulator can't make, played by a small model service over real HTTP. */
describe('listMessages paging', () => {
  it('stops at its page cap with an error that says so, after yielding what it read', async () => {
    const service = await startModelService();
    const viaModel = new Client({ baseUrl: service.url, apiKey: KEY_A });
    try {
      service.state.status = 'completed';
      service.state.rounds = Array.from({ length: 10 }, (_, i) => ({
        roundId: `r${i}`,
        status: 'completed',
      }));
      service.state.messages = service.state.rounds.map((r) => ({
        roundId: r.roundId as string,
        content: 'x',
      }));
      const rounds = roundsInfoOf(service.state.rounds, true);
      const read: string[] = [];
      const error = await (async () => {
        for await (const m of viaModel.sessions.listMessages('sess_model', {
          pageSize: 2,
          maxPages: 3,
          rounds,
        })) {
          read.push(m.key);
        }
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MessagesPagingError);
      expect(error).toMatchObject({ reason: 'page_cap' });
      expect((error as Error).message).toMatch(/maxPages 3/);
      expect(service.state.requests).toBe(3);
      // Without the cap the same read goes to the end: the cap is what stopped it.
      const all: string[] = [];
      for await (const m of viaModel.sessions.listMessages('sess_model', { pageSize: 2, rounds }))
        all.push(m.key);
      expect(all).toEqual(service.state.rounds.map((r) => `${r.roundId}#0`));
      expect(all.slice(0, read.length)).toEqual(read);
      expect(read.length).toBeGreaterThanOrEqual(3);
    } finally {
      await viaModel.close();
      await service.close();
    }
  });

  it('refuses a page cap that is not a whole number >= 1, naming it', async () => {
    const viaNowhere = new Client({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY_A });
    const read = viaNowhere.sessions.listMessages('sess_x', { maxPages: 0 });
    await expect(read.next()).rejects.toThrow(/maxPages/);
    await viaNowhere.close();
  });

  it('ends with a no-progress error when a page says hasMore but nothing leads further', async () => {
    const service = await startModelService();
    const viaModel = new Client({ baseUrl: service.url, apiKey: KEY_A });
    try {
      service.state.rounds = [{ roundId: 'r1' }];
      service.state.stuckPage = { lastRoundId: null };
      const error = await (async () => {
        for await (const _ of viaModel.sessions.listMessages('sess_model')) {
          // nothing comes
        }
      })().catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'MessagesPagingError', reason: 'no_progress' });
      // One request, then the clear error: no loop.
      expect(service.state.requests).toBe(1);
    } finally {
      await viaModel.close();
      await service.close();
    }
  });

  it('goes on through pagination.lastRoundId past an empty page that says hasMore', async () => {
    const service = await startModelService();
    const viaModel = new Client({ baseUrl: service.url, apiKey: KEY_A });
    try {
      service.state.rounds = [{ roundId: 'r1' }, { roundId: 'r2' }];
      service.state.messages = [{ roundId: 'r2', role: 'assistant', content: 'after the hidden ones' }];
      // The first page is empty and points at r1; from there the server answers normally.
      service.state.stuckPage = { lastRoundId: 'r1', times: 1 };
      const read: string[] = [];
      for await (const m of viaModel.sessions.listMessages('sess_model')) read.push(m.key);
      expect(read).toEqual(['r2#0']);
    } finally {
      await viaModel.close();
      await service.close();
    }
  });
});
