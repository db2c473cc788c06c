import { randomBytes } from 'node:crypto';
import type { SandboxView } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { ALICE, API_KEY, BOB, CAROL, textOf, useHarness, WAIT_MS } from './harness.js';
import { forgedKeyLinkForm, homeOf, homeText, pressInHome } from './home-tab.js';

// The default AGENT_KEYS=per-workspace: AGENT_API_KEY (acct_0) serves until an admin or an
// approver (Bob, of S0APPROVERS) links the workspace's own key (acct_1); Carol is neither.
const TEAM_KEY = `emu_team_${randomBytes(8).toString('hex')}`;
const METRICS_TOKEN = `metrics_${randomBytes(12).toString('hex')}`;

const h = useHarness({
  emulatorKeys: [TEAM_KEY],
  env: { AGENT_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'), METRICS_TOKEN },
});

const ws = () => h.sandbox.workspace;
const teamSlot = () => `team:${ws().seed.teamId}`;

async function openHome(user: string): Promise<SandboxView> {
  const before = homeOf(h.sandbox, user)?.hash;
  await h.driver.appHomeOpened({ user, eventId: `Ev${randomBytes(6).toString('hex')}` });
  return ws().waitFor(
    () => {
      const view = homeOf(h.sandbox, user);
      return view && view.hash !== before ? view : undefined;
    },
    { what: `${user}'s Home tab`, timeoutMs: WAIT_MS },
  );
}

const errorsOf = (response: { body: unknown }) =>
  (response.body as { errors?: Record<string, string> } | undefined)?.errors;

describe('the workspace’s service key (AGENT_KEYS=per-workspace)', () => {
  it('with none linked, sessions run under AGENT_API_KEY as before, and record no slot', async () => {
    const { sessionId } = await h.start('scenario:complete hello', ALICE);
    expect((await h.emulator.admin.session(sessionId))?.accountId).toBe('acct_0');
    expect(await h.store.serviceKeys.refOf(sessionId)).toBeNull();
  });

  it('Carol (no admin, no approver) sees no controls, and a crafted press or form changes nothing', async () => {
    const home = await openHome(CAROL);
    expect(homeText(home)).toContain('This workspace’s service key');
    expect(homeText(home)).not.toContain('keys_link');
    // A press of Bob's Link button, sent as Carol: refused in the app's DM, no form opened.
    await openHome(BOB);
    const bobsView = homeOf(h.sandbox, BOB) as SandboxView;
    ws().homeViews.set(CAROL, bobsView.id);
    await pressInHome(h.sandbox, h.driver, CAROL, 'keys_link');
    await ws().waitFor(
      () =>
        [...ws().messages.values()]
          .flat()
          .find((m) => /Only a workspace admin or one of the bot’s approvers/.test(textOf(m))),
      { what: 'the refusal in Carol’s DM', timeoutMs: WAIT_MS },
    );
    expect(h.driver.openModal(CAROL)).toBeUndefined();
    // A form she was never given, submitted anyway.
    const crafted = forgedKeyLinkForm(ws(), bobsView, { id: 'VCRAFTED1', user: CAROL });
    const response = await h.driver.submitView({
      user: CAROL,
      viewId: crafted.id,
      values: { api_key: { value: TEAM_KEY } },
    });
    expect(errorsOf(response)?.api_key).toMatch(/Only a workspace admin/);
    expect(await h.store.serviceKeys.get(teamSlot())).toBeUndefined();
  });

  it('Bob links it: new sessions run under it; /metrics shows METRICS_TOKEN requests and budget per team id, never a key', async () => {
    await openHome(BOB);
    await pressInHome(h.sandbox, h.driver, BOB, 'keys_link');
    const form = await ws().waitFor(() => h.driver.openModal(BOB), {
      what: 'the link form',
      timeoutMs: WAIT_MS,
    });
    expect(
      errorsOf(
        await h.driver.submitView({ user: BOB, viewId: form.id, values: { api_key: { value: TEAM_KEY } } }),
      ),
    ).toBeUndefined();
    const { sessionId, cardTs } = await h.start('scenario:complete hello again', ALICE);
    expect((await h.emulator.admin.session(sessionId))?.accountId).toBe('acct_1');
    expect(await h.store.serviceKeys.refOf(sessionId)).toBe(teamSlot());
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'completed under the workspace key');
    // Alice sees which key, masked, but may not change it.
    const alice = homeText(await openHome(ALICE));
    expect(alice).toContain(`emu_…${TEAM_KEY.slice(-4)}`);
    expect(alice).not.toContain('keys_link');

    const team = ws().seed.teamId;
    // Anyone who reaches the port reads no team id; a wrong token is refused.
    const open = await (await fetch(`${h.bot.url}/metrics`)).text();
    expect(open).toContain('slack_api_calls_total');
    expect(open).not.toContain(team);
    expect(open).not.toContain('by_team');
    const wrong = await fetch(`${h.bot.url}/metrics`, {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    expect(wrong.status).toBe(401);
    const metrics = await (
      await fetch(`${h.bot.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const requests = new RegExp(`agent_service_requests_by_team_total\\{team="${team}"\\} (\\d+)`).exec(
      metrics,
    );
    expect(Number(requests?.[1])).toBeGreaterThan(0);
    // Two keys of this team in use (AGENT_API_KEY's and the linked one), each its own budget.
    expect(metrics).toMatch(new RegExp(`agent_service_budget_requests_per_second\\{team="${team}"\\} 100`));
    expect(metrics).not.toContain(TEAM_KEY);
    expect(metrics).not.toContain(API_KEY);
  });
});
