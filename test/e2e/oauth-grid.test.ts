import { gridSeeds, secondSeed } from '@agent-sessions/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allLogLines, SETUP_TIMEOUT_MS, WAIT_MS } from './harness.js';
import { GLOBEX_SALES, NORTH, type OAuthWorld, startOAuthWorld } from './oauth-world.js';

// An org-wide install on Enterprise Grid: one installation for Globex (E0GLOBEX), kept under
// the organisation's id, serves its workspaces; Northwind, installed on its own, sees none of it.
describe('an org-wide install beside a workspace install', () => {
  let w: OAuthWorld;
  beforeAll(async () => {
    w = await startOAuthWorld({ workspaces: [secondSeed(), ...gridSeeds()] });
    await w.addBot();
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await w?.stop();
  });

  it('installs org-wide, keeps it under the organisation, and runs a session from one of its workspaces', async () => {
    const org = await w.install('E0GLOBEX');
    expect(org.status).toBe(200);
    expect(org.body).toContain('for the whole organisation');
    expect((await w.install(NORTH.team)).status).toBe(200);
    const bot = w.bots[0];
    const stored = await bot?.store.installations.find('E0GLOBEX');
    expect(stored?.isEnterpriseInstall).toBe(true);
    expect(await bot?.store.installations.find(GLOBEX_SALES.team)).toBeUndefined();

    const { sessionId, cardTs } = await w.start(GLOBEX_SALES, 'scenario:complete the quarterly deal review');
    expect(w.sandbox.workspaceFor(GLOBEX_SALES.team).findMessage(GLOBEX_SALES.channel, cardTs)).toBeDefined();
    expect((await bot?.store.sessions.workspaceOf(sessionId))?.key).toBe('E0GLOBEX');

    // Northwind asks after it: unknown there.
    const north = w.sandbox.workspaceFor(NORTH.team);
    const before = north.ephemerals.length;
    await w
      .driver(NORTH.team)
      .command({ user: NORTH.starter, channel: NORTH.channel, text: `status ${sessionId}` });
    const answer = await north.waitFor(
      () => north.ephemerals.slice(before).find((e) => e.user === NORTH.starter),
      { what: 'the answer in Northwind', timeoutMs: WAIT_MS },
    );
    expect(answer.text).toContain(`There is no session \`${sessionId}\` that you can see.`);
    expect(allLogLines.filter((l) => /no workspace for this call/.test(l))).toEqual([]);
  });
});
