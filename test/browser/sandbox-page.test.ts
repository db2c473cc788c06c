import { existsSync, mkdirSync } from 'node:fs';
import { type SpawnedEmulator, spawnEmulator } from '@agent-sessions/emulator/testing';
import { loadConfig, openStore, type RunningBot, startBot } from '@agent-sessions/slack-bot';
import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import { LogLevel, WebClient } from '@slack/web-api';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Everything real: the emulator process, the sandbox server, the bot, and Debian's headless Chromium
// driving the sandbox's page, which talks only to the sandbox.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
const ARTIFACTS = new URL('../../test-results/browser/', import.meta.url).pathname;
const API_KEY = 'emu_browser_key_3e7a';

let emulator: SpawnedEmulator;
let sandbox: RunningSandbox;
let bot: RunningBot;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium-headless-shell`);
  mkdirSync(ARTIFACTS, { recursive: true });
  emulator = await spawnEmulator({ apiKeys: [API_KEY], speed: 10 });
  sandbox = await startSandbox({ emulatorUrl: emulator.url, triggerTtlMs: 10_000 });
  const config = loadConfig({
    SLACK_BOT_TOKEN: sandbox.botToken,
    SLACK_SIGNING_SECRET: sandbox.signingSecret,
    SLACK_API_URL: sandbox.apiUrl,
    AGENT_SERVICE_URL: emulator.url,
    AGENT_API_KEY: API_KEY,
    PORT: '0',
    HOST: '127.0.0.1',
    AGENT_APPROVERS: 'U0BOB',
  });
  if (!config.slack || !config.service) throw new Error('configured above');
  bot = await startBot(
    { ...config, slack: config.slack, service: config.service },
    {
      store: await openStore({}),
      logLevel: 'warn',
      schedule: { activeMinMs: 200, activeMaxMs: 800, needsPersonMs: 2_000 },
      cards: { minIntervalMs: 200, maxPerMinute: 3_000 },
    },
  );
  sandbox.connectBot(bot.eventsUrl as string);
  browser = await chromium.launch({ executablePath: CHROMIUM });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(sandbox.url);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await bot?.stop();
  await bot?.store.close();
  await sandbox?.close();
  await emulator?.close();
});

const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png` });

async function actAs(userId: string) {
  await page.getByTestId('user-switcher').selectOption(userId);
}

/** Types `/agent start …` and returns the conversation (card + thread) it started. */
async function start(goal: string): Promise<Locator> {
  await page.getByTestId('composer').fill(`/agent start ${goal}`);
  await page.getByTestId('composer').press('Enter');
  const conversation = page.getByTestId('conversation').filter({ hasText: goal }).last();
  await conversation.waitFor();
  return conversation;
}

describe('the sandbox page', () => {
  it('approval: the card appears, Approve answers it, the prompt shows who approved, the card completes', async () => {
    await actAs('U0ALICE');
    const c = await start('scenario:approval ship the release notes');
    await expect.poll(() => c.getByRole('button', { name: 'Approve' }).count(), { timeout: 20_000 }).toBe(1);
    await shot('approval-prompt');
    await c.getByRole('button', { name: 'Approve' }).click();
    await c.getByText('Approved by').waitFor();
    await c.getByText('Completed').first().waitFor({ timeout: 20_000 });
    await shot('approval-completed');
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      // The whole conversation, card first, for the README.
      await page.setViewportSize({ width: 1280, height: 1180 });
      await page.locator('#messages').evaluate((box) => box.scrollTo(0, 0));
      await page.screenshot({ path: new URL('../../docs/sandbox.png', import.meta.url).pathname });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('someone not allowed sees a refusal only they can see, and the prompt stays', async () => {
    await actAs('U0ALICE');
    const c = await start('scenario:approval rotate the keys');
    await c.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 20_000 });
    await actAs('U0CAROL');
    await c.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Only visible to you').last().waitFor();
    await expect.poll(() => page.locator('.ephemeral').last().textContent()).toContain('Only @alice');
    await shot('refusal');
    expect(await c.getByRole('button', { name: 'Approve' }).count()).toBe(1);
    await actAs('U0ALICE');
    expect(await page.getByText('Only visible to you').count()).toBe(0);
  });

  it('a choice, from the scenario panel', async () => {
    await actAs('U0ALICE');
    await page.getByTestId('scenario').selectOption('single_select');
    await page.locator('#scenario-goal').fill('pick the environment');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    const c = page.getByTestId('conversation').filter({ hasText: 'pick the environment' }).last();
    await c.getByRole('button', { name: 'Canary (5% of traffic)' }).click({ timeout: 20_000 });
    await c.getByText(/^✅ .*answered: Canary/).waitFor();
  });

  it('a multi-choice: tick two boxes, Submit', async () => {
    await actAs('U0ALICE');
    const c = await start('scenario:multi_select pick regions');
    await c.getByText('Europe').waitFor({ timeout: 20_000 });
    await c.getByLabel('Europe').check();
    await c.getByLabel('Asia Pacific').check();
    await c.getByRole('button', { name: 'Submit' }).click();
    // The prompt itself (the card's footer says the latest decision too).
    await c.getByText(/^✅ .*answered: Europe, Asia Pacific/).waitFor();
    await shot('multi-choice');
  });

  it('a form: an empty answer is refused inline, then the answer is sent', async () => {
    await actAs('U0BOB');
    const c = await start('scenario:free_text name it');
    await c.getByRole('button', { name: 'Answer' }).click({ timeout: 20_000 });
    const modal = page.getByTestId('modal');
    await modal.waitFor();
    await modal.getByRole('button', { name: 'Send' }).click();
    await modal.getByRole('alert').waitFor();
    await shot('modal-error');
    await modal.locator('textarea').fill('Borealis');
    await modal.getByRole('button', { name: 'Send' }).click();
    await modal.waitFor({ state: 'detached' });
    await c.getByText('Naming the release "Borealis"').waitFor({ timeout: 20_000 });
  });

  it('/agent help answers privately, as Slack shows a command’s reply', async () => {
    await actAs('U0CAROL');
    await page.getByTestId('composer').fill('/agent help');
    await page.getByTestId('composer').press('Enter');
    await expect
      .poll(() => page.locator('.ephemeral').last().textContent(), { timeout: 10_000 })
      .toContain('/agent redirect');
    await actAs('U0ALICE');
    expect(await page.locator('.ephemeral').filter({ hasText: '/agent redirect' }).count()).toBe(0);
  });

  it('the start form keeps what was typed when a field is refused', async () => {
    await actAs('U0ALICE');
    await page.getByTestId('composer').fill('/agent start');
    await page.getByTestId('composer').press('Enter');
    const modal = page.getByTestId('modal');
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
    const c = page.getByTestId('conversation').filter({ hasText: 'from the form' }).last();
    await c.getByText('Completed').first().waitFor({ timeout: 20_000 });
  });

  it('card buttons: Pause, Resume, and Cancel only once its confirmation is accepted', async () => {
    await actAs('U0ALICE');
    const c = await start('scenario:long keep tidying');
    await c.getByRole('button', { name: 'Pause' }).click({ timeout: 20_000 });
    await c.getByText('Paused').first().waitFor({ timeout: 20_000 });
    await c.getByRole('button', { name: 'Resume' }).click();
    await c.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 20_000 });
    await c.getByRole('button', { name: 'Cancel', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Cancel this session?').waitFor();
    await shot('cancel-confirm');
    await dialog.getByRole('button', { name: 'Keep running' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForTimeout(500);
    expect(await c.getByRole('button', { name: 'Pause' }).count()).toBe(1);
    await c.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel session' }).click();
    await c.getByText('Cancelled').first().waitFor({ timeout: 20_000 });
    expect(await c.getByText('cancelled the session').count()).toBeGreaterThan(0);
  });

  it('the emulator panel lists the sessions; clicking one brings its card into view', async () => {
    await actAs('U0ALICE');
    const first = page.getByTestId('conversation').first();
    // The card's context line alone: the page's text runs blocks together ("…sess_abcLatest decision…").
    const context = await first
      .getByText(/Started by .* session/)
      .first()
      .textContent();
    const id = /sess_[\w-]+/.exec(context ?? '')?.[0] as string;
    expect(id).toMatch(/^sess_/);
    const above = await first.boundingBox();
    expect(above && above.y + above.height).toBeLessThan(0);
    await page.locator(`[data-session-id="${id}"]`).click({ timeout: 10_000 });
    const box = await first.boundingBox();
    expect(box?.y).toBeGreaterThanOrEqual(0);
    expect(box?.y).toBeLessThan(900);
    await shot('panel-to-card');
  });

  it('a private channel: refused until the bot is invited with /invite, then the session starts there', async () => {
    await actAs('U0ALICE');
    await page.locator('[data-channel-id="G0PRIVATE"]').click();
    const composer = page.getByTestId('composer');
    await composer.fill('/agent start scenario:complete audit the keys');
    await composer.press('Enter');
    await page.locator('.ephemeral').filter({ hasText: 'invite me first' }).waitFor({ timeout: 10_000 });
    await shot('private-refused');
    await composer.fill('/invite @agents');
    await composer.press('Enter');
    await page.getByText('has joined the channel').waitFor();
    await composer.fill('/agent start scenario:complete audit the keys');
    await composer.press('Enter');
    const c = page.getByTestId('conversation').filter({ hasText: 'audit the keys' }).last();
    await c.getByText('Completed').first().waitFor({ timeout: 20_000 });
    await page.locator('[data-channel-id="C0AGENTS"]').click();
  });

  it('App Home lists the viewer’s sessions', async () => {
    await actAs('U0ALICE');
    await page.getByTestId('home-tab').click();
    await page.getByTestId('home').getByText('ship the release notes').waitFor();
    await shot('home');
  });

  it('the event log shows an injected failure and a rate-limited call, with its Retry-After', async () => {
    await actAs('U0ALICE');
    // The bot's own card post in #general fails as Slack would fail it.
    sandbox.failNext({ method: 'chat.postMessage', channel: 'C0GENERAL', error: 'is_archived' });
    await page.locator('[data-channel-id="C0GENERAL"]').click();
    await page.getByTestId('composer').fill('/agent start scenario:complete archived channel');
    await page.getByTestId('composer').press('Enter');
    const injected = page.getByTestId('api-call').filter({ hasText: 'is_archived' }).first();
    await injected.waitFor({ timeout: 10_000 });
    expect(await injected.textContent()).toContain('injected');
    expect(await injected.getAttribute('data-outcome')).toBe('failed');

    // Posting faster than Slack allows in one channel: a 429 comes back, and the page shows it.
    const web = new WebClient(sandbox.botToken, {
      slackApiUrl: sandbox.apiUrl,
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
    const refused = page
      .locator('[data-testid="api-call"][data-outcome="ratelimited"]')
      .filter({ hasText: 'C0GENERAL' })
      .first();
    await refused.waitFor({ timeout: 10_000 });
    expect(await refused.textContent()).toMatch(/chat\.postMessage C0GENERAL\s+→ 429 ratelimited/);
    expect(await refused.textContent()).toContain('Retry-After: 1s');
    await page.getByTestId('log-failures').check();
    expect(await page.locator('[data-testid="api-call"][data-outcome="ok"]').count()).toBe(0);
    await shot('event-log');
    await page.getByTestId('log-failures').uncheck();
    await page.locator('[data-channel-id="C0AGENTS"]').click();
  });
});
