import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from './database.js';
import { allLogLines, SETUP_TIMEOUT_MS, WAIT_MS } from './harness.js';
import { HOME, type OAuthWorld, startOAuthWorld } from './oauth-world.js';
import { expectNoSecrets } from './secrets.js';

// Token rotation under two replicas on one PostgreSQL: when the bot token nears its expiry,
// both replicas need it at once, and exactly one refresh happens — Slack's refresh tokens are single-use,
// so a second refresh with the same one would fail.
describe('token rotation with two replicas', () => {
  const database = scratchDatabase('bot_rotation');
  let w: OAuthWorld;
  // The replicas' clock (seconds), moved ahead to bring the token near its expiry; the sandbox keeps its own.
  let ahead = 0;
  const now = () => Math.floor(Date.now() / 1000) + ahead;

  beforeAll(async () => {
    await database.create();
    w = await startOAuthWorld({
      oauth: { tokenRotation: true, tokenLifetimeSeconds: 43_200 },
      databaseUrl: database.url,
      tuning: { installs: { now } },
    });
    await w.addBot();
    await w.addBot();
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await w?.stop();
    await database.drop();
  });

  it('refreshes once when both replicas need the token at the same moment; both then use the new one', async () => {
    expect((await w.install(HOME.team)).body).toContain('data-outcome="installed"');
    const [a, b] = w.bots;
    if (!a || !b) throw new Error('two replicas');
    const stored = async () =>
      (
        await database.query<{ refreshed: number; token: string }>(
          `SELECT refreshed, installation->'bot'->>'token' AS token FROM slack_installations WHERE key = '${HOME.team}'`,
        )
      )[0];
    const first = await stored();
    expect(first?.refreshed).toBe(0);

    // A minute before expiry: due. Each replica is asked at once, twice.
    ahead = 43_200 - 60;
    const ws = w.sandbox.workspaceFor(HOME.team);
    const before = ws.ephemerals.length;
    const asks = [a, b, a, b].map((bot) =>
      w.driver(HOME.team, bot).command({ user: HOME.starter, channel: HOME.channel, text: 'list' }),
    );
    for (const response of await Promise.all(asks)) expect(response.status).toBe(200);
    await ws.waitFor(
      () =>
        ws.ephemerals.slice(before).filter((e) => e.user === HOME.starter).length >= 4 ? true : undefined,
      { what: 'four answers to /agent list', timeoutMs: WAIT_MS },
    );
    const after = await stored();
    expect(after?.refreshed).toBe(1);
    expect(after?.token).not.toBe(first?.token);
    expect(allLogLines.filter((l) => /refreshed a bot token/.test(l))).toHaveLength(1);
    // Filtered, not `some`: a failure prints the lines.
    expect(allLogLines.filter((l) => /invalid_refresh_token|could not refresh a bot token/.test(l))).toEqual(
      [],
    );

    // Both go on with the new token: a session started through the other replica posts its card.
    const started = await w.start(HOME, 'scenario:complete after the refresh', b);
    expect(ws.findMessage(HOME.channel, started.cardTs)).toBeDefined();
    expect((await stored())?.refreshed).toBe(1);
    expectNoSecrets(allLogLines, [...w.secrets(), after?.token ?? 'none', first?.token ?? 'none']);
  });
});
