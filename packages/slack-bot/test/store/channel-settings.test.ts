import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, type SqlClient, type SqlStore, SqlStore as Store } from '../../src/index.js';
import { describeWithStore, storeBackends } from './backends.js';

/** The migration that names each row's workspace. */
const WORKSPACES = MIGRATIONS.findIndex((m) => /ALTER TABLE channel_settings ADD COLUMN workspace/.test(m));

/** The schema as the previous release left it. */
async function schemaBeforeWorkspaces(sql: SqlClient): Promise<void> {
  expect(WORKSPACES).toBeGreaterThan(0);
  await sql.query(
    'CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const [i, migration] of MIGRATIONS.slice(0, WORKSPACES).entries()) {
    for (const statement of migration.split(/;\s*$/m).filter((s) => s.trim())) await sql.query(statement);
    await sql.query('INSERT INTO schema_migrations (version) VALUES ($1)', [i + 1]);
  }
}

const defaults = { budget: 4.5, maxIterations: 12, context: { repo: 'acme/api', tags: ['a', 'b'] } };

for (const backend of storeBackends('channel_settings')) {
  describeWithStore(backend, `a channel's defaults for new sessions (${backend.name})`, (store) => {
    it('none until saved; the latest save kept, context as JSON, a cleared field null', async () => {
      expect(await store.channelSettings.get('T1', 'C0AGENTS')).toBeUndefined();
      await store.channelSettings.save('T1', 'C0AGENTS', defaults, 'U0BOB');
      expect(await store.channelSettings.get('T1', 'C0AGENTS')).toMatchObject({
        workspace: 'T1',
        channelId: 'C0AGENTS',
        budget: 4.5,
        maxIterations: 12,
        context: { repo: 'acme/api', tags: ['a', 'b'] },
        updatedBy: 'U0BOB',
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      await store.channelSettings.save(
        'T1',
        'C0AGENTS',
        { budget: null, maxIterations: 30, context: null },
        'U0DAN',
      );
      expect(await store.channelSettings.get('T1', 'C0AGENTS')).toMatchObject({
        budget: null,
        maxIterations: 30,
        context: null,
        updatedBy: 'U0DAN',
      });
      expect(await store.channelSettings.get('T1', 'C0OTHER')).toBeUndefined();
    });

    it('a Slack Connect channel (one id, two organisations): each workspace keeps and reads its own', async () => {
      await store.channelSettings.save('TA', 'CSHARED', { ...defaults, context: { from: 'a' } }, 'U0A');
      expect(await store.channelSettings.get('TB', 'CSHARED')).toBeUndefined();
      await store.channelSettings.save('TB', 'CSHARED', { ...defaults, context: { from: 'b' } }, 'U0B');
      expect((await store.channelSettings.get('TA', 'CSHARED'))?.context).toEqual({ from: 'a' });
      expect((await store.channelSettings.get('TB', 'CSHARED'))?.context).toEqual({ from: 'b' });
    });

    it('no workspace: nothing read, nothing saved', async () => {
      expect(await store.channelSettings.get('', 'C0AGENTS')).toBeUndefined();
      await expect(store.channelSettings.save('', 'C0AGENTS', defaults, 'U0BOB')).rejects.toThrow(
        /workspace/,
      );
    });
  });

  describe(`rows saved before settings named their workspace (${backend.name})`, () => {
    let sql: SqlClient;
    beforeAll(async () => {
      sql = await backend.openSql();
      await schemaBeforeWorkspaces(sql);
    });
    afterAll(async () => {
      await sql?.close();
      await backend.cleanup();
    });

    const oldRow = (channel: string) =>
      sql.query(`INSERT INTO channel_settings (channel_id, budget, updated_by) VALUES ($1, 3, 'U0OLD')`, [
        channel,
      ]);

    it('stay unplaced with no installation, go to the bot’s own workspace at start, and are dropped under several', async () => {
      await oldRow('C0ONE');
      await oldRow('C0TWO');
      const store = await Store.open(sql);
      // No installation (one token): the migration can't tell whose they are, so nobody reads them yet.
      expect(await store.channelSettings.get('T0HOME', 'C0ONE')).toBeUndefined();
      // A row T0HOME saved since the upgrade wins over the unplaced one for the same channel.
      await store.channelSettings.save('T0HOME', 'C0TWO', { ...defaults, budget: 7 }, 'U0NEW');
      expect(await store.channelSettings.adoptUnplaced('T0HOME')).toEqual({ adopted: 1, dropped: 1 });
      expect(await store.channelSettings.get('T0HOME', 'C0ONE')).toMatchObject({ budget: 3 });
      expect(await store.channelSettings.get('T0HOME', 'C0TWO')).toMatchObject({ budget: 7 });
      await sql.query(
        `INSERT INTO channel_settings (workspace, channel_id, updated_by) VALUES ('', 'C0X', 'U')`,
      );
      // Several workspaces served (OAuth): none can claim them.
      expect(await store.channelSettings.adoptUnplaced(undefined)).toEqual({ adopted: 0, dropped: 1 });
      expect(await store.channelSettings.adoptUnplaced('T0HOME')).toEqual({ adopted: 0, dropped: 0 });
    });
  });

  describe(`the migration with exactly one installation (${backend.name})`, () => {
    let store: SqlStore | undefined;
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('gives the rows to that installation', async () => {
      const sql = await backend.openSql();
      await schemaBeforeWorkspaces(sql);
      await sql.query(
        `INSERT INTO slack_installations (key, team_id, installation) VALUES ('T0ONLY', 'T0ONLY', '{}')`,
      );
      await sql.query(
        `INSERT INTO channel_settings (channel_id, budget, updated_by) VALUES ('C0A', 2, 'U0OLD')`,
      );
      store = await Store.open(sql);
      expect(await store.channelSettings.get('T0ONLY', 'C0A')).toMatchObject({ budget: 2 });
    });
  });
}
