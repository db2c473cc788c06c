import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../src/index.js';
import { storeBackends } from './backends.js';

// The shared budget's arithmetic runs in the database (its clock): no fake clock here, so the rate is
// tiny (one token a minute) and nothing depends on how fast the machine runs.
const RATE = { perSecond: 1 / 60, burst: 2 };

for (const backend of storeBackends('budgets')) {
  describe(`Slack's limits shared through the store (${backend.name})`, () => {
    let a: SqlStore;
    let b: SqlStore;
    beforeAll(async () => {
      a = await backend.open();
      // PostgreSQL: a second connection pool, as a second replica has.
      b = backend.name === 'PostgreSQL' ? await backend.open() : a;
    });
    afterAll(async () => {
      if (b !== a) await b?.close();
      await a?.close();
      await backend.cleanup();
    });

    it('two replicas taking at once share one bucket: the burst, then a wait', async () => {
      const key = `chat.postMessage:C${Math.random().toString(36).slice(2)}`;
      const waits = await Promise.all([
        a.slackBudgets.take(key, RATE),
        b.slackBudgets.take(key, RATE),
        a.slackBudgets.take(key, RATE),
        b.slackBudgets.take(key, RATE),
      ]);
      // Two tokens between them, whoever asked first; the others are told to wait about a minute.
      expect(waits.filter((w) => w === 0)).toHaveLength(2);
      for (const w of waits.filter((w) => w > 0)) {
        expect(w).toBeGreaterThan(30_000);
        expect(w).toBeLessThanOrEqual(60_000);
      }
    });

    it('a spare call (keep = burst − 1) goes only from a full bucket; a 429 pauses every replica', async () => {
      const key = `chat.update:${Math.random().toString(36).slice(2)}`;
      expect(await a.slackBudgets.take(key, RATE, 1)).toBe(0);
      expect(await b.slackBudgets.take(key, RATE, 1)).toBeGreaterThan(0);
      // Not full, but a token is there for a call that needn't keep any.
      expect(await b.slackBudgets.take(key, RATE)).toBe(0);
      const other = `chat.update:${Math.random().toString(36).slice(2)}`;
      expect(await a.slackBudgets.take(other, { perSecond: 1_000, burst: 5 })).toBe(0);
      await a.slackBudgets.pause(other, 120_000);
      const wait = await b.slackBudgets.take(other, { perSecond: 1_000, burst: 5 });
      expect(wait).toBeGreaterThan(60_000);
    });

    it('a post answered after its token: a burst refilled meanwhile keeps one token fewer, for every replica', async () => {
      const slow = { perSecond: 1 / 60, burst: 3 };
      const key = `chat.postMessage:C${Math.random().toString(36).slice(2)}`;
      expect(await a.slackBudgets.take(key, slow, 0, 'f1')).toBe(0);
      // Its answer took a while: time enough to refill a full burst meanwhile (here, not at Slack).
      await a.sql.query(
        "UPDATE slack_budgets SET refilled_at = refilled_at - interval '10 minutes' WHERE key = $1",
        [key],
      );
      await a.slackBudgets.landed(key, slow, 'f1');
      // Two left, not three: another replica's spare call (keep 2) waits; a plain one goes.
      expect(await b.slackBudgets.take(key, slow, 2)).toBeGreaterThan(0);
      expect(await b.slackBudgets.take(key, slow)).toBe(0);
      // Landed on a key nobody took from: nothing to correct, and nothing made.
      await b.slackBudgets.landed(`${key}:none`, slow, 'f0');
      expect(await a.slackBudgets.take(`${key}:none`, slow, 2)).toBe(0);
    });

    it('posts in flight together, answered together: no replica is granted a token Slack will not have', async () => {
      const slow = { perSecond: 1 / 60, burst: 3 };
      const key = `chat.postMessage:C${Math.random().toString(36).slice(2)}`;
      // Three posts take the burst, two replicas between them; Slack counts them when they arrive.
      expect(await a.slackBudgets.take(key, slow, 0, 'p1')).toBe(0);
      expect(await b.slackBudgets.take(key, slow, 0, 'p2')).toBe(0);
      expect(await a.slackBudgets.take(key, slow, 0, 'p3')).toBe(0);
      // They arrive two minutes later (time enough to refill two tokens): Slack's burst stayed full until
      // then, and is empty after them; the budget must not have refilled meanwhile either.
      await a.sql.query(
        "UPDATE slack_budgets SET refilled_at = refilled_at - interval '2 minutes' WHERE key = $1",
        [key],
      );
      expect(await b.slackBudgets.take(key, slow)).toBeGreaterThan(0);
      await a.slackBudgets.landed(key, slow, 'p1');
      await b.slackBudgets.landed(key, slow, 'p2');
      await a.slackBudgets.landed(key, slow, 'p3');
      expect(await b.slackBudgets.take(key, slow)).toBeGreaterThan(0);
      const { rows } = await a.sql.query('SELECT 1 FROM slack_budget_flights WHERE key = $1', [key]);
      expect(rows).toEqual([]);
    });

    it('a flight nobody lands (its replica died mid-call) stops holding a token back once it expires', async () => {
      const slow = { perSecond: 1 / 60, burst: 2 };
      const key = `chat.postMessage:C${Math.random().toString(36).slice(2)}`;
      expect(await a.slackBudgets.take(key, slow, 0, 'dead')).toBe(0);
      await a.sql.query(
        "UPDATE slack_budgets SET refilled_at = refilled_at - interval '10 minutes' WHERE key = $1",
        [key],
      );
      // Still in flight: a spare call (keep 1, a full burst) waits.
      expect(await b.slackBudgets.take(key, slow, 1)).toBeGreaterThan(0);
      await a.sql.query(
        "UPDATE slack_budget_flights SET taken_at = taken_at - interval '10 minutes' WHERE key = $1",
        [key],
      );
      expect(await b.slackBudgets.take(key, slow, 1)).toBe(0);
    });
  });
}
