import type { RunningBot } from '@agent-sessions/slack-bot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allLogLines, SETUP_TIMEOUT_MS, textOf, WAIT_MS } from './harness.js';
import { HOME, NORTH, type OAuthWorld, startOAuthWorld } from './oauth-world.js';
import { expectNoSecrets } from './secrets.js';

// The operator admits workspaces (SLACK_ALLOWED_TEAMS) and lends the service key (AGENT_API_KEY_TEAMS) under
// OAuth, whose port anyone's Slack can reach. One bot restarted with other settings, over one store:
// 1. only the home workspace admitted, the key lent to none: Northwind can't install; home can, and its
//    starts are refused until a key is linked or lent;
// 2. both admitted, the key lent to both: a session in each;
// 3. home dropped from the list: its commands are acknowledged and ignored, and its session not followed;
// 4. and its waiting question gets no reminder, while Northwind's does.

describe('the workspaces the operator admits, and the key it lends', () => {
  let w: OAuthWorld;
  const sessionsAtService = async () => (await w.emulator.admin.sessions()).length;
  const home = () => w.sandbox.workspaceFor(HOME.team);
  const restart = async (env: Record<string, string>): Promise<RunningBot> => {
    // Stopped and gone from the app's redirect URLs (Slack sends the browser back to the first).
    for (const bot of w.bots.splice(0)) await bot.stop();
    return w.addBot({}, env);
  };

  beforeAll(async () => {
    w = await startOAuthWorld({ env: { SLACK_ALLOWED_TEAMS: HOME.team, AGENT_API_KEY_TEAMS: '' } });
    await w.addBot();
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await w?.stop();
  });

  it('a workspace not in SLACK_ALLOWED_TEAMS cannot install: nothing is stored, and the page says why', async () => {
    const refused = await w.install(NORTH.team);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('data-outcome="refused"');
    expect(refused.body).toContain("isn't open to <strong>Northwind</strong> (T0NORTH)");
    expect(refused.body).toContain('Nothing was installed');
    expectNoSecrets([refused.body], [...w.secrets(), 'xoxb-', 'xoxe']);
    const store = w.bots[0]?.store;
    expect(await store?.installations.find(NORTH.team)).toBeUndefined();
    expect(await store?.installations.keys()).toEqual([]);

    // The admitted one installs as before.
    expect((await w.install(HOME.team)).body).toContain('data-outcome="installed"');
    expect(await store?.installations.keys()).toEqual([HOME.team]);
  });

  it("an admitted workspace with no key linked or lent can't start on the operator's key: nothing at the service", async () => {
    const before = await sessionsAtService();
    const told = home().ephemerals.length;
    const response = await w
      .driver(HOME.team)
      .command({ user: HOME.starter, channel: HOME.channel, text: 'start scenario:complete on whose key' });
    expect(response.status).toBe(200);
    const answer = await home().waitFor(
      () =>
        home()
          .ephemerals.slice(told)
          .find((e) => e.user === HOME.starter),
      { what: 'the answer to /agent start', timeoutMs: WAIT_MS },
    );
    expect(answer.text ?? '').toContain('no Agent Session Service key linked');
    expect(answer.text ?? '').toContain('*Link a key*');
    expect(await sessionsAtService()).toBe(before);
    expect(
      (home().messages.get(HOME.channel) ?? []).some((m) => /session `/.test(textOf(m))),
      'no session card',
    ).toBe(false);
  });

  it('a workspace dropped from SLACK_ALLOWED_TEAMS is served nothing: commands acknowledged, sessions left', async () => {
    // Both admitted and lent the key: a session in each, each waiting on a question.
    const both = await restart({
      SLACK_ALLOWED_TEAMS: `${HOME.team},${NORTH.team}`,
      AGENT_API_KEY_TEAMS: '*',
    });
    for (const place of [HOME, NORTH])
      expect((await w.install(place.team, { bot: both })).body).toContain('data-outcome="installed"');
    const kept = await w.start(NORTH, 'scenario:approval deploy the northwind service', both);
    const dropped = await w.start(HOME, 'scenario:approval deploy the home service', both);

    // Home dropped from the list.
    const bot = await restart({ SLACK_ALLOWED_TEAMS: NORTH.team, AGENT_API_KEY_TEAMS: '*' });
    expect(bot.follower.isFollowing(kept.sessionId)).toBe(true);
    expect(bot.follower.isFollowing(dropped.sessionId)).toBe(false);

    const before = { sessions: await sessionsAtService(), told: home().ephemerals.length };
    const posts = JSON.stringify([...home().messages.values()]);
    const refusals = () =>
      allLogLines.filter(
        (l) => l.includes('SLACK_ALLOWED_TEAMS') && l.includes(HOME.team) && l.includes('"requests"'),
      );
    const driver = w.driver(HOME.team, bot);
    for (const text of ['list', 'start scenario:complete after the drop', `status ${dropped.sessionId}`]) {
      const response = await driver.command({ user: HOME.starter, channel: HOME.channel, text });
      expect(response.status).toBe(200);
      expect(response.body).toBeUndefined();
    }
    await expect.poll(() => refusals().length, { timeout: WAIT_MS }).toBe(1);
    // The refusal is made before any listener runs: nothing answered, posted or started.
    expect(home().ephemerals.length).toBe(before.told);
    expect(JSON.stringify([...home().messages.values()])).toBe(posts);
    expect(await sessionsAtService()).toBe(before.sessions);
    expect(bot.follower.isFollowing(dropped.sessionId)).toBe(false);
    expectNoSecrets(allLogLines, w.secrets());
  });

  it('a dropped workspace gets no reminder for its waiting question; an admitted one does', async () => {
    const both = await restart({
      SLACK_ALLOWED_TEAMS: `${HOME.team},${NORTH.team}`,
      AGENT_API_KEY_TEAMS: '*',
      AGENT_REMIND_AFTER: '0',
    });
    for (const place of [HOME, NORTH])
      expect((await w.install(place.team, { bot: both })).body).toContain('data-outcome="installed"');
    const kept = await w.start(NORTH, 'scenario:approval remind the northwind team', both);
    const dropped = await w.start(HOME, 'scenario:approval remind the home team', both);
    const thread = (place: typeof HOME | typeof NORTH, cardTs: string) =>
      w.sandbox.workspaceFor(place.team).replies(place.channel, cardTs);
    const asked = (place: typeof HOME | typeof NORTH, cardTs: string) =>
      w.sandbox
        .workspaceFor(place.team)
        .waitFor(() => thread(place, cardTs).find((m) => /The agent asks/.test(textOf(m))), {
          what: `the question in ${place.team}`,
        });
    await asked(NORTH, kept.cardTs);
    await asked(HOME, dropped.cardTs);

    // Home dropped; reminders a second after a question, twice. Northwind's second reminder is the marker:
    // by then the pass that sent its first had home's first step due too.
    await restart({
      SLACK_ALLOWED_TEAMS: NORTH.team,
      AGENT_API_KEY_TEAMS: '*',
      AGENT_REMIND_AFTER: '1s',
      AGENT_REMIND_MAX: '2',
    });
    const reminders = (place: typeof HOME | typeof NORTH, cardTs: string) =>
      thread(place, cardTs).filter((m) => /Reminder \d of 2/.test(textOf(m)));
    await w.sandbox
      .workspaceFor(NORTH.team)
      .waitFor(() => reminders(NORTH, kept.cardTs).length >= 2, { what: 'Northwind’s second reminder' });
    expect(reminders(HOME, dropped.cardTs)).toEqual([]);
  });
});
