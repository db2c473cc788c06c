import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HumanInputRequest } from '@agent-sessions/core';
import { initialFollowState } from '@agent-sessions/core';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, openPglite, refKeyOf, SqlStore as Store, StoreDataError } from '../../src/index.js';
import { type Backend, describeWithStore, storeBackends } from './backends.js';

const approval = (inputId: string): HumanInputRequest => ({
  inputId,
  kind: 'approval',
  prompt: 'Deploy?',
  raw: { id: inputId },
});

const prompt = (sessionId: string, inputId: string, messageTs: string | null = null) => ({
  sessionId,
  inputId,
  channelId: 'C1',
  messageTs,
  request: approval(inputId),
  refKey: refKeyOf(sessionId, inputId),
});

const session = (id: string, extra: Partial<{ channelId: string; startedBy: string }> = {}) => ({
  sessionId: id,
  channelId: extra.channelId ?? 'C1',
  cardTs: null,
  startedBy: extra.startedBy ?? 'U1',
  goal: `goal of ${id}`,
  budget: 5,
});

for (const backend of storeBackends('store_test')) {
  describeWithStore(backend, `Store on ${backend.name}`, (store) => {
    it('migrates once, however often it is opened', async () => {
      const { migrate } = await import('../../src/index.js');
      expect(await migrate(store.sql)).toBe(0);
      const { rows } = await store.sql.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM schema_migrations',
      );
      expect(rows[0]?.n).toBe(MIGRATIONS.length);
    });

    it('keeps sessions and where they live in Slack', async () => {
      await store.sessions.create(session('s1', { channelId: 'C9', startedBy: 'U7' }));
      await store.sessions.update('s1', { cardTs: '1700000000.000100', status: 'running' });
      expect(await store.sessions.get('s1')).toMatchObject({
        sessionId: 's1',
        channelId: 'C9',
        cardTs: '1700000000.000100',
        startedBy: 'U7',
        status: 'running',
        budget: 5,
        finished: false,
      });
      await store.sessions.create(session('s2', { channelId: 'C9' }));
      await store.sessions.update('s2', { finished: true, status: 'completed' });
      expect(
        (await store.sessions.list({ channelId: 'C9', activeOnly: true })).map((s) => s.sessionId),
      ).toEqual(['s1']);
      expect((await store.sessions.list({ startedBy: 'U7' })).map((s) => s.sessionId)).toEqual(['s1']);
    });

    it('finds a session by its thread: the card’s own, or the mention’s it started from', async () => {
      await store.sessions.create({ ...session('t1', { channelId: 'C5' }), cardTs: '100.1' });
      await store.sessions.create({
        ...session('t2', { channelId: 'C5' }),
        cardTs: '200.2',
        threadTs: '200.1',
        origin: 'Started from this thread (3 messages as context)',
      });
      expect((await store.sessions.findByThread('C5', '100.1'))?.sessionId).toBe('t1');
      expect(await store.sessions.findByThread('C5', '200.1')).toMatchObject({
        sessionId: 't2',
        cardTs: '200.2',
        threadTs: '200.1',
        origin: 'Started from this thread (3 messages as context)',
      });
      // A card that replied in a mention's thread is not a thread of its own.
      expect(await store.sessions.findByThread('C5', '200.2')).toBeUndefined();
      expect(await store.sessions.findByThread('C6', '100.1')).toBeUndefined();
    });

    it('handles an event id once, and forgets marks older than a day', async () => {
      await store.sql.query(
        "INSERT INTO processed_events (event_id, received_at) VALUES ('EvOld', now() - interval '2 days')",
      );
      const { SqlEventLog } = await import('../../src/store/events.js');
      const log = new SqlEventLog(store.sql);
      expect(await log.markProcessed('EvNew')).toBe(true);
      expect(await log.markProcessed('EvNew')).toBe(false);
      const { rows } = await store.sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM processed_events WHERE event_id = 'EvOld'",
      );
      expect(rows[0]?.n).toBe(0);
      // A claim released (its work failed) can be taken again.
      await log.unmark('EvNew');
      expect(await log.markProcessed('EvNew')).toBe(true);
    });

    it('keeps one 👍/👎 per person and session, the latest press', async () => {
      await store.feedback.record('f1', 'U1', 'good');
      await store.feedback.record('f1', 'U2', 'good');
      await store.feedback.record('f1', 'U2', 'bad');
      expect(await store.feedback.counts('f1')).toEqual({ good: 1, bad: 1 });
      expect(await store.feedback.counts('f2')).toEqual({ good: 0, bad: 0 });
    });

    it('lets exactly one of many simultaneous answers claim a prompt', async () => {
      await store.sessions.create(session('s3'));
      await store.prompts.save(prompt('s3', 'in1', '1.1'));
      const users = Array.from({ length: 12 }, (_, i) => `U${i}`);
      const results = await Promise.all(users.map((u) => store.prompts.claim('s3', 'in1', u)));
      const winners = results.filter((r) => r.claimed);
      expect(winners).toHaveLength(1);
      const winner = users[results.findIndex((r) => r.claimed)];
      for (const loser of results.filter((r) => !r.claimed)) {
        expect(loser).toMatchObject({ claimed: false, state: 'answering', answeredBy: winner });
      }
      await store.prompts.complete('s3', 'in1', { approved: true });
      expect(await store.prompts.claim('s3', 'in1', 'U99')).toMatchObject({
        claimed: false,
        state: 'answered',
        answeredBy: winner,
      });
      expect(await store.prompts.get('s3', 'in1')).toMatchObject({
        state: 'answered',
        answer: { approved: true },
        answeredAt: expect.any(String),
      });
    });

    it('reads a session with its open questions by a prepared statement, whatever its id holds', async () => {
      // Prepared once and run by name (PGlite: EXECUTE with the id as a literal): quotes are the id's own.
      const odd = "s'8; DROP TABLE sessions; --";
      await store.sessions.create(session(odd));
      await store.prompts.save(prompt(odd, 'in1'));
      for (let run = 0; run < 3; run++) {
        const found = await store.prompts.sessionWithPending(odd);
        expect(found?.session.sessionId).toBe(odd);
        expect(found?.pending.map((p) => p.inputId)).toEqual(['in1']);
      }
      expect(await store.prompts.sessionWithPending("s' OR '1'='1")).toBeUndefined();
      // A NUL can't be in PostgreSQL's text: refused as before, not cut short.
      await expect(store.prompts.sessionWithPending('s8\u0000x')).rejects.toThrow();
      expect((await store.sessions.get(odd))?.sessionId).toBe(odd);
    });

    it('finds a prompt with its session in one read, by ids or by its short key', async () => {
      await store.sessions.create(session('s7', { startedBy: 'U7' }));
      await store.prompts.save(prompt('s7', 'in1'));
      // Posted, but the crash came before its ts was saved: the posted-messages record fills in.
      await store.posts.begin('s7', 'input:in1');
      await store.posts.finish('s7', 'input:in1', '1700000000.000900');
      const byIds = await store.prompts.find({ sessionId: 's7', inputId: 'in1' });
      expect(byIds).toMatchObject({
        inputId: 'in1',
        messageTs: '1700000000.000900',
        request: approval('in1'),
        state: 'pending',
        session: {
          sessionId: 's7',
          startedBy: 'U7',
          finished: false,
          createdAt: expect.stringMatching(/Z$/),
        },
      });
      expect(await store.prompts.find({ refKey: refKeyOf('s7', 'in1') })).toEqual(byIds);
      expect(await store.prompts.find({ refKey: 'nothing' })).toBeUndefined();
      expect(await store.prompts.complete('s7', 'in1', { approved: true })).toMatch(/Z$/);
    });

    it('keeps the agent messages a prompt carried, through later saves that say none', async () => {
      await store.sessions.create(session('s8'));
      const carried = [
        { type: 'section' as const, text: { type: 'mrkdwn' as const, text: 'Built and tested.' } },
      ];
      await store.prompts.save({ ...prompt('s8', 'in1'), carried });
      await store.prompts.save(prompt('s8', 'in1', '1.2'));
      expect(await store.prompts.get('s8', 'in1')).toMatchObject({ messageTs: '1.2', carried });
      expect((await store.prompts.find({ sessionId: 's8', inputId: 'in1' }))?.carried).toEqual(carried);
    });

    it('validates a prompt as it reads it: a row that is not a request is named, not cast', async () => {
      await store.sessions.create(session('s8'));
      await store.sql.query(
        `INSERT INTO prompts (session_id, input_id, channel_id, request) VALUES ('s8', 'bad', 'C1', '{"kind": "poll"}')`,
      );
      await expect(store.prompts.get('s8', 'bad')).rejects.toThrow(StoreDataError);
      await expect(store.prompts.get('s8', 'bad')).rejects.toThrow(/prompts\(s8, bad\)\.request: /);
    });

    it('makes a prompt answerable again when the service refused the answer, and takes over stale claims', async () => {
      await store.sessions.create(session('s4'));
      await store.prompts.save(prompt('s4', 'in1'));
      expect(await store.prompts.claim('s4', 'in1', 'UA')).toEqual({ claimed: true });
      await store.prompts.release('s4', 'in1', 'UA');
      expect(await store.prompts.claim('s4', 'in1', 'UB')).toEqual({ claimed: true });
      await new Promise((r) => setTimeout(r, 20));
      expect(await store.prompts.claim('s4', 'in1', 'UC', 5)).toEqual({ claimed: true });
      expect(await store.prompts.claim('s4', 'in2', 'UC')).toMatchObject({
        claimed: false,
        state: 'missing',
      });
    });

    it('records posts so a message is posted once across retries and restarts', async () => {
      const states = await Promise.all(Array.from({ length: 6 }, () => store.posts.begin('s5', 'r1#0')));
      expect(states.filter((s) => s.state === 'new')).toHaveLength(1);
      expect(states.filter((s) => s.state === 'pending')).toHaveLength(5);
      await store.posts.finish('s5', 'r1#0', '1700000000.000200');
      expect(await store.posts.begin('s5', 'r1#0')).toEqual({ state: 'posted', ts: '1700000000.000200' });
    });

    it('keeps a queued post with its body until posted, for crash recovery', async () => {
      await store.posts.begin('s11', 'msg:a', '{"text":"Alpha."}');
      await store.posts.begin('s11', 'msg:b', '{"text":"Beta."}');
      await store.posts.begin('s11', 'input:q'); // no body: not for recovery
      expect(await store.posts.unsentSessions(10)).toContain('s11');
      expect((await store.posts.unsent('s11')).map((r) => [r.key, r.body])).toEqual([
        ['msg:a', '{"text":"Alpha."}'],
        ['msg:b', '{"text":"Beta."}'],
      ]);
      await store.posts.finish('s11', 'msg:a', '1700000000.001000');
      expect((await store.posts.unsent('s11')).map((r) => r.key)).toEqual(['msg:b']);
      await store.posts.finish('s11', 'msg:b', '1700000000.001100');
      expect(await store.posts.unsent('s11')).toEqual([]);
      expect(await store.posts.unsentSessions(10)).not.toContain('s11');
    });

    it('finds posted messages by key prefix, taking _ and % literally', async () => {
      const posted: Array<[key: string, ts: string]> = [
        ['cost_limit:2026-01-01T00:00:02Z', '1700000000.000400'],
        ['cost_limit:2026-01-01T00:00:01Z', '1700000000.000300'],
        ['costXlimit:1', '1700000000.000500'],
        ['cost_limit_other', '1700000000.000600'],
      ];
      for (const [key, ts] of posted) {
        await store.posts.begin('s9', key);
        await store.posts.finish('s9', key, ts);
      }
      await store.posts.begin('s9', 'cost_limit:pending');
      expect(await store.posts.withPrefix('s9', 'cost_limit:')).toEqual([
        { key: 'cost_limit:2026-01-01T00:00:01Z', ts: '1700000000.000300' },
        { key: 'cost_limit:2026-01-01T00:00:02Z', ts: '1700000000.000400' },
      ]);
      expect(await store.posts.withPrefix('s9', 'cost%')).toEqual([]);
      expect(await store.posts.withPrefix('other', 'cost_limit:')).toEqual([]);
    });

    it('is a CursorStore for the follower', async () => {
      const state = {
        ...initialFollowState('s6'),
        status: 'running',
        roundCount: 2,
        announcedInputs: ['in_1'],
      };
      await store.followState.save('s6', state);
      expect(await store.followState.load('s6')).toEqual(state);
      await store.followState.save('s6', { ...state, status: 'completed', finished: true });
      expect((await store.followState.load('s6'))?.finished).toBe(true);
      await store.followState.delete('s6');
      expect(await store.followState.load('s6')).toBeUndefined();
    });

    it('splits sessions between replicas with leases, and hands over expired ones', async () => {
      for (let i = 0; i < 10; i++) await store.sessions.create(session(`lease-${i}`));
      await store.sessions.update('lease-9', { finished: true });
      await store.sql.query("DELETE FROM leases WHERE session_id NOT LIKE 'lease-%'");
      const [a, b] = await Promise.all([
        store.leases.acquire('replica-a', { limit: 5, ttlMs: 60_000 }),
        store.leases.acquire('replica-b', { limit: 5, ttlMs: 60_000 }),
      ]);
      const leased = (ids: string[]) => ids.filter((id) => id.startsWith('lease-'));
      expect(new Set([...leased(a), ...leased(b)]).size).toBe(leased(a).length + leased(b).length);
      const all = [...a, ...b];
      expect(all).not.toContain('lease-9');
      // Renewing keeps what a replica holds; another replica can't take it while the lease lives.
      const renewed = await store.leases.acquire('replica-a', { limit: 50, ttlMs: 60_000 });
      // Two live replicas: each holds about half of the unfinished sessions, never all of them.
      const active = Number(
        (await store.sql.query<{ n: string }>('SELECT count(*) AS n FROM sessions WHERE NOT finished'))
          .rows[0]?.n,
      );
      expect(renewed.length).toBeLessThanOrEqual(Math.ceil(active / 2));
      const bRenewed = await store.leases.acquire('replica-b', { limit: 50, ttlMs: 60_000 });
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
      const takeover = await store.leases.acquire('replica-a', { limit: 50, ttlMs: 60_000 });
      for (const id of b) expect(takeover).toContain(id);
      await store.leases.release('replica-a');
      expect((await store.sql.query('SELECT * FROM leases')).rows).toHaveLength(0);
    });

    it('a released lease pokes its session: it awaits an owner until another replica takes it', async () => {
      await store.sessions.create(session('handover-1'));
      await store.sessions.create(session('handover-done'));
      await store.sql.query("DELETE FROM leases WHERE session_id NOT LIKE 'handover-%'");
      await store.sql.query("UPDATE sessions SET finished = true WHERE session_id NOT LIKE 'handover-%'");
      const held = await store.leases.acquire('replica-a', { limit: 50, ttlMs: 60_000 });
      expect(held.sort()).toEqual(['handover-1', 'handover-done']);
      await store.sessions.update('handover-done', { finished: true });
      expect(await store.leases.awaitingOwner()).toBe(false);

      await store.leases.release('replica-a');
      expect(await store.leases.awaitingOwner()).toBe(true);
      // replica-a is out of the live replicas: replica-b's share is every unfinished session.
      expect(await store.leases.acquire('replica-b', { limit: 50, ttlMs: 60_000 })).toEqual(['handover-1']);
      expect(await store.leases.awaitingOwner()).toBe(false);
      // The poke is the new owner's: it polls the session at once.
      expect(await store.leases.takePokes('replica-b')).toEqual(['handover-1']);
      await store.leases.release('replica-b');
    });

    it('a session no replica had room for, or one handed over beyond a share, awaits an owner unpoked', async () => {
      await store.sql.query('DELETE FROM leases');
      await store.sql.query("UPDATE sessions SET finished = true WHERE session_id NOT LIKE 'share-%'");
      await store.sessions.create(session('share-1'));
      await store.sessions.create(session('share-2'));
      // Alone, replica-a's share is both; replica-b's heartbeat makes it one each.
      expect((await store.leases.acquire('replica-a', { limit: 50, ttlMs: 60_000 })).sort()).toEqual([
        'share-1',
        'share-2',
      ]);
      expect(await store.leases.acquire('replica-b', { limit: 50, ttlMs: 60_000 })).toEqual([]);
      expect(await store.leases.acquire('replica-a', { limit: 50, ttlMs: 60_000 })).toEqual(['share-1']);
      // Handed over without a poke: nobody released it, yet it waits for an owner.
      expect(await store.leases.awaitingOwner()).toBe(true);
      expect(await store.leases.acquire('replica-b', { limit: 50, ttlMs: 60_000 })).toEqual(['share-2']);
      expect(await store.leases.awaitingOwner()).toBe(false);

      // Started while both were at their share (replica-b's last pass counted two sessions).
      await store.sessions.create(session('share-3'));
      expect(await store.leases.awaitingOwner()).toBe(true);
      expect(await store.leases.acquire('replica-a', { limit: 50, ttlMs: 60_000 })).toContain('share-3');
      expect(await store.leases.awaitingOwner()).toBe(false);
      await store.leases.release('replica-a');
      await store.leases.release('replica-b');
    });

    // PGlite has one connection: a transaction holding a row there holds everything, so only PostgreSQL.
    if (backend.name === 'PostgreSQL')
      it('a replica keeps its own lease while its session is being updated (its row locked) by another connection', async () => {
        await store.sessions.create(session('lease-locked'));
        await store.sql.query("DELETE FROM leases WHERE session_id <> 'lease-locked'");
        await store.sql.query("UPDATE sessions SET finished = true WHERE session_id <> 'lease-locked'");
        expect(await store.leases.acquire('replica-a', { limit: 50, ttlMs: 60_000 })).toEqual([
          'lease-locked',
        ]);
        let release = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let locked = () => {};
        const isLocked = new Promise<void>((resolve) => {
          locked = resolve;
        });
        const updating = store.sql.transaction(async (tx) => {
          await tx.query("UPDATE sessions SET status = 'running' WHERE session_id = 'lease-locked'");
          locked();
          await held;
        });
        await isLocked;
        try {
          expect(await store.leases.acquire('replica-a', { limit: 50, ttlMs: 60_000 })).toEqual([
            'lease-locked',
          ]);
        } finally {
          release();
          await updating;
        }
      });

    it('remembers processed Slack events', async () => {
      expect(await store.events.markProcessed('Ev1')).toBe(true);
      expect(await store.events.markProcessed('Ev1')).toBe(false);
    });
  });
}

describe('an existing database', () => {
  // PGlite in memory, a schema of its own (backends.ts).
  const [pglite] = storeBackends('existing_db');
  afterAll(() => pglite?.cleanup());

  it('keeps working after the new migrations: its prompts are read, their keys computed', async () => {
    const sql = await (pglite as Backend).openSql();
    // The schema as the previous release left it: the first four migrations, and a prompt in it.
    await sql.query(
      'CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (const [i, migration] of MIGRATIONS.slice(0, 4).entries()) {
      for (const statement of migration.split(/;\s*$/m).filter((s) => s.trim())) await sql.query(statement);
      await sql.query('INSERT INTO schema_migrations (version) VALUES ($1)', [i + 1]);
    }
    await sql.query(
      `INSERT INTO sessions (session_id, channel_id, started_by, goal) VALUES ('old', 'C1', 'U1', 'g')`,
    );
    await sql.query(
      `INSERT INTO prompts (session_id, input_id, channel_id, message_ts, request) VALUES ('old', 'in1', 'C1', '1.5', $1)`,
      [JSON.stringify(approval('in1'))],
    );
    const store = await Store.open(sql);
    expect(await store.prompts.get('old', 'in1')).toMatchObject({
      request: approval('in1'),
      refKey: refKeyOf('old', 'in1'),
      messageTs: '1.5',
    });
    await store.close();
  });
});

describe('PGlite on disk', () => {
  it('keeps what was written across a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-store-'));
    try {
      const first = await Store.open(await openPglite(dir));
      await first.sessions.create(session('persisted'));
      await first.close();
      const second = await Store.open(await openPglite(dir));
      expect((await second.sessions.get('persisted'))?.goal).toBe('goal of persisted');
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
