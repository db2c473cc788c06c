import { randomBytes } from 'node:crypto';
import {
  defaultSeed,
  gridSeeds,
  type SandboxView,
  secondSeed,
  withGridMember,
  withSharedChannel,
} from '@agent-sessions/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_KEY, SETUP_TIMEOUT_MS, textOf, WAIT_MS } from './harness.js';
import { forgedKeyLinkForm, homeOf, homeText, pressInHome } from './home-tab.js';
import { HOME, NORTH, type OAuthWorld, type Place, startOAuthWorld, waitForCard } from './oauth-world.js';

// What one workspace does stays in it, with the app installed in several: the home workspace, Northwind
// (sharing #partners with it through Slack Connect: one channel id in both organisations), and Globex
// installed org-wide (Enterprise Grid), where Hank is an admin of Sales and a plain member of Ops.
const SHARED = 'C0PARTNERS';
const HANK = 'U0HANK';
const IVY = 'U0IVY';
const ERIN = 'U0ERIN';
const SALES = 'T0GSALES';
const OPS = 'T0GOPS';

function seeds() {
  const [home, north] = withSharedChannel(defaultSeed(), secondSeed(), {
    id: SHARED,
    name: 'partners',
    members: { a: [HOME.starter], b: [NORTH.starter, ERIN] },
  });
  const grid = withGridMember(gridSeeds(), {
    id: HANK,
    name: 'hank',
    home: SALES,
    teams: [SALES, OPS],
    adminOf: [SALES],
  });
  return { home, workspaces: [north, ...grid] };
}

let w: OAuthWorld;
beforeAll(async () => {
  const { home, workspaces } = seeds();
  w = await startOAuthWorld({
    seed: home,
    workspaces,
    // Erin approves for Northwind, Ivy for Globex Ops; nobody is an approver of Globex Sales.
    env: { AGENT_APPROVERS: `${NORTH.team}:${ERIN},${OPS}:${IVY}`, AGENT_SLACK_SURFACE: 'auto' },
  });
  await w.addBot();
  for (const team of [HOME.team, NORTH.team, 'E0GLOBEX']) expect((await w.install(team)).status).toBe(200);
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await w?.stop();
});

/** Opens a person's App Home tab in a workspace; the tab the bot publishes for it. */
async function openHome(team: string, user: string): Promise<SandboxView> {
  const ws = w.sandbox.workspaceFor(team);
  const before = homeOf(w.sandbox, user, team)?.hash;
  await w.driver(team).appHomeOpened({ user, eventId: `Ev${randomBytes(6).toString('hex')}` });
  return ws.waitFor(
    () => {
      const view = homeOf(w.sandbox, user, team);
      return view && view.hash !== before ? view : undefined;
    },
    { what: `${user}'s Home tab in ${team}`, timeoutMs: WAIT_MS },
  );
}

describe('Enterprise Grid: an admin of one workspace manages no other workspace’s key', () => {
  it('Hank, admin of Sales, opens App Home there, then can neither link nor remove Ops’s key', async () => {
    const bot = w.bots[0];
    if (!bot) throw new Error('no bot');
    // Ivy, Ops's approver, links Ops's key.
    await openHome(OPS, IVY);
    await pressInHome(w.sandbox, w.driver(OPS), IVY, 'keys_link', OPS);
    const ops = w.sandbox.workspaceFor(OPS);
    const form = await ops.waitFor(() => w.driver(OPS).openModal(IVY), {
      what: 'Ivy’s link form',
      timeoutMs: WAIT_MS,
    });
    const linked = await w.driver(OPS).submitView({
      user: IVY,
      viewId: form.id,
      values: { api_key: { value: API_KEY } },
    });
    expect(linked.body).toBeFalsy();
    // The form is acknowledged first; the key is checked with the service and stored after.
    const opsKey = await vi.waitFor(
      async () => {
        const key = await bot.store.serviceKeys.get(`team:${OPS}`);
        expect(key?.linkedBy).toBe(IVY);
        return key;
      },
      { timeout: WAIT_MS, interval: 100 },
    );

    // In Sales, Hank is an admin: his Home tab has the controls (and the bot has just checked him).
    expect(homeText(await openHome(SALES, HANK))).toContain('keys_link');
    // In Ops, a minute later at most, he is not.
    expect(homeText(await openHome(OPS, HANK))).not.toContain('keys_');

    // A press of Ivy's Remove button, sent as Hank in Ops: refused in the app's DM, the key kept.
    const ivysView = homeOf(w.sandbox, IVY, OPS) as SandboxView;
    ops.homeViews.set(HANK, ivysView.id);
    await pressInHome(w.sandbox, w.driver(OPS), HANK, 'keys_remove', OPS);
    await ops.waitFor(
      () =>
        [...ops.messages.values()]
          .flat()
          .find((m) => /Only a workspace admin or one of the bot’s approvers/.test(textOf(m))),
      { what: 'the refusal in Hank’s DM in Ops', timeoutMs: WAIT_MS },
    );
    // A link form he was never given, submitted anyway in Ops.
    const crafted = forgedKeyLinkForm(ops, ivysView, { id: 'VHANKLINK', user: HANK });
    const response = await w.driver(OPS).submitView({
      user: HANK,
      viewId: crafted.id,
      values: { api_key: { value: API_KEY } },
    });
    expect((response.body as { errors?: Record<string, string> }).errors?.api_key).toMatch(
      /Only a workspace admin/,
    );
    expect(await bot.store.serviceKeys.get(`team:${OPS}`)).toMatchObject({
      linkedBy: IVY,
      version: opsKey?.version,
    });
  });
});

describe('Slack Connect: a shared channel’s defaults are each organisation’s own', () => {
  it('Northwind’s saved context reaches Northwind’s sessions there, never the home workspace’s', async () => {
    const north = w.sandbox.workspaceFor(NORTH.team);
    await w.driver(NORTH.team).command({ user: ERIN, channel: SHARED, text: 'settings' });
    const modal = await north.waitFor(() => w.driver(NORTH.team).openModal(ERIN), {
      what: 'Erin’s settings form',
      timeoutMs: WAIT_MS,
    });
    await w.driver(NORTH.team).submitView({
      user: ERIN,
      viewId: modal.id,
      values: { budget: { value: '3' }, context: { value: '{"instructions":"Northwind only"}' } },
    });
    await north.waitFor(
      () =>
        north.ephemerals.find(
          (e) => e.user === ERIN && /New sessions in <#C0PARTNERS> start with/.test(e.text),
        ),
      { what: 'the saved defaults, said to Erin', timeoutMs: WAIT_MS },
    );

    // Northwind's own session there takes them: the defaults work in this channel.
    const northPlace: Place = { team: NORTH.team, channel: SHARED, starter: NORTH.starter };
    const theirs = await w.start(northPlace, 'scenario:complete sum up the week');
    await waitForCard(w.sandbox, northPlace, theirs.cardTs, /Channel defaults: budget \$3\.00/, 'theirs');
    expect((await w.emulator.admin.session(theirs.sessionId))?.context).toMatchObject({
      instructions: 'Northwind only',
    });

    // The home workspace's next session in the same channel gets none of it.
    const homePlace: Place = { team: HOME.team, channel: SHARED, starter: HOME.starter };
    const ours = await w.start(homePlace, 'scenario:complete plan the release');
    await waitForCard(w.sandbox, homePlace, ours.cardTs, /Completed/, 'ours, completed');
    const card = w.sandbox.workspaceFor(HOME.team).findMessage(SHARED, ours.cardTs);
    expect(textOf(card)).not.toContain('Channel defaults');
    const session = await w.emulator.admin.session(ours.sessionId);
    expect(JSON.stringify(session?.context ?? {})).not.toContain('Northwind only');
    expect(session?.maxCostPerSession).not.toBe(3);
  });
});

describe('the agent surface per workspace', () => {
  it('Northwind without agent features goes classic; the home workspace’s sessions keep their status', async () => {
    const north = w.sandbox.workspaceFor(NORTH.team);
    north.agent.configure({ features: 'off' });
    const theirs = await w.start(NORTH, 'scenario:complete tidy the backlog');
    await north.waitFor(
      () =>
        north.apiCalls.find(
          (c) => c.method === 'agents.sessions.setStatus' && c.error === 'feature_disabled',
        ),
      { what: 'Northwind refusing the agent status', timeoutMs: WAIT_MS },
    );
    await waitForCard(w.sandbox, NORTH, theirs.cardTs, /Completed/, 'Northwind’s card, completed');

    const home = w.sandbox.workspaceFor(HOME.team);
    const ours = await w.start(HOME, 'scenario:complete write the summary');
    const status = await home.waitFor(() => home.agent.session(HOME.channel, ours.cardTs), {
      what: 'the home workspace’s session as Slack’s agent session',
      timeoutMs: WAIT_MS,
    });
    expect(status.status).toBeDefined();
    const body = (await (await fetch(`${w.bots[0]?.url}/healthz`)).json()) as { surface?: object };
    expect(body.surface).toMatchObject({ setting: 'auto', classicWorkspaces: 1 });
    expect(JSON.stringify(body.surface)).not.toContain(NORTH.team);
  });
});
