import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SpawnedEmulator, spawnEmulator } from '@agent-sessions/emulator/testing';
import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotProcess, spawnBot } from '../e2e/bot-process.js';
import { expectNoSecrets } from '../e2e/secrets.js';
import { patient } from '../support/patience.js';
import { actAs, openPage, requireChromium, write } from './page.js';

// OAuth installs and service keys, in the browser: a person installs the app from the sandbox page's "Add to
// Slack" (the bot's install page, Slack's authorize page, Allow, the bot's "installed" page), cancels in a
// second workspace, then links the workspace's service key in App Home — shown masked from then on, never
// whole — and the next session runs under that key (the emulator records it). The bot runs as production runs
// it (`node dist/main.js`, OAuth settings in its environment), the emulator as its own process.
const API_KEY = `emu_browser_oauth_${randomBytes(8).toString('hex')}`;
const STATE_SECRET = `state_${randomBytes(16).toString('hex')}`;
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const ARTIFACTS = new URL('../../test-results/browser/', import.meta.url).pathname;
const DOCS = new URL('../../docs/', import.meta.url).pathname;
const HOME_TEAM = 'T0SANDBOX';
const NORTH_TEAM = 'T0NORTH';
const BOB = 'U0BOB';

let emulator: SpawnedEmulator;
let sandbox: RunningSandbox;
let bot: BotProcess;
let botUrl: string;
let dataDir: string;
let browser: Browser;
let page: Page;
/** The account the workspace's key belongs to, made with the emulator as the service's app would. */
let account: { key: string; accountId: string; keyIndex: number };
const output: string[] = [];

beforeAll(async () => {
  requireChromium();
  emulator = await spawnEmulator({ apiKeys: [API_KEY], speed: 10 });
  sandbox = await startSandbox({
    oauth: true,
    emulatorUrl: emulator.url,
    triggerTtlMs: 10_000,
    waitTimeoutMs: patient(10_000),
  });
  const oauth = sandbox.oauth;
  if (!oauth) throw new Error('the sandbox was started without OAuth');
  dataDir = mkdtempSync(join(tmpdir(), 'browser-oauth-'));
  bot = await spawnBot(
    {
      SLACK_CLIENT_ID: oauth.clientId,
      SLACK_CLIENT_SECRET: oauth.clientSecret,
      SLACK_STATE_SECRET: STATE_SECRET,
      SLACK_SIGNING_SECRET: sandbox.signingSecret,
      SLACK_API_URL: sandbox.apiUrl,
      SLACK_AUTHORIZE_URL: oauth.authorizeUrl,
      AGENT_SERVICE_URL: emulator.url,
      AGENT_API_KEY: API_KEY,
      AGENT_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
      // The one workspace installed here; the operator's key lent to none (the session runs on Bob's link).
      SLACK_ALLOWED_TEAMS: HOME_TEAM,
      // Bob decides for the bot: he may link the workspace's key (as a workspace admin may).
      AGENT_APPROVERS: BOB,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
    },
    output,
  );
  botUrl = new URL(bot.eventsUrl).origin;
  // The app's settings once the bot's address is known: its Redirect URL, and where "Add to Slack" goes.
  oauth.setRedirectUrls([`${botUrl}/slack/oauth_redirect`]);
  oauth.setInstallUrl(`${botUrl}/slack/install`);
  sandbox.connectBot(bot.eventsUrl);

  const email = `owner-${randomBytes(4).toString('hex')}@example.com`;
  const signup = await fetch(`${emulator.url}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  });
  if (!signup.ok) throw new Error(`signup answered ${signup.status}`);
  account = await emulator.admin.mintKey(email);
  ({ browser, page } = await openPage(sandbox.url));
}, patient(120_000));

afterAll(async () => {
  await browser?.close();
  await bot?.kill();
  await sandbox?.close();
  await emulator?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Saved for the run; into docs/ too (the README's) when UPDATE_DOCS_SCREENSHOT=1. */
async function shot(target: Page | Locator, name: string, docs = false, height?: number) {
  const clip = height ? { clip: { x: 0, y: 0, width: 1280, height } } : {};
  await target.screenshot({ path: `${ARTIFACTS}${name}.png`, ...clip });
  if (docs && process.env.UPDATE_DOCS_SCREENSHOT === '1')
    copyFileSync(`${ARTIFACTS}${name}.png`, `${DOCS}${name}.png`);
}

/** From the sandbox page's "Add to Slack" to Slack's authorize page, through the bot's install page. */
async function addToSlack(): Promise<void> {
  await page.getByTestId('add-to-slack').click();
  await page.waitForURL(`${botUrl}/slack/install`);
  await page.getByRole('link', { name: 'Add to Slack' }).click();
  await page.getByTestId('oauth-authorize').waitFor();
  expect(page.url().startsWith(`${sandbox.url}/oauth/v2/authorize?`)).toBe(true);
}

async function showWorkspace(team: string): Promise<void> {
  await page.goto(sandbox.url);
  const switcher = page.getByTestId('workspace-switcher');
  await switcher.waitFor();
  if ((await switcher.inputValue()) === team) return;
  await Promise.all([page.waitForEvent('load'), switcher.selectOption(team)]);
  await expect.poll(() => page.getByTestId('workspace-switcher').inputValue()).toBe(team);
}

describe('"Add to Slack" and a service key linked in App Home, in the browser', () => {
  it('installs from the sandbox page: the bot’s install page, Slack’s authorize page, Allow, "Installed"', async () => {
    await showWorkspace(HOME_TEAM);
    await expect.poll(() => page.getByTestId('app-status').textContent()).toMatch(/Add to Slack/);
    await addToSlack();
    await page.getByTestId('oauth-workspace').selectOption(`${HOME_TEAM}|${BOB}`);
    await shot(page.locator('main'), 'oauth-authorize', true);
    await page.getByTestId('oauth-allow').click();
    await page.waitForURL((url) => url.href.startsWith(`${botUrl}/slack/oauth_redirect?`));
    await page.locator('[data-outcome="installed"]').waitFor();
    expect(await page.locator('body').textContent()).toMatch(/Agent Sessions is installed in/);
    expect(sandbox.oauth?.installation(HOME_TEAM)).toMatchObject({ installerUserId: BOB });
    expectNoSecrets(
      [await page.content()],
      [STATE_SECRET, sandbox.oauth?.clientSecret ?? 'no client secret', 'xoxb-', 'xoxe'],
    );

    await showWorkspace(HOME_TEAM);
    await expect.poll(() => page.getByTestId('app-status').textContent()).toMatch(/installed/);
    expect(await page.getByTestId('uninstall-app').count()).toBe(1);
  });

  it('in a second workspace, Cancel on the authorize page: "Installation cancelled", nothing installed', async () => {
    await showWorkspace(NORTH_TEAM);
    await expect.poll(() => page.getByTestId('app-status').textContent()).toMatch(/Add to Slack/);
    await addToSlack();
    await page.getByTestId('oauth-workspace').selectOption(`${NORTH_TEAM}|U0DANA`);
    await page.getByTestId('oauth-cancel').click();
    await page.locator('[data-outcome="cancelled"]').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Installation cancelled');
    expect(sandbox.oauth?.installation(NORTH_TEAM)).toBeUndefined();
    expect(sandbox.oauth?.installations().map((i) => i.teamId)).toEqual([HOME_TEAM]);
  });

  it('Bob links the workspace’s key in App Home: the form, then the key masked, never whole again', async () => {
    await showWorkspace(HOME_TEAM);
    await actAs(page, BOB);
    await page.getByTestId('home-tab').click();
    const home = page.getByTestId('home');
    await home.getByText('No key linked').waitFor({ timeout: patient(20_000) });
    await home.getByRole('button', { name: 'Link a key' }).click();
    const modal = page.getByTestId('modal');
    await modal.getByText('Service key').first().waitFor();
    await shot(modal, 'keys-link-form', true);
    await modal.locator('input[data-block="api_key"]').fill(account.key);
    await modal.getByRole('button', { name: 'Check and link' }).click();
    await modal.waitFor({ state: 'detached', timeout: patient(20_000) });
    const hint = `emu_…${account.key.slice(-4)}`;
    await home.getByText(hint).waitFor({ timeout: patient(20_000) });
    expect(await home.textContent()).toMatch(/linked by/);
    // The page's top: the workspace (the app installed there) and the Home tab with the key masked.
    await shot(page, 'keys-home', true, 400);
    // Never shown whole again: not on the page, not in any view the bot published, not in the bot's log.
    expect(await page.content()).not.toContain(account.key);
    expect(JSON.stringify([...sandbox.workspace.views.values()])).not.toContain(account.key);
    // The form to replace it names the linked one by its mask only.
    await home.getByRole('button', { name: 'Replace the key' }).click();
    await modal.getByText(`Linked now: ${hint}`).waitFor();
    expect(await modal.textContent()).not.toContain(account.key);
    await modal.getByRole('button', { name: 'Cancel' }).click();
    await modal.waitFor({ state: 'detached' });
  });

  it('a session started afterwards runs under that key: the emulator records its account', async () => {
    await actAs(page, 'U0ALICE');
    await page.locator('[data-channel-id="C0AGENTS"]').click();
    const before = (await emulator.admin.stats()).byKeyIndex[String(account.keyIndex)] ?? 0;
    await write(page, '/agent start scenario:complete summarize the week under the linked key');
    const conversation = page
      .getByTestId('conversation')
      .filter({ hasText: 'summarize the week under the linked key' })
      .last();
    await conversation.waitFor({ timeout: patient(20_000) });
    const goal = 'summarize the week under the linked key';
    const accountOfSession = async () =>
      (await emulator.admin.sessions()).find((s) => s.goal.includes(goal))?.accountId;
    await expect.poll(accountOfSession, { timeout: patient(20_000) }).toBe(account.accountId);
    expect((await emulator.admin.stats()).byKeyIndex[String(account.keyIndex)] ?? 0).toBeGreaterThan(before);
    await conversation
      .getByText('Completed')
      .first()
      .waitFor({ timeout: patient(30_000) });
    expectNoSecrets(output, [
      account.key,
      API_KEY,
      STATE_SECRET,
      ENCRYPTION_KEY,
      sandbox.signingSecret,
      sandbox.oauth?.clientSecret ?? 'no client secret',
    ]);
  });
});
