import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, SqlStore } from '../../../src/index.js';
import { createLogger } from '../../../src/logger.js';
import { AuditService } from '../../../src/services/ops/audit.js';
import type { AuditRecord } from '../../../src/store/audit.js';

const logger = createLogger({ secrets: [], level: 'silent' });
const TOKEN = 'audit-token-for-the-teams-test';

/** GET /audit over the real store (PGlite): one bot serving one workspace, or several (OAuth installs). */
async function serve(store: SqlStore, workspaces: 'one' | 'many') {
  const audit = new AuditService({ audit: store.audit, logger, retentionDays: 365, workspaces });
  const [route] = audit.routes(TOKEN);
  if (!route) throw new Error('no /audit route');
  const server = createServer((req, res) => route.handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { audit, server, get };
}

const lines = async (r: Response) =>
  (await r.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditRecord);

describe('GET /audit by workspace', () => {
  let store: SqlStore;
  const servers: Server[] = [];
  beforeAll(async () => {
    store = await SqlStore.open(await openPglite(undefined));
    const { audit, server } = await serve(store, 'one');
    servers.push(server);
    for (const [teamId, userId] of [
      ['T0SANDBOX', 'U0ALICE'],
      ['T0NORTH', 'U0DANA'],
      ['T0SANDBOX', 'U0BOB'],
    ] as const) {
      await audit.record({ sessionId: `s_${userId}`, action: 'pause', userId, outcome: 'ok', teamId });
    }
  });
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await store?.close();
  });

  it('one workspace: every record, each naming its team; team=T… keeps that workspace’s', async () => {
    const { server, get } = await serve(store, 'one');
    servers.push(server);
    const all = await lines(await get('/audit'));
    expect(all.map((r) => [r.teamId, r.userId])).toEqual([
      ['T0SANDBOX', 'U0ALICE'],
      ['T0NORTH', 'U0DANA'],
      ['T0SANDBOX', 'U0BOB'],
    ]);
    const north = await lines(await get('/audit?team=T0NORTH'));
    expect(north.map((r) => r.userId)).toEqual(['U0DANA']);
  });

  it('several workspaces: team is required; team=T… reads one, team=* all, and the next page keeps it', async () => {
    const { server, get } = await serve(store, 'many');
    servers.push(server);
    const bare = await get('/audit');
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { error: string }).error).toBe(
      'team is required: this bot serves several workspaces (OAuth installs); team=T… reads one workspace, team=* all of them',
    );
    const sandboxPage = await get('/audit?team=T0SANDBOX&limit=1');
    expect((await lines(sandboxPage)).map((r) => [r.teamId, r.userId])).toEqual([['T0SANDBOX', 'U0ALICE']]);
    const next = /^<([^>]+)>/.exec(sandboxPage.headers.get('link') ?? '')?.[1] ?? '';
    expect(next).toMatch(/team=T0SANDBOX/);
    // The next page skips Northwind's record between the two.
    expect((await lines(await get(next))).map((r) => r.userId)).toEqual(['U0BOB']);
    expect((await lines(await get('/audit?team=*'))).map((r) => r.userId)).toEqual([
      'U0ALICE',
      'U0DANA',
      'U0BOB',
    ]);
    // Another workspace's session asked for by id under the wrong team: nothing.
    expect(await lines(await get('/audit?team=T0SANDBOX&sessionId=s_U0DANA'))).toEqual([]);
  });

  it('names a bad team and its rule (400)', async () => {
    const { server, get } = await serve(store, 'many');
    servers.push(server);
    for (const bad of ['north', "T1' OR 1=1", 'E0GLOBEX']) {
      const response = await get(`/audit?team=${encodeURIComponent(bad)}`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe(
        `team must be a Slack team id (T…, the workspace acted from) or *; got "${bad}"`,
      );
    }
  });
});
