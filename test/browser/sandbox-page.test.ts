import { LogLevel, WebClient } from '@slack/web-api';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { actAs as actAsIn, botInPage, screenshot, write as writeIn } from './page.js';

// Everything real: the emulator process, the sandbox server, the bot, and Debian's headless Chromium
// driving the sandbox's page, which talks only to the sandbox.
const API_KEY = 'emu_browser_key_3e7a';

const live = botInPage({
  apiKey: API_KEY,
  emulatorSpeed: 10,
  env: { AGENT_APPROVERS: 'U0BOB' },
  needsPersonMs: 2_000,
});

const shot = (name: string) => screenshot(live.page, name);
const write = (text: string) => writeIn(live.page, text);
const actAs = (userId: string) => actAsIn(live.page, userId);

/** The answer the service received to the first question of the session whose goal ends with `goal`. */
async function answerReceived(goal: string): Promise<Record<string, unknown> | undefined> {
  const session = (await live.emulator.admin.sessions()).find((s) => s.goal.endsWith(goal));
  return session?.humanInputs[0]?.answer;
}

/** Types `/agent start …` and returns the conversation (card + thread) it started. */
async function start(goal: string): Promise<Locator> {
  await write(`/agent start ${goal}`);
  // The card shows the goal as people read it: without the emulator's scenario word.
  const shown = goal.replace(/^scenario:\w+ /, '');
  const conversation = live.page.getByTestId('conversation').filter({ hasText: shown }).last();
  await conversation.waitFor();
  return conversation;
}

describe('the sandbox page', () => {
  it('approval: the card appears, Approve answers it, the prompt shows who approved, the card completes', async () => {
    await actAs('U0ALICE');
    const c = await start('scenario:approval ship the release notes');
    await expect
      .poll(() => c.getByRole('button', { name: 'Approve' }).count(), { timeout: patient(20_000) })
      .toBe(1);
    await shot('approval-prompt');
    await c.getByRole('button', { name: 'Approve' }).click();
    await c.getByText('Approved by').waitFor();
    await c
      .getByText('Completed')
      .first()
      .waitFor({ timeout: patient(20_000) });
    await shot('approval-completed');
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      // The whole conversation, card first, for the README.
      await live.page.setViewportSize({ width: 1280, height: 1180 });
      await live.page.locator('#messages').evaluate((box) => box.scrollTo(0, 0));
      await live.page.screenshot({ path: new URL('../../docs/sandbox.png', import.meta.url).pathname });
      await live.page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('someone not allowed sees a refusal only they can see, and the prompt stays', async () => {
    await actAs('U0ALICE');
    const c = await start('scenario:approval rotate the keys');
    await c.getByRole('button', { name: 'Approve' }).waitFor({ timeout: patient(20_000) });
    await actAs('U0CAROL');
    await c.getByRole('button', { name: 'Approve' }).click();
    await live.page.getByText('Only visible to you').last().waitFor();
    await expect.poll(() => live.page.locator('.ephemeral').last().textContent()).toContain('Only @alice');
    await shot('refusal');
    expect(await c.getByRole('button', { name: 'Approve' }).count()).toBe(1);
    await actAs('U0ALICE');
    expect(await live.page.getByText('Only visible to you').count()).toBe(0);
  });

  it('a choice, from the scenario panel', async () => {
    await actAs('U0ALICE');
    await live.page.getByTestId('scenario').selectOption('single_select');
    await live.page.locator('#scenario-goal').fill('pick the environment');
    await live.page.getByRole('button', { name: 'Start', exact: true }).click();
    const c = live.page.getByTestId('conversation').filter({ hasText: 'pick the environment' }).last();
    await c.getByRole('button', { name: 'Canary (5% of traffic)' }).click({ timeout: patient(20_000) });
    await c.getByText(/^✅ .*answered: Canary/).waitFor();
    expect(await answerReceived('pick the environment')).toEqual({ choiceId: 'canary' });
  });

  it('a multi-choice: tick two boxes, Submit', async () => {
    await actAs('U0ALICE');
    const c = await start('scenario:multi_select pick regions');
    await c.getByText('Europe').waitFor({ timeout: patient(20_000) });
    await c.getByLabel('Europe').check();
    await c.getByLabel('Asia Pacific').check();
    await c.getByRole('button', { name: 'Submit' }).click();
    // The prompt itself (the card's footer says the latest decision too).
    await c.getByText(/^✅ .*answered: Europe, Asia Pacific/).waitFor();
    await shot('multi-choice');
    expect(await answerReceived('pick regions')).toEqual({ choiceIds: ['eu', 'ap'] });
  });

  it('a form: an empty answer is refused inline, then the answer is sent', async () => {
    await actAs('U0BOB');
    const c = await start('scenario:free_text name it');
    await c.getByRole('button', { name: 'Answer' }).click({ timeout: patient(20_000) });
    const modal = live.page.getByTestId('modal');
    await modal.waitFor();
    await modal.getByRole('button', { name: 'Send' }).click();
    await modal.getByRole('alert').waitFor();
    await shot('modal-error');
    await modal.locator('textarea').fill('Borealis');
    await modal.getByRole('button', { name: 'Send' }).click();
    await modal.waitFor({ state: 'detached' });
    // The agent's message in the thread (the card's "Now:" line may quote it too while the thread catches up).
    await c
      .getByText('Naming the release "Borealis".', { exact: true })
      .waitFor({ timeout: patient(20_000) });
    expect(await answerReceived('name it')).toEqual({ freeText: 'Borealis' });
  });

  it('/agent help answers privately, as Slack shows a command’s reply', async () => {
    await actAs('U0CAROL');
    await write('/agent help');
    await expect
      .poll(() => live.page.locator('.ephemeral').last().textContent(), { timeout: patient(10_000) })
      .toContain('/agent redirect');
    await actAs('U0ALICE');
    expect(await live.page.locator('.ephemeral').filter({ hasText: '/agent redirect' }).count()).toBe(0);
  });

  it('the start form keeps what was typed when a field is refused', async () => {
    await actAs('U0ALICE');
    await write('/agent start');
    const modal = live.page.getByTestId('modal');
    await modal.waitFor();
    const goal = modal.locator('[data-block="goal"] textarea');
    const context = modal.locator('[data-block="context"] textarea');
    await goal.fill('scenario:complete from the form');
    await context.fill('{"repo": ');
    await modal.getByRole('button', { name: 'Start' }).click();
    await modal.getByRole('alert').waitFor();
    await shot('start-form-error');
    expect(await goal.inputValue()).toBe('scenario:complete from the form');
    expect(await context.inputValue()).toBe('{"repo": ');
    await context.fill('{"repo": "acme/api"}');
    await modal.getByRole('button', { name: 'Start' }).click();
    await modal.waitFor({ state: 'detached' });
    const c = live.page.getByTestId('conversation').filter({ hasText: 'from the form' }).last();
    await c
      .getByText('Completed')
      .first()
      .waitFor({ timeout: patient(20_000) });
  });

  it('card buttons: Pause, Resume, and Cancel only once its confirmation is accepted', async () => {
    await actAs('U0ALICE');
    const c = await start('scenario:long keep tidying');
    await c.getByRole('button', { name: 'Pause' }).click({ timeout: patient(20_000) });
    await c
      .getByText('Paused')
      .first()
      .waitFor({ timeout: patient(20_000) });
    await c.getByRole('button', { name: 'Resume' }).click();
    await c.getByRole('button', { name: 'Pause' }).waitFor({ timeout: patient(20_000) });
    await c.getByRole('button', { name: 'Cancel', exact: true }).click();
    const dialog = live.page.getByRole('dialog');
    await dialog.getByText('Cancel this session?').waitFor();
    await shot('cancel-confirm');
    const signals = async () =>
      (await live.emulator.admin.stats()).requests['POST /v1/sessions/:id/signal'] ?? 0;
    const signalled = await signals();
    await dialog.getByRole('button', { name: 'Keep running' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await c.getByRole('button', { name: 'Pause' }).count()).toBe(1);
    await c.getByRole('button', { name: 'Cancel', exact: true }).click();
    await live.page.getByRole('dialog').getByRole('button', { name: 'Cancel session' }).click();
    await c
      .getByText('Cancelled')
      .first()
      .waitFor({ timeout: patient(20_000) });
    expect(await c.getByText('cancelled the session').count()).toBeGreaterThan(0);
    // The accepted cancel is the marker: "Keep running" sent nothing before it, so it is the one signal.
    expect(await signals()).toBe(signalled + 1);
  });

  it('the emulator panel lists the sessions; clicking one brings its card into view', async () => {
    await actAs('U0ALICE');
    const first = live.page.getByTestId('conversation').first();
    // The card's context line alone: the page's text runs blocks together ("…sess_abcLatest decision…").
    const context = await first
      .getByText(/Started by .* session/)
      .first()
      .textContent();
    const id = /sess_[\w-]+/.exec(context ?? '')?.[0] as string;
    expect(id).toMatch(/^sess_/);
    // Where the card is drawn, read again while the page is redrawing it (a redraw detaches it for a moment).
    const drawn = async () => (await first.boundingBox()) ?? undefined;
    const bottomAbove = async () => {
      const box = await drawn();
      return box && box.y + box.height;
    };
    await expect.poll(bottomAbove, { timeout: patient(10_000) }).toBeLessThan(0);
    await live.page.locator(`[data-session-id="${id}"]`).click({ timeout: patient(10_000) });
    const top = async () => (await drawn())?.y;
    await expect.poll(top, { timeout: patient(10_000) }).toBeGreaterThanOrEqual(0);
    await expect.poll(top, { timeout: patient(10_000) }).toBeLessThan(900);
    await shot('panel-to-card');
  });

  it('a private channel: refused until the bot is invited with /invite, then the session starts there', async () => {
    await actAs('U0ALICE');
    await live.page.locator('[data-channel-id="G0PRIVATE"]').click();
    await write('/agent start scenario:complete audit the keys');
    await live.page
      .locator('.ephemeral')
      .filter({ hasText: 'invite me first' })
      .waitFor({ timeout: patient(10_000) });
    await shot('private-refused');
    await write('/invite @agents');
    await live.page.getByText('has joined the channel').waitFor();
    await write('/agent start scenario:complete audit the keys');
    const c = live.page.getByTestId('conversation').filter({ hasText: 'audit the keys' }).last();
    await c
      .getByText('Completed')
      .first()
      .waitFor({ timeout: patient(20_000) });
    // The refused start started nothing: one session, in the private channel.
    const started = (await live.emulator.admin.sessions()).filter((s) => s.goal.endsWith('audit the keys'));
    expect(started).toHaveLength(1);
    expect(
      live.sandbox.workspace.messages.get('G0PRIVATE')?.some((m) => /audit the keys/.test(m.text ?? '')),
    ).toBe(true);
    await live.page.locator('[data-channel-id="C0AGENTS"]').click();
  });

  it('App Home lists the viewer’s sessions', async () => {
    await actAs('U0ALICE');
    await live.page.getByTestId('home-tab').click();
    const home = live.page.getByTestId('home');
    await home.getByText('ship the release notes').waitFor();
    await shot('home');
    // Alice's, not the session Bob started.
    expect(await home.getByText('pick regions').count()).toBeGreaterThan(0);
    expect(await home.getByText('name it').count()).toBe(0);
  });

  it('the event log shows an injected failure and a rate-limited call, with its Retry-After', async () => {
    await actAs('U0ALICE');
    // The bot's own card post in #general fails as Slack would fail it.
    live.sandbox.failNext({ method: 'chat.postMessage', channel: 'C0GENERAL', error: 'is_archived' });
    await live.page.locator('[data-channel-id="C0GENERAL"]').click();
    await write('/agent start scenario:complete archived channel');
    const injected = live.page.getByTestId('api-call').filter({ hasText: 'is_archived' }).first();
    await injected.waitFor({ timeout: patient(10_000) });
    expect(await injected.textContent()).toContain('injected');
    expect(await injected.getAttribute('data-outcome')).toBe('failed');

    // Posting faster than Slack allows in one channel: a 429 comes back, and the page shows it.
    const web = new WebClient(live.sandbox.botToken, {
      slackApiUrl: live.sandbox.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
    });
    let limited = false;
    for (let i = 0; i < 20 && !limited; i++)
      limited = await web.chat.postMessage({ channel: 'C0GENERAL', text: `burst ${i}` }).then(
        () => false,
        () => true,
      );
    expect(limited).toBe(true);
    // The bot may meet 429s of its own in #agents meanwhile: this one is in #general.
    const refused = live.page
      .locator('[data-testid="api-call"][data-outcome="ratelimited"]')
      .filter({ hasText: 'C0GENERAL' })
      .first();
    await refused.waitFor({ timeout: patient(10_000) });
    expect(await refused.textContent()).toMatch(/chat\.postMessage C0GENERAL\s+→ 429 ratelimited/);
    expect(await refused.textContent()).toContain('Retry-After: 1s');
    await live.page.getByTestId('log-failures').check();
    expect(await live.page.locator('[data-testid="api-call"][data-outcome="ok"]').count()).toBe(0);
    await shot('event-log');
    await live.page.getByTestId('log-failures').uncheck();
    await live.page.locator('[data-channel-id="C0AGENTS"]').click();
  });
});
