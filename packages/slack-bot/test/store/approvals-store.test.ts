import type { HumanInputRequest } from '@agent-sessions/core';
import { expect, it } from 'vitest';
import { refKeyOf, type SqlStore } from '../../src/index.js';
import { describeWithStore, storeBackends } from './backends.js';

// The approvals' repositories on both databases: the reminder schedule (each step claimed once, however
// many callers race) and the append-only audit.
const backends = storeBackends('approvals_test');

const MIN = 60_000;
const t0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const approval = (inputId: string): HumanInputRequest => ({
  inputId,
  kind: 'approval',
  prompt: 'Deploy?',
  raw: {},
});

async function waitingQuestion(store: SqlStore, sessionId: string, inputId = 'in_1') {
  await store.sessions.create({
    sessionId,
    channelId: 'C1',
    cardTs: '1.1',
    startedBy: 'U1',
    goal: 'g',
    budget: null,
    status: 'waiting_human',
  });
  await store.prompts.save({
    sessionId,
    inputId,
    channelId: 'C1',
    messageTs: '1.2',
    request: approval(inputId),
    refKey: refKeyOf(sessionId, inputId),
  });
}

for (const backend of backends) {
  describeWithStore(backend, `approvals store on ${backend.name}`, (store) => {
    it('claims each reminder step once, with growing gaps, among racing callers', async () => {
      await waitingQuestion(store, 'r1');
      await store.reminders.schedule(t0, 15 * MIN, undefined);
      await store.reminders.schedule(at(MIN), 15 * MIN, undefined); // a second look changes nothing
      expect(await store.reminders.claimDue(at(14 * MIN), 3, 15 * MIN)).toEqual([]);
      const race = await Promise.all(
        Array.from({ length: 6 }, () => store.reminders.claimDue(at(15 * MIN), 3, 15 * MIN)),
      );
      expect(race.flat()).toEqual([{ sessionId: 'r1', inputId: 'in_1', step: 1 }]);
      await store.reminders.markDelivered('r1', 'in_1', 1);
      // The next gap is 30 minutes from the claim.
      expect(await store.reminders.claimDue(at(44 * MIN), 3, 15 * MIN)).toEqual([]);
      expect(await store.reminders.claimDue(at(45 * MIN), 3, 15 * MIN)).toHaveLength(1);
      await store.reminders.markDelivered('r1', 'in_1', 2);
      expect(await store.reminders.claimDue(at(105 * MIN), 3, 15 * MIN)).toEqual([
        { sessionId: 'r1', inputId: 'in_1', step: 3 },
      ]);
      await store.reminders.markDelivered('r1', 'in_1', 3);
      // No more than `steps`.
      expect(await store.reminders.claimDue(at(10_000 * MIN), 3, 15 * MIN)).toEqual([]);
    });

    it('stops at once when the question is answered or the session no longer waits', async () => {
      await waitingQuestion(store, 'r2');
      await waitingQuestion(store, 'r3');
      await store.reminders.schedule(t0, MIN, undefined);
      expect((await store.prompts.claim('r2', 'in_1', 'U2')).claimed).toBe(true);
      await store.sessions.update('r3', { status: 'running' });
      const due = await store.reminders.claimDue(at(60 * MIN), 3, MIN);
      expect(due.filter((d) => d.sessionId === 'r2' || d.sessionId === 'r3')).toEqual([]);
    });

    it('claims a step again only when it was never delivered and its claim is stale', async () => {
      await waitingQuestion(store, 'r4');
      await store.reminders.schedule(t0, MIN, undefined);
      const [step] = (await store.reminders.claimDue(at(MIN), 3, MIN)).filter((d) => d.sessionId === 'r4');
      expect(step?.step).toBe(1);
      expect(
        (await store.reminders.claimUndelivered(at(MIN + 5_000), 20_000)).map((d) => d.sessionId),
      ).not.toContain('r4');
      const again = await Promise.all([
        store.reminders.claimUndelivered(at(MIN + 30_000), 20_000),
        store.reminders.claimUndelivered(at(MIN + 30_000), 20_000),
      ]);
      expect(again.flat().filter((d) => d.sessionId === 'r4')).toEqual([
        { sessionId: 'r4', inputId: 'in_1', step: 1 },
      ]);
      await store.reminders.markDelivered('r4', 'in_1', 1);
      expect(
        (await store.reminders.claimUndelivered(at(MIN + 120_000), 20_000)).filter(
          (d) => d.sessionId === 'r4',
        ),
      ).toEqual([]);
    });

    it('never skips a step a dead replica claimed: the next waits until that one is claimed again and out', async () => {
      await waitingQuestion(store, 'r6');
      await store.reminders.schedule(t0, MIN, undefined);
      const mine = (steps: Array<{ sessionId: string; step: number }>) =>
        steps.filter((d) => d.sessionId === 'r6').map((d) => d.step);
      expect(mine(await store.reminders.claimDue(at(MIN), 3, MIN))).toEqual([1]);
      // Its claimer died before delivering: step 2 is due by time but not claimed past the open step 1.
      expect(mine(await store.reminders.claimDue(at(10 * MIN), 3, MIN))).toEqual([]);
      expect(mine(await store.reminders.claimUndelivered(at(10 * MIN), 20_000))).toEqual([1]);
      await store.reminders.markDelivered('r6', 'in_1', 1);
      expect(mine(await store.reminders.claimDue(at(10 * MIN), 3, MIN))).toEqual([2]);
    });

    it('a claim renewed while its step is worked on is not taken as a dead replica’s', async () => {
      await waitingQuestion(store, 'r7');
      await store.reminders.schedule(t0, MIN, undefined);
      const mine = (steps: Array<{ sessionId: string; step: number }>) =>
        steps.filter((d) => d.sessionId === 'r7').map((d) => d.step);
      const claimed = (await store.reminders.claimDue(at(MIN), 3, MIN)).filter((d) => d.sessionId === 'r7');
      expect(mine(claimed)).toEqual([1]);
      await store.reminders.renewClaims(claimed, at(MIN + 15_000));
      expect(mine(await store.reminders.claimUndelivered(at(MIN + 30_000), 20_000))).toEqual([]);
      expect(mine(await store.reminders.claimUndelivered(at(MIN + 40_000), 20_000))).toEqual([1]);
      // Once delivered, a late renewal changes nothing.
      await store.reminders.markDelivered('r7', 'in_1', 1);
      await store.reminders.renewClaims(claimed, at(MIN + 50_000));
      expect(await store.reminders.progress('r7', 'in_1')).toEqual({ claimed: 1, delivered: 1 });
      expect(mine(await store.reminders.claimUndelivered(at(MIN + 500_000), 20_000))).toEqual([]);
    });

    it('times a question out once', async () => {
      await waitingQuestion(store, 'r5');
      await store.reminders.schedule(t0, 0, 60 * MIN);
      const mine = async (now: Date) =>
        (await store.reminders.claimTimedOut(now)).filter((d) => d.sessionId === 'r5');
      expect(await mine(at(59 * MIN))).toEqual([]);
      const race = await Promise.all([mine(at(61 * MIN)), mine(at(61 * MIN)), mine(at(61 * MIN))]);
      expect(race.flat()).toEqual([{ sessionId: 'r5', inputId: 'in_1' }]);
      expect(await mine(at(600 * MIN))).toEqual([]);
    });

    it('appends audit records, reads them by session and time, and prunes by age only', async () => {
      await store.audit.append({
        sessionId: 'a1',
        action: 'start',
        userId: 'U1',
        teamId: 'T1',
        channelId: 'C1',
        threadTs: '1.1',
        detail: { goal: 'g' },
        outcome: 'ok',
      });
      await store.audit.append({
        sessionId: 'a1',
        inputId: 'in_1',
        action: 'reject',
        userId: 'U2',
        detail: { answer: { approved: false, freeText: 'not today' } },
        outcome: 'error',
        httpStatus: 409,
        requestId: 'req_1',
      });
      const all = await store.audit.list({ sessionId: 'a1' });
      expect(all.map((r) => r.action)).toEqual(['start', 'reject']);
      expect(all[1]).toMatchObject({ userId: 'U2', inputId: 'in_1', httpStatus: 409, requestId: 'req_1' });
      expect(all[0]).toMatchObject({ teamId: 'T1', channelId: 'C1', threadTs: '1.1', detail: { goal: 'g' } });
      // The next page's cursor: what follows an id, by id; and a page's size.
      expect((await store.audit.list({ sessionId: 'a1', after: all[0]?.id })).map((r) => r.action)).toEqual([
        'reject',
      ]);
      expect(await store.audit.list({ sessionId: 'a1', after: all[1]?.id })).toEqual([]);
      expect((await store.audit.list({ sessionId: 'a1', limit: 1 })).map((r) => r.action)).toEqual(['start']);
      expect((await store.audit.latest('a1'))?.action).toBe('reject');
      expect((await store.audit.latest('a1', ['start', 'pause']))?.action).toBe('start');
      expect(await store.audit.latest('a1', ['cancel'])).toBeUndefined();
      expect(await store.audit.list({ sessionId: 'a1', since: '2999-01-01T00:00:00Z' })).toEqual([]);
      expect(await store.audit.prune(new Date('2000-01-01T00:00:00Z'))).toBe(0);
      expect(await store.audit.prune(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(2);
      expect(await store.audit.list({ sessionId: 'a1' })).toEqual([]);
    });
  });
}
