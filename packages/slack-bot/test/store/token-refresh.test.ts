import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { patient } from '../../../../test/support/patience.js';
import type { SqlStore } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';
import { slackTokenExchange } from '../../src/services/installs/token-exchange.js';
import { WorkspaceTokens } from '../../src/services/installs/tokens.js';
import type { SlackInstallation } from '../../src/store/installations.js';
import type { Workspace } from '../../src/workspace.js';
import { storeBackends } from './backends.js';

// Token rotation calls Slack (oauth.v2.access): a slow Slack must hold no transaction (on PGlite one held
// transaction stops every query), and two replicas wanting the token make one call between them.

const silent = createLogger({ secrets: [], level: 'silent' });
const boltSilent = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => 'info',
  setName: () => {},
} as unknown as Parameters<typeof slackTokenExchange>[0]['logger'];

const rnd = () => Math.random().toString(36).slice(2, 10).toUpperCase();
const NOW = 1_000_000;

/** A Slack whose oauth.v2.access answers only when released: each call counted, each held until then. */
async function slowSlack() {
  const held: ServerResponse[] = [];
  let calls = 0;
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    if (!req.url?.includes('oauth.v2.access')) {
      res.writeHead(404).end();
      return;
    }
    calls += 1;
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    calls: () => calls,
    held: () => held.length,
    release() {
      for (const res of held.splice(0)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ok: true,
            access_token: `xoxe.xoxb-new-${calls}`,
            refresh_token: 'xoxe-1-new',
            expires_in: 43_200,
            token_type: 'bot',
          }),
        );
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const workspace = (key: string): Workspace => ({
  teamId: key,
  key,
  isEnterpriseInstall: false,
  isolated: true,
});

/** An installation whose bot token is due for its refresh, `validFor` seconds from expiring. */
const dueInstallation = (team: string, validFor: number) =>
  ({
    team: { id: team, name: team },
    enterprise: undefined,
    isEnterpriseInstall: false,
    authVersion: 'v2',
    user: { id: 'U_INSTALLER', token: undefined, scopes: undefined },
    bot: {
      token: 'xoxe.xoxb-old',
      refreshToken: 'xoxe-1-old',
      expiresAt: NOW + validFor,
      scopes: ['chat:write'],
      id: 'B1',
      userId: 'U1',
    },
    botTokenLifetime: 43_200,
  }) as SlackInstallation;

for (const backend of storeBackends('token_refresh')) {
  describe(`a token refresh across replicas (${backend.name})`, () => {
    let a: SqlStore;
    let b: SqlStore;
    let slack: Awaited<ReturnType<typeof slowSlack>>;
    beforeAll(async () => {
      a = await backend.open();
      b = backend.name === 'PostgreSQL' ? await backend.open() : a;
    });
    afterEach(async () => {
      slack?.release();
      await slack?.close();
    });
    afterAll(async () => {
      if (b !== a) await b?.close();
      await a?.close();
      await backend.cleanup();
    });

    const replica = (store: SqlStore, timeoutMs?: number) =>
      new WorkspaceTokens({
        installations: store.installations,
        logger: silent,
        now: () => NOW,
        claimPollMs: 10,
        exchange: slackTokenExchange({
          clientId: 'C1',
          clientSecret: 'secret',
          apiUrl: slack.apiUrl,
          logger: boltSilent,
          ...(timeoutMs ? { timeoutMs } : {}),
        }),
      });

    it('while Slack is slow to answer the refresh, the store answers every other query at once', async () => {
      slack = await slowSlack();
      const team = `T${rnd()}`;
      await a.installations.save(dueInstallation(team, 60));
      const one = replica(a);
      const refreshed = one.botToken(workspace(team));
      await expect.poll(slack.calls).toBe(1);
      // Slack holds the call: the store is not held with it.
      expect(await a.sql.query('SELECT 1 AS one')).toEqual({ rows: [{ one: 1 }] });
      expect((await a.installations.find(team))?.bot?.token).toBe('xoxe.xoxb-old');
      await a.installations.save(dueInstallation(`T${rnd()}`, 60));
      // Another replica wanting the token meanwhile uses the old one, still valid, and calls no one.
      expect(await replica(b).botToken(workspace(team))).toBe('xoxe.xoxb-old');
      expect(slack.held()).toBe(1);
      slack.release();
      expect(await refreshed).toBe('xoxe.xoxb-new-1');
      expect(slack.calls()).toBe(1);
      expect(await a.installations.refreshes(team)).toBe(1);
    });

    it('two replicas needing an expired token make one Slack call; both get the new token', async () => {
      slack = await slowSlack();
      const team = `T${rnd()}`;
      await a.installations.save(dueInstallation(team, -5));
      const [one, two] = [replica(a), replica(b)];
      const tokens = Promise.all([one.botToken(workspace(team)), two.botToken(workspace(team))]);
      await expect.poll(slack.calls).toBe(1);
      slack.release();
      expect(await tokens).toEqual(['xoxe.xoxb-new-1', 'xoxe.xoxb-new-1']);
      expect(slack.calls()).toBe(1);
      expect(await a.installations.refreshes(team)).toBe(1);
    });

    it('a Slack that never answers: one call, no retries, given up at the timeout; the claim is let go', async () => {
      slack = await slowSlack();
      const team = `T${rnd()}`;
      await a.installations.save(dueInstallation(team, 60));
      // Still valid: the failed refresh leaves the stored token serving. The timeout is long enough for the
      // call to reach this Slack first on a busy machine (at 200 ms, at load 18, it was given up unsent).
      expect(await replica(a, patient(500)).botToken(workspace(team))).toBe('xoxe.xoxb-old');
      expect(slack.calls()).toBe(1);
      // The claim is free again: the next refresh is made at once, by any replica.
      const next = replica(b).botToken(workspace(team));
      await expect.poll(slack.calls).toBe(2);
      slack.release();
      expect(await next).toBe('xoxe.xoxb-new-2');
    });
  });
}
