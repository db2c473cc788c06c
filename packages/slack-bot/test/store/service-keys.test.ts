import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSessionsClient } from '@agent-sessions/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../../test/support/database-url.js';
import { openPglite, openPostgres, SqlStore } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';
import { KeyCipher, ServiceKeys } from '../../src/services/keys/index.js';
import { KeyUnavailableError } from '../../src/services/keys/key-errors.js';
import { storeBackends } from './backends.js';
import { installAndRotate } from './installed-tokens.js';

// Distinctive enough that finding it anywhere on disk or in a table means it was stored as it is.
const SECRET = `sk_secret_${randomBytes(12).toString('hex')}`;
const MARKER = `plain_marker_${randomBytes(12).toString('hex')}`;
const logger = createLogger({
  secrets: [],
  destination: { write: () => true } as unknown as NodeJS.WritableStream,
});
const defaultClient = new AgentSessionsClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'default_key_x' });

function keysOver(store: SqlStore, cipher: KeyCipher | undefined, mode: 'per-workspace' | 'per-person') {
  return new ServiceKeys({
    repo: store.serviceKeys,
    cipher,
    mode,
    serviceUrl: 'http://127.0.0.1:9',
    defaultClient,
    ownTeam: async () => 'T1',
    logger,
    cacheMs: 0,
  });
}

/**
 * Links the secret, installs Slack's tokens and rotates them, and writes the marker where plain text is
 * kept (a session's goal), as a control. Returns the Slack tokens handed to the store.
 */
async function linkSecretBeside(store: SqlStore): Promise<string[]> {
  const keys = keysOver(store, new KeyCipher(randomBytes(32)), 'per-person');
  await keys.link({ ref: 'person:T1:U1', teamId: 'T1', userId: 'U1', apiKey: SECRET, by: 'U1' });
  await store.sessions.create({
    sessionId: 's_marker',
    channelId: 'C1',
    cardTs: null,
    startedBy: 'U1',
    goal: MARKER,
    budget: null,
    keyRef: 'person:T1:U1',
  });
  return installAndRotate(store);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('service keys and Slack tokens at rest', () => {
  it('PGlite: no file of the database folder holds the key or a Slack token (the control marker is found)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-at-rest-'));
    try {
      const store = await SqlStore.open(await openPglite(dir));
      const tokens = await linkSecretBeside(store);
      await store.sql.query('CHECKPOINT');
      await store.close();
      const hits = (needle: string) =>
        filesUnder(dir).filter((file) => readFileSync(file).includes(Buffer.from(needle, 'utf8')));
      expect(hits(MARKER).length).toBeGreaterThan(0);
      expect(hits(SECRET)).toEqual([]);
      // Nor its base64 forms, nor its hex.
      expect(hits(Buffer.from(SECRET).toString('base64'))).toEqual([]);
      expect(hits(Buffer.from(SECRET).toString('hex'))).toEqual([]);
      // No Slack token either (xoxb-, xoxe-, xoxp-), before or after its rotation.
      expect(tokens).toHaveLength(8);
      for (const token of tokens) expect({ token, files: hits(token) }).toEqual({ token, files: [] });
      for (const prefix of ['xoxb-', 'xoxe-', 'xoxp-'])
        expect({ prefix, files: hits(prefix) }).toEqual({ prefix, files: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: no row of any table holds the key or a Slack token (the control marker is found)', async () => {
    const url = testDatabaseUrl();
    const schema = `keys_at_rest_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA ${schema}`);
      const store = await SqlStore.open(openPostgres(url, { schema }));
      const tokens = await linkSecretBeside(store);
      await store.close();
      const { rows: tables } = await admin.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
        [schema],
      );
      expect(tables.map((t) => t.table_name)).toContain('service_keys');
      const text: string[] = [];
      for (const { table_name } of tables) {
        const { rows } = await admin.query<{ row: string }>(
          `SELECT t::text AS row FROM ${schema}."${table_name}" t`,
        );
        text.push(...rows.map((r) => r.row));
      }
      const all = text.join('\n');
      expect(all).toContain(MARKER);
      expect(all).not.toContain(SECRET);
      expect(tables.map((t) => t.table_name)).toContain('slack_installations');
      for (const token of tokens) expect(all).not.toContain(token);
      expect(all).not.toMatch(/xox[bep]-/);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});

for (const backend of storeBackends('service_keys')) {
  describe(`ServiceKeys on ${backend.name}`, () => {
    let store: SqlStore;
    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('per-person: a start needs the starter’s own key, and the session records its slot, not the key', async () => {
      const keys = keysOver(store, new KeyCipher(randomBytes(32)), 'per-person');
      const refused = await keys.forStart('U2');
      expect(refused.ok).toBe(false);
      await keys.link({ ref: 'person:T1:U2', teamId: 'T1', userId: 'U2', apiKey: SECRET, by: 'U2' });
      const started = await keys.forStart('U2');
      expect(started).toMatchObject({ ok: true, ref: 'person:T1:U2' });
      // Another person's key is never theirs: U3 has none, whoever else linked one.
      expect((await keys.forStart('U3')).ok).toBe(false);
      const row = await store.serviceKeys.get('person:T1:U2');
      expect(row?.hint).toBe(`sk_…${SECRET.slice(-4)}`);
      expect(JSON.stringify(row)).not.toContain(SECRET);
    });

    it('per-workspace: AGENT_API_KEY until the workspace links one', async () => {
      const keys = keysOver(store, new KeyCipher(randomBytes(32)), 'per-workspace');
      const before = await keys.forStart('U2');
      expect(before).toMatchObject({ ok: true, ref: undefined });
      expect(before.ok && before.client).toBe(defaultClient);
      await keys.link({
        ref: 'team:T1',
        teamId: 'T1',
        userId: null,
        apiKey: 'sk_workspace_key_1234',
        by: 'U9',
      });
      expect(await keys.forStart('U2')).toMatchObject({ ok: true, ref: 'team:T1' });
    });

    it('a removed key: its sessions fail with KeyUnavailableError, and the slot gets a new version', async () => {
      const keys = keysOver(store, new KeyCipher(randomBytes(32)), 'per-person');
      await keys.link({
        ref: 'person:T1:U4',
        teamId: 'T1',
        userId: 'U4',
        apiKey: 'sk_person_four_key_9876',
        by: 'U4',
      });
      const linked = await keys.versionOf('person:T1:U4');
      await keys.clientOf('person:T1:U4');
      expect(await keys.remove('person:T1:U4', 'U4')).toBe(true);
      expect(await keys.remove('person:T1:U4', 'U4')).toBe(false);
      await expect(keys.clientOf('person:T1:U4')).rejects.toBeInstanceOf(KeyUnavailableError);
      const removed = await keys.versionOf('person:T1:U4');
      expect(removed).not.toBe(linked);
      // The notice is said once per version of the slot.
      expect(await store.serviceKeys.noticeOnce('s_1', removed, 'removed')).toBe(true);
      expect(await store.serviceKeys.noticeOnce('s_1', removed, 'removed')).toBe(false);
      expect(await store.serviceKeys.noticed('s_1', removed)).toBe(true);
      expect(await store.serviceKeys.noticed('s_1', linked)).toBe(false);
    });

    it('rotation: keys made with the previous encryption key are encrypted again with the new one', async () => {
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const before = keysOver(store, new KeyCipher(oldKey), 'per-person');
      await before.link({
        ref: 'person:T1:U5',
        teamId: 'T1',
        userId: 'U5',
        apiKey: 'sk_rotate_me_abcdef_0001',
        by: 'U5',
      });
      const unread = keysOver(store, new KeyCipher(newKey), 'per-person');
      // Without the previous key, the new one can't read it: the start says to link it again.
      expect(await unread.forStart('U5')).toMatchObject({ ok: false });
      const rotated = keysOver(store, new KeyCipher(newKey, [oldKey]), 'per-person');
      const result = await rotated.reencryptAll();
      expect(result.reencrypted).toBeGreaterThanOrEqual(1);
      expect((await store.serviceKeys.get('person:T1:U5'))?.keyId).toBe(new KeyCipher(newKey).keyId);
      // Now the new key alone reads it.
      expect(await keysOver(store, new KeyCipher(newKey), 'per-person').forStart('U5')).toMatchObject({
        ok: true,
      });
    });

    it('a ciphertext copied into another person’s slot does not decrypt there', async () => {
      const cipher = new KeyCipher(randomBytes(32));
      const keys = keysOver(store, cipher, 'per-person');
      await keys.link({
        ref: 'person:T1:U6',
        teamId: 'T1',
        userId: 'U6',
        apiKey: 'sk_six_six_six_666',
        by: 'U6',
      });
      const six = await store.serviceKeys.get('person:T1:U6');
      await store.serviceKeys.put({
        ...(six as NonNullable<typeof six>),
        ref: 'person:T1:U7',
        userId: 'U7',
        version: 'copied',
      });
      expect(await keys.forStart('U7')).toMatchObject({ ok: false });
    });
  });
}
