import type { SpawnedEmulator } from '@agent-sessions/emulator/testing';
import type { RunningBot } from '@agent-sessions/slack-bot';
import type { RunningSandbox } from '@agent-sessions/slack-sandbox';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { actAs, openPage, requireChromium, screenshot, startBotWithSandbox, write } from './page.js';

// A newcomer's first fifteen minutes on the sandbox page, as they go: the first channel (#general), a
// mistyped command, help and the start form, a session with a question, Bob answering it from his Home
// tab, the thread's reply box. Each step checks what a rough edge once got wrong.
const API_KEY = 'emu_browser_newcomer_key_5c1e';

let emulator: SpawnedEmulator;
let sandbox: RunningSandbox;
let bot: RunningBot;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  requireChromium();
  ({ emulator, sandbox, bot } = await startBotWithSandbox({
    apiKey: API_KEY,
    emulatorSpeed: 10,
    sandbox: { rateLimits: false },
    env: { AGENT_APPROVERS: 'U0BOB' },
    needsPersonMs: 1_000,
  }));
  ({ browser, page } = await openPage(sandbox.url));
}, patient(90_000));

afterAll(async () => {
  await browser?.close();
  await bot?.stop();
  await bot?.store.close();
  await sandbox?.close();
  await emulator?.close();
});

const WAIT = { timeout: patient(20_000) };
const shot = (name: string) => screenshot(page, `newcomer-${name}`);
const general = () => page.locator('[data-channel-id="C0GENERAL"]').click();
const conversationAbout = (goal: string): Locator =>
  page.getByTestId('conversation').filter({ hasText: goal }).last();

describe("a newcomer's first fifteen minutes", () => {
  it('a mistyped command is answered as Slack answers it, only to them', async () => {
    await actAs(page, 'U0ALICE');
    await general();
    await write(page, '/agnet start ship it');
    const notice = page.locator('.ephemeral').filter({ hasText: '/agnet is not a valid command' });
    await notice.waitFor(WAIT);
    expect(await notice.getByText('Only visible to you').count()).toBe(1);
  });

  it('help and the start form suggest the same iterations, the service’s default', async () => {
    await write(page, '/agent help');
    const help = page.locator('.ephemeral').filter({ hasText: '/agent start' }).last();
    await help.waitFor(WAIT);
    expect(await help.textContent()).toContain('--max-iterations 50');
    await write(page, '/agent start');
    const modal = page.getByTestId('modal');
    await modal.waitFor(WAIT);
    expect(await modal.locator('[placeholder="50"]').count()).toBe(1);
    await modal
      .getByRole('button', { name: /Cancel|Close/ })
      .first()
      .click();
    await modal.waitFor({ state: 'detached', ...WAIT });
  });

  it('#general works first time: the session has Slack’s status, no stale step while it waits', async () => {
    await write(page, '/agent start scenario:approval ship the newcomer notes');
    const c = conversationAbout('ship the newcomer notes');
    await c.getByRole('button', { name: 'Approve' }).waitFor(WAIT);
    // The bot is in #general: Slack's status pill shows, and nothing told Alice to invite it.
    await c.getByTestId('session-status').first().waitFor(WAIT);
    expect(await page.getByText('is not a member of the channel').count()).toBe(0);
    // Waiting on a person, the card says what it waits for, not a step it is no longer doing.
    await expect.poll(() => c.textContent(), WAIT).toMatch(/Waiting/);
    expect(await c.locator('.message').first().textContent()).not.toContain('Now:');
    await shot('general-waiting');
  });

  it('Bob answers from his Home tab (no message box there), and his Home stays true', async () => {
    await actAs(page, 'U0BOB');
    await page.getByTestId('home-tab').click();
    const home = page.getByTestId('home');
    await home.getByText(/Waiting on you \(1\)/).waitFor(WAIT);
    expect(await page.getByTestId('composer').isVisible()).toBe(false);
    await shot('home-waiting');
    await home.getByRole('button', { name: 'Approve' }).first().click();
    // Not reopened: the bot republishes it once the answer is in.
    await expect.poll(() => home.textContent(), WAIT).not.toMatch(/Waiting on you/);
    expect(await home.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await shot('home-answered');
  });

  it('the thread shows who answered, when (in the reader’s zone), and its reply box says what works', async () => {
    await actAs(page, 'U0ALICE');
    await general();
    const c = conversationAbout('ship the newcomer notes');
    const answered = c.locator('.message').filter({ hasText: 'Approved by' }).first();
    await answered.waitFor(WAIT);
    await answered.getByTestId('slack-date').waitFor(WAIT);
    expect(await answered.textContent()).not.toMatch(/!date|\d{2}:\d{2} UTC/);
    await c.getByTestId('reply-in-thread').first().click();
    await page.getByTestId('reply-chip').waitFor(WAIT);
    const hint = await page.getByTestId('composer').getAttribute('placeholder');
    expect(hint).toBe('Reply in the thread');
    await shot('thread-reply');
  });

  it('Alice’s Home: the session in her own zone’s time, as Slack’s date token shows it', async () => {
    await page.getByTestId('home-tab').click();
    const home = page.getByTestId('home');
    const entry = home
      .locator('.block')
      .filter({ hasText: 'session' })
      .filter({ has: page.getByTestId('slack-date') });
    await entry.first().waitFor(WAIT);
    expect(await home.textContent()).not.toMatch(/!date|UTC/);
    expect(await home.getByTestId('slack-date').first().textContent()).toMatch(/ at \d{1,2}:\d{2}\s?[AP]M$/);
    expect(await page.getByTestId('composer').isVisible()).toBe(false);
  });
});
