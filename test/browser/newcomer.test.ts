import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { actAs, botInPage, screenshot, write } from './page.js';

// A newcomer's first fifteen minutes on the sandbox page, as they go: the first channel (#general), a
// mistyped command, help and the start form, a session with a question, Bob answering it from his Home
// tab, the thread's reply box. Each step checks what a rough edge once got wrong.
const API_KEY = 'emu_browser_newcomer_key_5c1e';

const live = botInPage({
  apiKey: API_KEY,
  emulatorSpeed: 10,
  sandbox: { rateLimits: false },
  env: { AGENT_APPROVERS: 'U0BOB' },
  needsPersonMs: 1_000,
});

const WAIT = { timeout: patient(20_000) };
const shot = (name: string) => screenshot(live.page, `newcomer-${name}`);
const general = () => live.page.locator('[data-channel-id="C0GENERAL"]').click();
const conversationAbout = (goal: string): Locator =>
  live.page.getByTestId('conversation').filter({ hasText: goal }).last();

describe("a newcomer's first fifteen minutes", () => {
  it('a mistyped command is answered as Slack answers it, only to them', async () => {
    await actAs(live.page, 'U0ALICE');
    await general();
    await write(live.page, '/agnet start ship it');
    const notice = live.page.locator('.ephemeral').filter({ hasText: '/agnet is not a valid command' });
    await notice.waitFor(WAIT);
    expect(await notice.getByText('Only visible to you').count()).toBe(1);
  });

  it('help and the start form suggest the same iterations, the service’s default', async () => {
    await write(live.page, '/agent help');
    const help = live.page.locator('.ephemeral').filter({ hasText: '/agent start' }).last();
    await help.waitFor(WAIT);
    expect(await help.textContent()).toContain('--max-iterations 50');
    await write(live.page, '/agent start');
    const modal = live.page.getByTestId('modal');
    await modal.waitFor(WAIT);
    expect(await modal.locator('[placeholder="50"]').count()).toBe(1);
    await modal
      .getByRole('button', { name: /Cancel|Close/ })
      .first()
      .click();
    await modal.waitFor({ state: 'detached', ...WAIT });
  });

  it('#general works first time: the session has Slack’s status, no stale step while it waits', async () => {
    await write(live.page, '/agent start scenario:approval ship the newcomer notes');
    const c = conversationAbout('ship the newcomer notes');
    await c.getByRole('button', { name: 'Approve' }).waitFor(WAIT);
    // The bot is in #general: Slack's status pill shows, and nothing told Alice to invite it.
    await c.getByTestId('session-status').first().waitFor(WAIT);
    expect(await live.page.getByText('is not a member of the channel').count()).toBe(0);
    // Waiting on a person, the card says what it waits for, not a step it is no longer doing.
    await expect.poll(() => c.textContent(), WAIT).toMatch(/Waiting/);
    expect(await c.locator('.message').first().textContent()).not.toContain('Now:');
    await shot('general-waiting');
  });

  it('Bob answers from his Home tab (no message box there), and his Home stays true', async () => {
    await actAs(live.page, 'U0BOB');
    await live.page.getByTestId('home-tab').click();
    const home = live.page.getByTestId('home');
    await home.getByText(/Waiting on you \(1\)/).waitFor(WAIT);
    expect(await live.page.getByTestId('composer').isVisible()).toBe(false);
    await shot('home-waiting');
    await home.getByRole('button', { name: 'Approve' }).first().click();
    // Not reopened: the bot republishes it once the answer is in.
    await expect.poll(() => home.textContent(), WAIT).not.toMatch(/Waiting on you/);
    expect(await home.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await shot('home-answered');
  });

  it('the thread shows who answered, when (in the reader’s zone), and its reply box says what works', async () => {
    await actAs(live.page, 'U0ALICE');
    await general();
    const c = conversationAbout('ship the newcomer notes');
    const answered = c.locator('.message').filter({ hasText: 'Approved by' }).first();
    await answered.waitFor(WAIT);
    await answered.getByTestId('slack-date').waitFor(WAIT);
    expect(await answered.textContent()).not.toMatch(/!date|\d{2}:\d{2} UTC/);
    await c.getByTestId('reply-in-thread').first().click();
    await live.page.getByTestId('reply-chip').waitFor(WAIT);
    const hint = await live.page.getByTestId('composer').getAttribute('placeholder');
    expect(hint).toBe('Reply in the thread');
    await shot('thread-reply');
  });

  it('Alice’s Home: the session in her own zone’s time, as Slack’s date token shows it', async () => {
    await live.page.getByTestId('home-tab').click();
    const home = live.page.getByTestId('home');
    const entry = home
      .locator('.block')
      .filter({ hasText: 'session' })
      .filter({ has: live.page.getByTestId('slack-date') });
    await entry.first().waitFor(WAIT);
    expect(await home.textContent()).not.toMatch(/!date|UTC/);
    expect(await home.getByTestId('slack-date').first().textContent()).toMatch(/ at \d{1,2}:\d{2}\s?[AP]M$/);
    expect(await live.page.getByTestId('composer').isVisible()).toBe(false);
  });
});
