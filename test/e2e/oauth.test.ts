import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allLogLines, SETUP_TIMEOUT_MS, textOf, WAIT_MS } from './harness.js';
import { HUMAN_INPUT_ROUTE, isPrompt, SIGNAL_ROUTE } from './helpers.js';
import { HOME, NORTH, type OAuthWorld, startOAuthWorld, waitForCard, waitInThread } from './oauth-world.js';
import { expectNoSecrets } from './secrets.js';

// The bot installed through Slack's OAuth in two workspaces of the sandbox — the sandbox's own
// (Alice, #agents) and Northwind (Dana, #agents there) — each with its own token, and neither seeing,
// nor acting on, the other's sessions.

const ERIN = 'U0ERIN';
const AUDIT_TOKEN = 'audit-token-of-the-oauth-run-5c1e';

describe('OAuth installs in two workspaces', () => {
  let w: OAuthWorld;
  beforeAll(async () => {
    // Approvers of both workspaces, app-wide: Erin (Northwind's approver) may act on any session she can
    // see — so only isolation keeps the home workspace's sessions from her.
    w = await startOAuthWorld({ env: { AGENT_APPROVERS: 'S0APPROVERS,S0NAPPROVERS', AUDIT_TOKEN } });
    await w.addBot();
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await w?.stop();
  });

  const stats = async (route: string) => (await w.emulator.admin.stats()).requests[route] ?? 0;
  const north = () => w.sandbox.workspaceFor(NORTH.team);
  const home = () => w.sandbox.workspaceFor(HOME.team);

  it('installs through /slack/install and the redirect; the pages say what happened and hold no secret', async () => {
    const cancelled = await w.install(HOME.team, { cancel: true });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toContain('Installation cancelled');

    const installed = await w.install(HOME.team);
    expect(installed.status).toBe(200);
    expect(installed.body).toContain('data-outcome="installed"');
    const second = await w.install(NORTH.team);
    expect(second.body).toContain('Northwind');

    // The redirect again, its state used already: refused, with a page that says so.
    const bot = w.bots[0];
    const replay = await fetch(`${bot?.url}/slack/oauth_redirect?code=whatever&state=forged.state`);
    expect(replay.status).toBe(400);
    const replayBody = await replay.text();
    expect(replayBody).toContain('Installation failed');
    for (const body of [cancelled.body, installed.body, second.body, replayBody]) {
      expectNoSecrets([body], [...w.secrets(), 'xoxb-', 'xoxe']);
    }
    expect(
      w.sandbox.oauth
        ?.installations()
        .map((i) => i.teamId)
        .sort(),
    ).toEqual([NORTH.team, HOME.team].sort());
  });

  it('a session in each workspace: each card in its own workspace, posted with its own token', async () => {
    const a = await w.start(HOME, 'scenario:approval deploy the home service');
    const b = await w.start(NORTH, 'scenario:approval deploy the northwind service');
    expect(home().findMessage(HOME.channel, a.cardTs)).toBeDefined();
    expect(north().findMessage(NORTH.channel, b.cardTs)).toBeDefined();
    // Nothing of one workspace's session in the other's.
    expect(JSON.stringify([...north().messages.values()])).not.toContain(a.sessionId);
    expect(JSON.stringify([...home().messages.values()])).not.toContain(b.sessionId);
    await waitInThread(w.sandbox, HOME, a.cardTs, isPrompt, 'the home prompt');
    await waitInThread(w.sandbox, NORTH, b.cardTs, isPrompt, 'the northwind prompt');
  });

  it("crafted actions from one workspace carrying another's ids are refused, nothing sent to the service", async () => {
    const a = await w.start(HOME, 'scenario:approval rotate the home keys');
    const prompt = await waitInThread(w.sandbox, HOME, a.cardTs, isPrompt, 'the home prompt');
    const card = home().findMessage(HOME.channel, a.cardTs);
    const dana = w.driver(NORTH.team);
    const [signals, answers] = [await stats(SIGNAL_ROUTE), await stats(HUMAN_INPUT_ROUTE)];

    // The home workspace's card and prompt, copied into Northwind's #agents (blocks, ids and all), clicked.
    const fakeCard = north().post({
      channel: NORTH.channel,
      user: NORTH.starter,
      text: 'copied',
      blocks: card?.blocks ?? [],
    });
    const fakePrompt = north().post({
      channel: NORTH.channel,
      user: NORTH.starter,
      text: 'copied',
      blocks: prompt.blocks ?? [],
    });
    /** What Erin is told privately after `act`: the first ephemeral for her since. */
    const told = async (act: () => Promise<unknown>, what: string) => {
      const before = north().ephemerals.length;
      await act();
      const answer = await north().waitFor(
        () =>
          north()
            .ephemerals.slice(before)
            .find((e) => e.user === ERIN),
        { what, timeoutMs: WAIT_MS },
      );
      return answer.text ?? '';
    };
    const click = (ts: string, actionId: string) => () =>
      dana.act({ user: ERIN, channel: NORTH.channel, ts, actionId });
    const command = (text: string) => () => dana.command({ user: ERIN, channel: NORTH.channel, text });
    const unknown = `There is no session \`${a.sessionId}\` that you can see.`;

    for (const actionId of ['session_pause', 'session_cancel']) {
      expect(await told(click(fakeCard.ts, actionId), `the answer to ${actionId}`)).toContain(unknown);
    }
    expect(await told(click(fakePrompt.ts, 'input_approve'), 'the answer to approve')).toMatch(
      /not known here/,
    );
    // Commands naming the other workspace's session: the answer an unknown id gets.
    for (const text of [`status ${a.sessionId}`, `cancel ${a.sessionId}`, `history ${a.sessionId}`]) {
      expect(await told(command(text), `the answer to /agent ${text}`)).toContain(unknown);
    }
    expect(await told(command('list'), 'the answer to /agent list')).not.toContain(a.sessionId);

    // A modal the bot opened in the home workspace (redirect, its session in private_metadata), submitted
    // from Northwind as Erin's: refused as an unknown id, nothing sent.
    const home_ = w.driver(HOME.team);
    await home_.act({
      user: HOME.starter,
      channel: HOME.channel,
      ts: a.cardTs,
      actionId: 'session_redirect',
    });
    const opened = await home().waitFor(() => home_.openModal(HOME.starter), {
      what: 'the redirect modal',
      timeoutMs: WAIT_MS,
    });
    north().saveView({ ...opened, id: 'VCRAFTED1', user: ERIN, team_id: NORTH.team });
    const refused = await told(
      () =>
        dana.submitView({
          user: ERIN,
          viewId: 'VCRAFTED1',
          values: { message: { value: 'look at the other workspace instead' } },
        }),
      'the answer to the copied redirect form',
    );
    expect(refused).toContain(unknown);

    // App Home: the home workspace's approver (Bob) is asked for its question; Erin, an approver too, is not.
    const homeOf = async (team: string, user: string, eventId: string, pattern: RegExp) => {
      const ws = w.sandbox.workspaceFor(team);
      await w.driver(team).appHomeOpened({ user, eventId });
      return ws.waitFor(
        () => {
          const id = ws.homeViews.get(user);
          const blocks = JSON.stringify((id && ws.views.get(id)?.blocks) ?? '');
          return pattern.test(blocks) ? blocks : undefined;
        },
        { what: `${user}'s Home tab`, timeoutMs: WAIT_MS },
      );
    };
    expect(await homeOf(HOME.team, 'U0BOB', 'EvHOMEBOB', /rotate the home keys/)).toContain(a.sessionId);
    expect(await homeOf(NORTH.team, ERIN, 'EvHOMEERIN', /.+/)).not.toMatch(/rotate the home keys/);

    expect(await stats(SIGNAL_ROUTE)).toBe(signals);
    expect(await stats(HUMAN_INPUT_ROUTE)).toBe(answers);
    // The home session is as it was: still waiting on its question, in its own workspace.
    expect(textOf(home().findMessage(HOME.channel, a.cardTs))).not.toMatch(/Paused|Cancelled/);
    expect(JSON.stringify(north().ephemerals)).not.toContain('rotate the home keys');
  });

  it('uninstalling Northwind stops following its sessions; the home workspace carries on', async () => {
    const a = await w.start(HOME, 'scenario:approval ship the home release');
    const b = await w.start(NORTH, 'scenario:long northwind indexing --max-iterations 100000');
    await waitForCard(w.sandbox, NORTH, b.cardTs, /Running/, 'the northwind session running');
    const bot = w.bots[0];
    // The card says Running as the start finishes; the follower takes the session up beside it.
    await expect.poll(() => bot?.follower.isFollowing(b.sessionId), { timeout: WAIT_MS }).toBe(true);

    const result = await w.sandbox.oauth?.uninstall(NORTH.team, { eventsUrl: bot?.eventsUrl as string });
    expect(result?.events.map((e) => e.type)).toEqual(['tokens_revoked', 'app_uninstalled']);
    // Both acknowledged, the second too, though the tokens were gone by then (Slack sends them in any order).
    expect(result?.events.flatMap((e) => e.deliveries.map((d) => d.status))).toEqual([200, 200]);
    // The bot's own state: polled (the sandbox's waitFor checks again only when Slack's side changes).
    await expect.poll(() => bot?.follower.isFollowing(b.sessionId), { timeout: WAIT_MS }).toBe(false);
    expect(await bot?.store.installations.find(NORTH.team)).toBeUndefined();
    // Logged once the leases are renewed, which may finish after the follower has let the session go.
    await expect
      .poll(
        () =>
          allLogLines.some((l) => /the app was removed from a workspace/.test(l) && l.includes(NORTH.team)),
        { timeout: WAIT_MS },
      )
      .toBe(true);

    // Home: answered, and on to the end.
    const prompt = await waitInThread(w.sandbox, HOME, a.cardTs, isPrompt, 'the home prompt');
    await w
      .driver(HOME.team)
      .act({ user: HOME.starter, channel: HOME.channel, ts: prompt.ts, actionId: 'input_approve' });
    await waitForCard(w.sandbox, HOME, a.cardTs, /Completed/, 'the home session completed');
    expect(bot?.follower.isFollowing(b.sessionId)).toBe(false);
    expectNoSecrets(allLogLines, w.secrets());
    // Every Slack call of the run knew its workspace (a call made outside one is refused and logged).
    expect(allLogLines.filter((l) => /no workspace for this call/.test(l))).toEqual([]);
  });

  it('GET /audit asks which workspace: team=T… reads its records only, none without a team', async () => {
    const audit = (query: string) =>
      fetch(`${w.bots[0]?.url}/audit${query}`, { headers: { authorization: `Bearer ${AUDIT_TOKEN}` } });
    const bare = await audit('');
    expect(bare.status).toBe(400);
    expect(await bare.text()).toContain('team is required');
    const records = async (query: string) =>
      (await (await audit(query)).text())
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { teamId: string | null; userId: string });
    const northOnly = await records(`?team=${NORTH.team}`);
    expect(northOnly.length).toBeGreaterThan(0);
    expect(new Set(northOnly.map((r) => r.teamId))).toEqual(new Set([NORTH.team]));
    const all = await records('?team=*');
    expect(new Set(all.map((r) => r.teamId))).toEqual(new Set([NORTH.team, HOME.team]));
  });

  it('Slack tokens are stored encrypted; a row stored in plain text before is encrypted when a replica starts', async () => {
    const first = w.bots[0];
    if (!first) throw new Error('no bot');
    const rows = async () => {
      const { rows } = await (
        first.store as unknown as { sql: { query<T>(q: string): Promise<{ rows: T[] }> } }
      ).sql.query<{
        key: string;
        installation: unknown;
      }>('SELECT key, installation FROM slack_installations');
      return new Map(rows.map((r) => [r.key, JSON.stringify(r.installation)]));
    };
    for (const [key, text] of await rows())
      expect({ key, plain: /xox[bep]-/.test(text) }).toEqual({ key, plain: false });
    // As a bot before this change stored it: the tokens as they are.
    const legacy = 'T0LEGACY';
    await first.store.installations.save({
      team: { id: legacy, name: 'Legacy' },
      enterprise: undefined,
      isEnterpriseInstall: false,
      bot: { id: 'B0L', userId: 'U0LBOT', token: 'xoxb-legacy-plain-token', scopes: ['chat:write'] },
      user: { id: 'U0L', token: 'xoxp-legacy-user-token', scopes: [] },
    } as Parameters<typeof first.store.installations.save>[0]);
    expect((await rows()).get(legacy)).toContain('xoxb-legacy-plain-token');
    await w.addBot();
    const after = (await rows()).get(legacy) ?? '';
    expect(after).not.toMatch(/xox[bep]-/);
    expect(allLogLines.some((l) => l.includes('tokens now encrypted'))).toBe(true);
  });
});
