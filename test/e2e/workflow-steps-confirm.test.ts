import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { functionsFromManifest, type SandboxView, type StepExecution } from '@agent-sessions/slack-sandbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ALICE, CHANNEL, textOf, useHarness, WAIT_MS } from './harness.js';
import { confirmStep, stepConfirmation } from './helpers.js';
import { homeOf, homeText, pressInHome } from './home-tab.js';

// A workflow's builder writes the step's goal and context; the person who runs it only clicks. Under
// AGENT_KEYS=per-person the session would run on the runner's own key, in their name: so nothing starts
// until they confirm what they see (the goal defused, the budget, the channel, the context), and a
// decline fails the step and starts nothing.
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
const h = useHarness({
  env: {
    AGENT_KEYS: 'per-person',
    AGENT_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WORKFLOW_STEP_CHECK_EVERY: '200ms',
  },
  sandbox: { functions: functionsFromManifest(manifest) },
});
const ws = () => h.sandbox.workspace;
let alice: { key: string; keyIndex: string };

/** Alice's own key, made for her account at the service and linked in her Home tab. */
beforeAll(async () => {
  const email = `alice-${randomBytes(4).toString('hex')}@example.com`;
  const signup = await fetch(`${h.emulator.url}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse' }),
  });
  if (!signup.ok) throw new Error(`signup answered ${signup.status}`);
  const minted = await h.emulator.admin.mintKey(email);
  alice = { key: minted.key, keyIndex: String(minted.keyIndex) };
  await h.driver.appHomeOpened({ user: ALICE, eventId: `Ev${randomBytes(6).toString('hex')}` });
  await ws().waitFor(() => homeOf(h.sandbox, ALICE), { what: 'Alice’s Home tab', timeoutMs: WAIT_MS });
  await pressInHome(h.sandbox, h.driver, ALICE, 'keys_link');
  const form = await ws().waitFor(() => h.driver.openModal(ALICE), {
    what: 'the key form',
    timeoutMs: WAIT_MS,
  });
  await h.driver.submitView({ user: ALICE, viewId: form.id, values: { api_key: { value: alice.key } } });
  await ws().waitFor(
    () => (homeText(homeOf(h.sandbox, ALICE)).includes(alice.key.slice(-4)) ? true : undefined),
    { what: 'Alice’s key linked', timeoutMs: WAIT_MS },
  );
});

const finished = (id: string) =>
  ws().waitFor(
    () => {
      const e = ws().workflows.executions.get(id);
      return e && e.state !== 'running' ? e : undefined;
    },
    { what: `step execution ${id} completed`, timeoutMs: WAIT_MS },
  );

/** What the bot shows or starts for a goal: its cards in Slack, its sessions at the service. */
const cardsFor = (marker: string) =>
  [...ws().messages.values()].flat().filter((m) => textOf(m).includes(marker) && /session `/.test(textOf(m)));
const sessionsFor = async (marker: string) =>
  (await h.emulator.admin.sessions()).filter((s) => s.goal.includes(marker));

/** The modal's text as Slack renders it: every text object, fields included. */
const shownIn = (view: SandboxView) => JSON.stringify(view.blocks);

describe('a workflow step asks the person who ran it before starting a session in their name', () => {
  it('starts nothing until Alice confirms; her confirmation shows the builder’s goal defused; then it runs on her own key', async () => {
    const marker = `nightly-${randomBytes(3).toString('hex')}`;
    const goal = `scenario:complete ${marker} <!channel> sign in at <https://evil.example|https://sso.corp.example> and <@U0CFO>`;
    const step = await h.driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal, channel: CHANNEL, budget: 2, context: '{"repo": "acme/api"}' },
      user: ALICE,
    });
    const view = await stepConfirmation(ws(), h.driver, ALICE);
    // Asked, and nothing else yet: no card, no session at the service, the step still running.
    expect(cardsFor(marker)).toEqual([]);
    expect(await sessionsFor(marker)).toEqual([]);
    expect(ws().workflows.executions.get(step.execution.id)?.state).toBe('running');
    const shown = shownIn(view);
    expect(shown).toContain(marker);
    expect(shown).toContain('your own');
    expect(shown).toContain('$2.00');
    expect(shown).toContain(`<#${CHANNEL}>`);
    expect(shown).toContain('repo');
    // Defused as every text the bot didn't write: no broadcast, no person, no link whose label lies.
    expect(shown).not.toContain('<!channel>');
    expect(shown).not.toContain('<@U0CFO>');
    expect(shown).not.toContain('<https://evil.example|');
    expect(shown).toContain('https://evil.example');

    await confirmStep(ws(), h.driver, ALICE);
    const done = await finished(step.execution.id);
    expect(done).toMatchObject({ state: 'completed', outputs: { status: 'completed' } });
    const [session] = await sessionsFor(marker);
    expect(session).toBeDefined();
    expect((await h.emulator.admin.stats()).byKeyIndex[alice.keyIndex] ?? 0).toBeGreaterThan(0);
    expect(cardsFor(marker)).toHaveLength(1);
    expect(textOf(cardsFor(marker)[0])).toContain(`<@${ALICE}>`);
  });

  it('a decline (Cancel) fails the step saying the runner declined, and starts nothing; a later Start changes nothing', async () => {
    const marker = `declined-${randomBytes(3).toString('hex')}`;
    const step = await h.driver.runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: `scenario:complete ${marker}`, channel: CHANNEL },
      user: ALICE,
    });
    const view = await stepConfirmation(ws(), h.driver, ALICE);
    const closed = await h.driver.closeView({ user: ALICE, viewId: view.id });
    expect(closed?.status).toBe(200);
    const failed: StepExecution = await finished(step.execution.id);
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/declined to start this step’s agent session/);
    // The same confirmation submitted after all (a second tab): the step no longer waits, nothing starts.
    const late = await h.driver.submitView({ user: ALICE, viewId: view.id, values: {} });
    expect(late.status).toBe(200);
    expect(JSON.stringify(late.body)).toContain('no longer waits for your answer');
    expect(cardsFor(marker)).toEqual([]);
    expect(await sessionsFor(marker)).toEqual([]);
    expect(ws().workflows.executions.get(step.execution.id)).toMatchObject({ completions: 1, refused: [] });
  });
});
