import { expect, it } from 'vitest';
import { describeWithStore, storeBackends } from './backends.js';

// A finished session's leftovers have no lease owner: the claim in the store says which replica sends
// them, and the final card edit owed is kept until Slack took it.
const session = (id: string) => ({
  sessionId: id,
  channelId: 'C1',
  cardTs: '100.1',
  startedBy: 'U1',
  goal: `goal of ${id}`,
  budget: 5,
});

let count = 0;
const newSessionId = () => `sess_claim_${++count}_${Math.random().toString(36).slice(2, 8)}`;

for (const backend of storeBackends('recovery_claims')) {
  describeWithStore(backend, `recovery claims and final cards (${backend.name})`, (store) => {
    it('replicas claiming a finished session at the same moment: exactly one holds it', async () => {
      const id = newSessionId();
      await store.sessions.create(session(id));
      const holders = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
      const won = await Promise.all(holders.map((h) => store.recoveryClaims.claim(id, h, 60_000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const holder = holders[won.indexOf(true)] as string;
      // Its holder renews it; nobody else takes it while it holds.
      expect(await store.recoveryClaims.claim(id, holder, 60_000)).toBe(true);
      for (const other of holders.filter((h) => h !== holder))
        expect(await store.recoveryClaims.claim(id, other, 60_000)).toBe(false);
    });

    it('a lapsed claim goes to the next replica, and its former holder cannot renew it then', async () => {
      const id = newSessionId();
      await store.sessions.create(session(id));
      // Lapsed as soon as taken: its holder died, as far as the others can tell.
      expect(await store.recoveryClaims.claim(id, 'dead', 0)).toBe(true);
      expect(await store.recoveryClaims.claim(id, 'next', 60_000)).toBe(true);
      expect(await store.recoveryClaims.claim(id, 'dead', 60_000)).toBe(false);
    });

    it('a final card is owed until Slack took that card; a newer one recorded meanwhile stays owed', async () => {
      const id = newSessionId();
      await store.sessions.create(session(id));
      expect(await store.finalCards.owed(id)).toBeUndefined();
      await store.finalCards.record(id, '{"text":"Completed"}');
      expect(await store.finalCards.owed(id)).toBe('{"text":"Completed"}');
      expect(await store.finalCards.owedSessions(1000)).toContain(id);
      await store.finalCards.record(id, '{"text":"Completed, $2"}');
      await store.finalCards.sent(id, '{"text":"Completed"}');
      expect(await store.finalCards.owed(id)).toBe('{"text":"Completed, $2"}');
      await store.finalCards.sent(id, '{"text":"Completed, $2"}');
      expect(await store.finalCards.owed(id)).toBeUndefined();
      expect(await store.finalCards.owedSessions(1000)).not.toContain(id);
    });
  });
}
