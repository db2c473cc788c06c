import { expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { Uninstalls } from '../../src/services/installs/uninstalls.js';
import { McpTokens } from '../../src/services/mcp/index.js';
import { hashOf } from '../../src/services/mcp/tokens.js';
import type { SqlStore } from '../../src/store/index.js';
import {
  CachedMcpTokenRepository,
  SqlMcpTokenRepository,
  TOKEN_CHECK_KEPT_MS,
  type TokenUse,
} from '../../src/store/mcp-tokens.js';
import type { Workspace } from '../../src/workspace.js';
import { describeWithStore, storeBackends } from './backends.js';

const NORTH: Workspace = { teamId: 'T0NORTH', key: 'T0NORTH', isEnterpriseInstall: false, isolated: true };
const SOUTH: Workspace = { teamId: 'T0SOUTH', key: 'T0SOUTH', isEnterpriseInstall: false, isolated: true };

function bound(target: object, name: string | symbol): unknown {
  const value: unknown = Reflect.get(target, name, target);
  return typeof value === 'function' ? value.bind(target) : value;
}

function tokensOver(store: SqlStore, now: () => Date) {
  return new McpTokens({ tokens: store.mcpTokens, settings: { ttlDays: 90, isolated: true }, now });
}

for (const backend of storeBackends('mcp_tokens')) {
  describeWithStore(backend, `MCP personal tokens (${backend.name})`, (store) => {
    it('kept as their SHA-256 only: the token is nowhere in the table', async () => {
      const tokens = tokensOver(store, () => new Date());
      const { token } = await tokens.mint(NORTH, 'U1');
      const { rows } = await store.sql.query('SELECT * FROM mcp_tokens');
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(JSON.stringify(rows)).not.toContain(token.slice(12));
    });

    it('acts as its person in its workspace, until it expires (MCP_TOKEN_DAYS)', async () => {
      let now = new Date('2026-01-01T00:00:00Z');
      const tokens = tokensOver(store, () => now);
      const { token, info } = await tokens.mint(NORTH, 'U2');
      expect(info.expiresAt).toBe('2026-04-01T00:00:00.000Z');
      expect(await tokens.verify(token)).toMatchObject({ userId: 'U2', workspace: NORTH });
      now = new Date('2026-04-01T00:00:01Z');
      expect(await tokens.verify(token)).toBeUndefined();
    });

    it('listed and revoked by its owner only, in its own workspace', async () => {
      const tokens = tokensOver(store, () => new Date());
      const { token, info } = await tokens.mint(NORTH, 'U3');
      expect((await tokens.list(NORTH, 'U3')).map((t) => t.id)).toEqual([info.id]);
      expect(await tokens.list(SOUTH, 'U3')).toEqual([]);
      // Someone else, or the same id from another workspace, can't revoke it.
      expect(await tokens.revoke(NORTH, 'U4', info.id)).toBe(false);
      expect(await tokens.revoke(SOUTH, 'U3', info.id)).toBe(false);
      expect(await tokens.verify(token)).toBeDefined();
      expect(await tokens.revoke(NORTH, 'U3', info.id)).toBe(true);
      expect(await tokens.verify(token)).toBeUndefined();
      expect(await tokens.list(NORTH, 'U3')).toEqual([]);
    });

    it('a made-up or altered token is unknown', async () => {
      const tokens = tokensOver(store, () => new Date());
      const { token } = await tokens.mint(NORTH, 'U5');
      expect(await tokens.verify(`${token}x`)).toBeUndefined();
      expect(await tokens.verify(token.replace('asm_mcp_', 'asm_xyz_'))).toBeUndefined();
      expect(await tokens.verify('')).toBeUndefined();
    });

    it('remembers the host that named itself, and when the token was last used', async () => {
      const tokens = tokensOver(store, () => new Date());
      const { token } = await tokens.mint(NORTH, 'U6');
      const caller = await tokens.verify(token);
      if (!caller) throw new Error('the token was refused');
      await tokens.used(caller, 'Claude Desktop');
      expect(await tokens.verify(token)).toMatchObject({ lastClient: 'Claude Desktop' });
      expect((await tokens.list(NORTH, 'U6'))[0]?.lastUsedAt).not.toBeNull();
    });

    it('a use is written down at most once a minute, unless the host names itself anew', async () => {
      let now = new Date('2026-12-01T10:00:00Z');
      const writes: Array<string | null> = [];
      const counted = new Proxy(store.mcpTokens, {
        get: (target, name) =>
          name === 'usedMany'
            ? (uses: TokenUse[]) => {
                writes.push(...uses.map((u) => u.client));
                return target.usedMany(uses);
              }
            : // Bound to the repository itself: its private fields are not the proxy's.
              bound(target, name),
      });
      const tokens = new McpTokens({
        tokens: counted,
        settings: { ttlDays: 90, isolated: true },
        now: () => now,
      });
      const { token } = await tokens.mint(NORTH, 'U9');
      const use = async (client?: string) => {
        const caller = await tokens.verify(token);
        if (!caller) throw new Error('the token was refused');
        await tokens.used(caller, client);
      };
      await use('Cursor');
      await use();
      await use('Cursor');
      expect(writes).toEqual(['Cursor']);
      await use('Claude Code');
      expect(writes).toEqual(['Cursor', 'Claude Code']);
      now = new Date(now.getTime() + 61_000);
      await use();
      expect(writes).toEqual(['Cursor', 'Claude Code', null]);
      expect((await tokens.list(NORTH, 'U9'))[0]?.lastUsedAt).toBe(now.toISOString());
    });

    it('uses arriving together, of many tokens or one, are written down in one write', async () => {
      const batches: TokenUse[][] = [];
      const counted = new Proxy(store.mcpTokens, {
        get: (target, name) =>
          name === 'usedMany'
            ? (uses: TokenUse[]) => {
                batches.push(uses);
                return target.usedMany(uses);
              }
            : bound(target, name),
      });
      const tokens = new McpTokens({ tokens: counted, settings: { ttlDays: 90, isolated: true } });
      const minted = [await tokens.mint(NORTH, 'U21'), await tokens.mint(NORTH, 'U22')];
      const callers = await Promise.all(minted.map(({ token }) => tokens.verify(token)));
      // A burst: each person's calls at once (five waits each), all before the first write.
      await Promise.all(
        callers.flatMap((caller) =>
          Array.from({ length: 5 }, () => (caller ? tokens.used(caller, 'Cursor') : 0)),
        ),
      );
      expect(batches.map((b) => b.length)).toEqual([2]);
      for (const { info } of minted)
        expect((await tokens.list(NORTH, info.id === minted[0]?.info.id ? 'U21' : 'U22'))[0]).toMatchObject({
          lastClient: 'Cursor',
          lastUsedAt: expect.any(String),
        });
    });

    it('a token found usable is kept a short while on this replica: a revoke here ends it at once, one on another replica within TOKEN_CHECK_KEPT_MS', async () => {
      let clock = Date.parse('2026-12-01T10:00:00Z');
      const now = () => new Date(clock);
      const replica = () =>
        new McpTokens({
          tokens: new CachedMcpTokenRepository(new SqlMcpTokenRepository(store.sql), { now: () => clock }),
          settings: { ttlDays: 90, isolated: true },
          now,
        });
      const [here, there] = [replica(), replica()];
      const own = await here.mint(NORTH, 'U11');
      const others = [await here.mint(NORTH, 'U12'), await here.mint(SOUTH, 'U12')];
      const leaver = await here.mint(NORTH, 'U13');
      for (const { token } of [own, ...others, leaver]) expect(await here.verify(token)).toBeDefined();
      // Revoked here (the owner, an admin, the person deactivated): refused from the next request.
      expect(await here.revoke(NORTH, 'U11', own.info.id)).toBe(true);
      expect(await here.verify(own.token)).toBeUndefined();
      expect(await here.revokePerson(NORTH, 'U13')).toBe(1);
      expect(await here.verify(leaver.token)).toBeUndefined();
      // Revoked on another replica: still taken here until the kept check runs out, then refused.
      expect(await there.revokePerson(NORTH, 'U12')).toBe(1);
      const caller = await here.verify(others[0]?.token ?? '');
      expect(caller).toMatchObject({ userId: 'U12' });
      // A use meanwhile (a host naming itself anew is written down) does not extend the kept check.
      clock += TOKEN_CHECK_KEPT_MS / 2;
      if (caller) await here.used(caller, 'A host renamed');
      clock += TOKEN_CHECK_KEPT_MS / 2 + 1;
      expect(await here.verify(others[0]?.token ?? '')).toBeUndefined();
      // Another workspace's token of the same person was never revoked.
      expect(await here.verify(others[1]?.token ?? '')).toMatchObject({ userId: 'U12', workspace: SOUTH });
    });

    it('a kept token still expires on time, and a token unknown when asked is never kept', async () => {
      let clock = Date.parse('2026-01-01T00:00:00Z');
      const tokens = new McpTokens({
        tokens: new CachedMcpTokenRepository(new SqlMcpTokenRepository(store.sql), { now: () => clock }),
        settings: { ttlDays: 1, isolated: true },
        now: () => new Date(clock),
      });
      const { token } = await tokens.mint(NORTH, 'U14');
      expect(await tokens.verify(token)).toBeDefined();
      clock = Date.parse('2026-01-02T00:00:00Z');
      expect(await tokens.verify(token)).toBeUndefined();
      const unknown = `asm_mcp_${'y'.repeat(43)}`;
      expect(await tokens.verify(unknown)).toBeUndefined();
      await store.sql.query(
        `INSERT INTO mcp_tokens (id, token_hash, workspace, team_id, enterprise_id, user_id, hint, expires_at)
         VALUES ('late', $1, 'T0NORTH', 'T0NORTH', NULL, 'U15', 'asm_mcp_yyyy…', '2027-01-01T00:00:00Z')`,
        [hashOf(unknown)],
      );
      expect(await tokens.verify(unknown)).toMatchObject({ userId: 'U15' });
    });

    it('the app removed from a workspace: every token made there stops working; another workspace’s still works', async () => {
      const tokens = tokensOver(store, () => new Date());
      const north = [await tokens.mint(NORTH, 'U7'), await tokens.mint(NORTH, 'U8')];
      const south = await tokens.mint(SOUTH, 'U7');
      const uninstalls = new Uninstalls({
        installations: store.installations,
        sessions: store.sessions,
        mcpTokens: store.mcpTokens,
        releaseLeases: async () => {},
        logger: createLogger({ secrets: [], level: 'silent' }),
      });
      await uninstalls.uninstalled({ teamId: NORTH.teamId }, 'app_uninstalled');
      for (const { token } of north) expect(await tokens.verify(token)).toBeUndefined();
      expect(await tokens.list(NORTH, 'U7')).toEqual([]);
      expect(await tokens.verify(south.token)).toMatchObject({ userId: 'U7', workspace: SOUTH });
    });

    it('a person who left: every token of theirs in that workspace revoked at once; others’ and another workspace’s still work', async () => {
      const tokens = tokensOver(store, () => new Date());
      const gone = [await tokens.mint(NORTH, 'U9'), await tokens.mint(NORTH, 'U9')];
      const colleague = await tokens.mint(NORTH, 'U10');
      const elsewhere = await tokens.mint(SOUTH, 'U9');
      const before = await tokens.holders(NORTH, 100);
      expect(before.holders.find((h) => h.userId === 'U9')).toMatchObject({ tokens: 2 });
      expect(await tokens.revokePerson(NORTH, 'U9')).toBe(2);
      for (const { token } of gone) expect(await tokens.verify(token)).toBeUndefined();
      expect(await tokens.verify(colleague.token)).toMatchObject({ userId: 'U10' });
      expect(await tokens.verify(elsewhere.token)).toMatchObject({ userId: 'U9', workspace: SOUTH });
      expect(await tokens.revokePerson(NORTH, 'U9')).toBe(0);
      const after = await tokens.holders(NORTH, 100);
      expect(after.holders.map((h) => h.userId)).not.toContain('U9');
      expect(after.holders.map((h) => h.userId)).toContain('U10');
      expect(after.total).toBe(after.holders.length);
      // Bounded: one person asked for, the total still counts them all.
      const one = await tokens.holders(NORTH, 1);
      expect(one.holders).toHaveLength(1);
      expect(one.total).toBe(after.total);
    });
  });
}
