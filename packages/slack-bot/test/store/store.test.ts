import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initialFollowState } from '@agent-sessions/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, openPostgres, type SqlStore, SqlStore as Store } from '../../src/index.js';

const DATABASE_URL = process.env.TEST_DATABASE_URL;

interface Backend {
  name: string;
  skip: boolean;
  open(): Promise<SqlStore>;
  cleanup(): Promise<void>;
}

const pglite: Backend = {
  name: 'PGlite',
  skip: false,
  open: async () => Store.open(await openPglite(undefined)),
  cleanup: async () => {},
};

// Each run gets its own schema with a random name, dropped at the end: the server is shared.
const schema = `store_test_${Math.random().toString(36).slice(2, 10)}`;
const postgres: Backend = {
  name: 'PostgreSQL',
  skip: !DATABASE_URL,
  open: async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await admin.end();
    return Store.open(openPostgres(DATABASE_URL as string, { schema }));
  },
  cleanup: async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  },
};

const session = (id: string, extra: Partial<{ channelId: string; startedBy: string }> = {}) => ({
  sessionId: id,
  channelId: extra.channelId ?? 'C1',
  cardTs: null,
  startedBy: extra.startedBy ?? 'U1',
  goal: `goal of ${id}`,
  budget: 5,
});

for (const backend of [pglite, postgres]) {
  describe.skipIf(backend.skip)(`Store on ${backend.name}`, () => {
    let store: SqlStore;
    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('migrates once, however often it is opened', async () => {
      const { migrate, MIGRATIONS } = await import('../../src/index.js');
      expect(await migrate(store.sql)).toBe(0);
      const { rows } = await store.sql.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM schema_migrations',
      );
      expect(rows[0]?.n).toBe(MIGRATIONS.length);
    });

    it('keeps sessions and where they live in Slack', async () => {
      await store.createSession(session('s1', { channelId: 'C9', startedBy: 'U7' }));
      await store.updateSession('s1', { cardTs: '1700000000.000100', status: 'running' });
      expect(await store.getSession('s1')).toMatchObject({
        sessionId: 's1',
        channelId: 'C9',
        cardTs: '1700000000.000100',
        startedBy: 'U7',
        status: 'running',
        budget: 5,
        finished: false,
      });
      await store.createSession(session('s2', { channelId: 'C9' }));
      await store.updateSession('s2', { finished: true, status: 'completed' });
      expect(
        (await store.listSessions({ channelId: 'C9', activeOnly: true })).map((s) => s.sessionId),
      ).toEqual(['s1']);
      expect((await store.listSessions({ startedBy: 'U7' })).map((s) => s.sessionId)).toEqual(['s1']);
    });

    it('lets exactly one of many simultaneous answers claim a prompt', async () => {
      await store.createSession(session('s3'));
      await store.savePrompt({
        sessionId: 's3',
        inputId: 'in1',
        channelId: 'C1',
        messageTs: '1.1',
        request: { kind: 'approval' },
      });
      const users = Array.from({ length: 12 }, (_, i) => `U${i}`);
      const results = await Promise.all(users.map((u) => store.claimPrompt('s3', 'in1', u)));
      const winners = results.filter((r) => r.claimed);
      expect(winners).toHaveLength(1);
      const winner = users[results.findIndex((r) => r.claimed)];
      for (const loser of results.filter((r) => !r.claimed)) {
        expect(loser).toMatchObject({ claimed: false, state: 'answering', answeredBy: winner });
      }
      await store.completePrompt('s3', 'in1', { approved: true });
      expect(await store.claimPrompt('s3', 'in1', 'U99')).toMatchObject({
        claimed: false,
        state: 'answered',
        answeredBy: winner,
      });
      expect(await store.getPrompt('s3', 'in1')).toMatchObject({
        state: 'answered',
        answer: { approved: true },
        answeredAt: expect.any(String),
      });
    });

    it('makes a prompt answerable again when the service refused the answer, and takes over stale claims', async () => {
      await store.createSession(session('s4'));
      await store.savePrompt({
        sessionId: 's4',
        inputId: 'in1',
        channelId: 'C1',
        messageTs: null,
        request: {},
      });
      expect(await store.claimPrompt('s4', 'in1', 'UA')).toEqual({ claimed: true });
      await store.releasePrompt('s4', 'in1', 'UA');
      expect(await store.claimPrompt('s4', 'in1', 'UB')).toEqual({ claimed: true });
      await new Promise((r) => setTimeout(r, 20));
      expect(await store.claimPrompt('s4', 'in1', 'UC', 5)).toEqual({ claimed: true });
      expect(await store.claimPrompt('s4', 'in2', 'UC')).toMatchObject({ claimed: false, state: 'missing' });
    });

    it('records posts so a message is posted once across retries and restarts', async () => {
      const states = await Promise.all(Array.from({ length: 6 }, () => store.beginPost('s5', 'r1#0')));
      expect(states.filter((s) => s.state === 'new')).toHaveLength(1);
      expect(states.filter((s) => s.state === 'pending')).toHaveLength(5);
      await store.finishPost('s5', 'r1#0', '1700000000.000200');
      expect(await store.beginPost('s5', 'r1#0')).toEqual({ state: 'posted', ts: '1700000000.000200' });
    });

    it('finds posted messages by key prefix, taking _ and % literally', async () => {
      const posted: Array<[key: string, ts: string]> = [
        ['cost_limit:2026-01-01T00:00:02Z', '1700000000.000400'],
        ['cost_limit:2026-01-01T00:00:01Z', '1700000000.000300'],
        ['costXlimit:1', '1700000000.000500'],
        ['cost_limit_other', '1700000000.000600'],
      ];
      for (const [key, ts] of posted) {
        await store.beginPost('s9', key);
        await store.finishPost('s9', key, ts);
      }
      await store.beginPost('s9', 'cost_limit:pending');
      expect(await store.postedWithPrefix('s9', 'cost_limit:')).toEqual([
        { key: 'cost_limit:2026-01-01T00:00:01Z', ts: '1700000000.000300' },
        { key: 'cost_limit:2026-01-01T00:00:02Z', ts: '1700000000.000400' },
      ]);
      expect(await store.postedWithPrefix('s9', 'cost%')).toEqual([]);
      expect(await store.postedWithPrefix('other', 'cost_limit:')).toEqual([]);
    });

    it('is a CursorStore for the follower', async () => {
      const state = {
        ...initialFollowState('s6'),
        status: 'running',
        roundCount: 2,
        announcedInputs: ['in_1'],
      };
      await store.save('s6', state);
      expect(await store.load('s6')).toEqual(state);
      await store.save('s6', { ...state, status: 'completed', finished: true });
      expect((await store.load('s6'))?.finished).toBe(true);
      await store.delete('s6');
      expect(await store.load('s6')).toBeUndefined();
    });

    it('splits sessions between replicas with leases, and hands over expired ones', async () => {
      for (let i = 0; i < 10; i++) await store.createSession(session(`lease-${i}`));
      await store.updateSession('lease-9', { finished: true });
      await store.sql.query("DELETE FROM leases WHERE session_id NOT LIKE 'lease-%'");
      const [a, b] = await Promise.all([
        store.acquireLeases('replica-a', { limit: 5, ttlMs: 60_000 }),
        store.acquireLeases('replica-b', { limit: 5, ttlMs: 60_000 }),
      ]);
      const leased = (ids: string[]) => ids.filter((id) => id.startsWith('lease-'));
      expect(new Set([...leased(a), ...leased(b)]).size).toBe(leased(a).length + leased(b).length);
      const all = [...a, ...b];
      expect(all).not.toContain('lease-9');
      // Renewing keeps what a replica holds; another replica can't take it while the lease lives.
      const renewed = await store.acquireLeases('replica-a', { limit: 50, ttlMs: 60_000 });
      // Two live replicas: each holds about half of the unfinished sessions, never all of them.
      const active = Number(
        (await store.sql.query<{ n: string }>('SELECT count(*) AS n FROM sessions WHERE NOT finished'))
          .rows[0]?.n,
      );
      expect(renewed.length).toBeLessThanOrEqual(Math.ceil(active / 2));
      const bRenewed = await store.acquireLeases('replica-b', { limit: 50, ttlMs: 60_000 });
      expect(renewed.length + bRenewed.length).toBe(active);
      for (const id of a) expect(renewed).toContain(id);
      for (const id of b) expect(renewed).not.toContain(id);
      // replica-b dies: its leases expire and replica-a takes its sessions over.
      await store.sql.query(
        "UPDATE leases SET expires_at = now() - interval '1 second' WHERE owner = 'replica-b'",
      );
      await store.sql.query(
        "UPDATE replicas SET seen_at = now() - interval '5 minutes' WHERE owner = 'replica-b'",
      );
      const takeover = await store.acquireLeases('replica-a', { limit: 50, ttlMs: 60_000 });
      for (const id of b) expect(takeover).toContain(id);
      await store.releaseLeases('replica-a');
      expect((await store.sql.query('SELECT * FROM leases')).rows).toHaveLength(0);
    });

    it('remembers processed Slack events', async () => {
      expect(await store.markEventProcessed('Ev1')).toBe(true);
      expect(await store.markEventProcessed('Ev1')).toBe(false);
    });
  });
}

describe('PGlite on disk', () => {
  it('keeps what was written across a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-store-'));
    try {
      const first = await Store.open(await openPglite(dir));
      await first.createSession(session('persisted'));
      await first.close();
      const second = await Store.open(await openPglite(dir));
      expect((await second.getSession('persisted'))?.goal).toBe('goal of persisted');
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
