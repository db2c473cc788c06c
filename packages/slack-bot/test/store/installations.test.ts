import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';
import { WorkspaceTokens } from '../../src/services/installs/tokens.js';
import type { SlackInstallation } from '../../src/store/installations.js';
import { inWorkspace, type Workspace } from '../../src/workspace.js';
import { storeBackends } from './backends.js';

const silent = createLogger({ secrets: [], level: 'silent' });

const rnd = () => Math.random().toString(36).slice(2, 10).toUpperCase();

function installation(
  team: string,
  token: string,
  extra: Partial<SlackInstallation> = {},
): SlackInstallation {
  return {
    team: { id: team, name: `Team ${team}` },
    enterprise: undefined,
    user: { id: 'U_INSTALLER', token: undefined, scopes: undefined },
    bot: { token, scopes: ['chat:write'], id: `B${team}`, userId: `U${team}` },
    isEnterpriseInstall: false,
    authVersion: 'v2',
    ...extra,
  };
}

const workspace = (key: string): Workspace => ({
  teamId: key,
  key,
  isEnterpriseInstall: false,
  isolated: true,
});

for (const backend of storeBackends('installs')) {
  describe(`installations and isolation in the store (${backend.name})`, () => {
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

    it('keeps a workspace install under its team, an org-wide one under its organisation; removes them', async () => {
      const team = `T${rnd()}`;
      const org = `E${rnd()}`;
      expect(await a.installations.save(installation(team, 'xoxb-one'))).toBe(team);
      const orgWide = installation('ignored', 'xoxb-org', {
        team: undefined,
        enterprise: { id: org, name: 'Org' },
        isEnterpriseInstall: true,
      } as Partial<SlackInstallation>);
      expect(await a.installations.save(orgWide)).toBe(org);
      expect((await b.installations.find(team))?.bot?.token).toBe('xoxb-one');
      expect((await b.installations.find(org))?.bot?.token).toBe('xoxb-org');
      // A reinstall replaces the tokens.
      await b.installations.save(installation(team, 'xoxb-two'));
      expect((await a.installations.find(team))?.bot?.token).toBe('xoxb-two');
      expect(await a.installations.remove(team)).toBe(true);
      expect(await b.installations.find(team)).toBeUndefined();
      expect(await b.installations.remove(team)).toBe(false);
    });

    it('a state is good once, on any replica, and not after it expires', async () => {
      const state = `s-${rnd()}`;
      await a.installations.saveState(state, { scopes: ['chat:write'] }, new Date(Date.now() + 60_000));
      expect(await b.installations.takeState(state)).toEqual({ scopes: ['chat:write'] });
      expect(await a.installations.takeState(state)).toBeUndefined();
      const old = `s-${rnd()}`;
      await a.installations.saveState(old, { scopes: [] }, new Date(Date.now() - 1_000));
      expect(await b.installations.takeState(old)).toBeUndefined();
    });

    it('two replicas finding a token due refresh it once: the other gets the new token', async () => {
      const team = `T${rnd()}`;
      const now = () => 1_000_000;
      await a.installations.save({
        ...installation(team, 'xoxe.xoxb-old'),
        bot: {
          token: 'xoxe.xoxb-old',
          refreshToken: 'xoxe-1-old',
          expiresAt: now() + 60,
          scopes: ['chat:write'],
          id: 'B1',
          userId: 'U1',
        },
        botTokenLifetime: 43_200,
      } as SlackInstallation);
      const exchanged: string[] = [];
      const replica = (store: SqlStore) =>
        new WorkspaceTokens({
          installations: store.installations,
          logger: silent,
          now,
          exchange: async (refreshToken) => {
            exchanged.push(refreshToken);
            // Slow, as a call to Slack is: the other replica asks meanwhile, while the refresh is claimed.
            await new Promise((done) => setTimeout(done, 300));
            return {
              accessToken: `xoxe.xoxb-new-${exchanged.length}`,
              refreshToken: 'xoxe-1-new',
              expiresIn: 43_200,
            };
          },
        });
      const [one, two] = [replica(a), replica(b)];
      const tokens = await Promise.all([
        one.botToken(workspace(team)),
        two.botToken(workspace(team)),
        one.botToken(workspace(team)),
        two.botToken(workspace(team)),
      ]);
      expect(exchanged).toEqual(['xoxe-1-old']);
      // Whichever replica claims the refresh gets the new token; the other, meanwhile, uses the stored one
      // (still valid for a minute). Which replica claims first is the race the claim settles.
      expect(tokens).toContain('xoxe.xoxb-new-1');
      for (const token of tokens) expect(['xoxe.xoxb-old', 'xoxe.xoxb-new-1']).toContain(token);
      expect(await a.installations.refreshes(team)).toBe(1);
      // Fresh now: asked again, nobody refreshes.
      expect(await two.botToken(workspace(team))).toBe('xoxe.xoxb-new-1');
      expect(exchanged).toHaveLength(1);
    });

    it("a workspace's requests read only its own sessions and prompts, whatever ids they carry", async () => {
      const [t1, t2] = [`T${rnd()}`, `T${rnd()}`];
      const [s1, s2] = [`ses-${rnd()}`, `ses-${rnd()}`];
      const session = (id: string) => ({
        sessionId: id,
        channelId: 'C1',
        cardTs: `${id}.1`,
        startedBy: 'U1',
        goal: 'g',
        budget: null,
      });
      await inWorkspace(workspace(t1), () => a.sessions.create(session(s1)));
      await inWorkspace(workspace(t2), () => b.sessions.create(session(s2)));
      for (const [id] of [[s1], [s2]] as const) {
        await a.prompts.save({
          sessionId: id,
          inputId: 'in1',
          channelId: 'C1',
          messageTs: null,
          request: { inputId: 'in1', kind: 'approval', prompt: 'ok?', raw: {} },
          refKey: `${id}-key`,
        });
      }
      await inWorkspace(workspace(t1), async () => {
        expect((await a.sessions.get(s1))?.teamId).toBe(t1);
        expect(await a.sessions.get(s2)).toBeUndefined();
        expect((await a.sessions.list({ limit: 100 })).map((s) => s.sessionId)).toEqual([s1]);
        expect(await a.sessions.findByThread('C1', `${s2}.1`)).toBeUndefined();
        expect(await a.prompts.find({ sessionId: s2, inputId: 'in1' })).toBeUndefined();
        expect(await a.prompts.find({ refKey: `${s2}-key` })).toBeUndefined();
        expect((await a.prompts.find({ refKey: `${s1}-key` }))?.session.sessionId).toBe(s1);
        // The session and its open questions in one read (MCP's get_session and wait_for_session).
        expect(await a.prompts.sessionWithPending(s2)).toBeUndefined();
        const own = await a.prompts.sessionWithPending(s1);
        expect(own?.session.teamId).toBe(t1);
        expect(own?.pending.map((p) => [p.inputId, p.state, p.request.prompt])).toEqual([
          ['in1', 'pending', 'ok?'],
        ]);
      });
      // Outside any workspace (the lease keeper, reminders' sweep): every session.
      expect((await a.sessions.workspaceOf(s2))?.key).toBe(t2);
      expect(await a.sessions.get(s2)).toBeDefined();
    });

    it("an uninstalled workspace's sessions are followed by no replica; the other's still are", async () => {
      const [t1, t2] = [`T${rnd()}`, `T${rnd()}`];
      const [s1, s2] = [`ses-${rnd()}`, `ses-${rnd()}`];
      const base = { channelId: 'C1', cardTs: null, startedBy: 'U1', goal: 'g', budget: null };
      await inWorkspace(workspace(t1), () => a.sessions.create({ ...base, sessionId: s1 }));
      await inWorkspace(workspace(t2), () => a.sessions.create({ ...base, sessionId: s2 }));
      expect(await b.sessions.detach(t1)).toEqual([s1]);
      const held = await b.leases.acquire(`replica-${rnd()}`, { limit: 10_000, ttlMs: 60_000 });
      expect(held).toContain(s2);
      expect(held).not.toContain(s1);
      // Still there, as the service still has it.
      expect((await a.sessions.get(s1))?.finished).toBe(false);
    });
  });
}
