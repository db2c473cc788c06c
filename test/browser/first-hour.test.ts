import { readFileSync } from 'node:fs';
import { functionsFromManifest } from '@agent-sessions/slack-sandbox';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { patient } from '../support/patience.js';
import { actAs, botInPage, colouredShare, glyphBox, screenshot, webFonts, write } from './page.js';

// What a newcomer meets in the first hour on the page, as npm start shows it (the scenario panel and the
// manifest's workflows both in the sidebar): each check looks at where things are drawn, not only at
// the DOM, and leaves a screenshot to look at (test-results/browser/first-hour-*.png).
const API_KEY = 'emu_browser_first_hour_key_7d2a';
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));

const live = botInPage({
  apiKey: API_KEY,
  emulatorSpeed: 10,
  sandbox: { rateLimits: false, functions: functionsFromManifest(manifest) },
  env: { AGENT_APPROVERS: 'U0BOB' },
  needsPersonMs: 1_000,
});

const WAIT = { timeout: patient(20_000) };
const shot = (name: string) => screenshot(live.page, `first-hour-${name}`);

// The page redraws a message as its session moves on, detaching it for a moment: a box read just then is
// null, so it is read again until the element is drawn.
async function box(locator: Locator) {
  const drawn = { box: await locator.boundingBox() };
  await expect
    .poll(async () => (drawn.box = await locator.boundingBox()), { timeout: patient(10_000) })
    .not.toBeNull();
  if (!drawn.box) throw new Error('not drawn');
  return drawn.box;
}

describe('the first hour on the sandbox page', () => {
  it('the scenario panel the README promises is in sight at first load', async () => {
    const panel = live.page.locator('#emulator-panel');
    await panel.getByTestId('scenario').waitFor(WAIT);
    await live.page.getByTestId('workflows-panel').waitFor(WAIT);
    const viewport = live.page.viewportSize();
    if (!viewport) throw new Error('no viewport');
    // Its Start button, the bottom of its form, is within the first screen, nothing scrolled.
    const start = await box(panel.getByRole('button', { name: 'Start' }));
    expect(start.y + start.height).toBeLessThanOrEqual(viewport.height);
    await shot('first-load');
  });

  it('no control sticks out of the sidebar, even with a session’s own channel and its long name listed', async () => {
    // As a `--channel` session makes one: named after its goal, up to 80 characters.
    const name = 'agent scenario:free_text prepare the release notes for the whole team';
    live.sandbox.workspace.addChannel(
      { id: 'C0LONGNAME', name, is_private: false, is_im: false, is_member: true },
      ['U0ALICE'],
    );
    await live.page
      .getByTestId('workflow-next')
      .first()
      .locator('option', { hasText: name })
      .waitFor({
        state: 'attached',
        ...WAIT,
      });
    const sidebar = await box(live.page.locator('aside.sidebar'));
    const controls = live.page.locator('aside.sidebar select, aside.sidebar input, aside.sidebar button');
    const outside: string[] = [];
    for (const control of await controls.all()) {
      if (!(await control.isVisible())) continue;
      const b = await box(control);
      if (b.x < sidebar.x || b.x + b.width > sidebar.x + sidebar.width + 0.5)
        outside.push(`${await control.evaluate((e) => e.outerHTML.slice(0, 80))}: ${b.x}+${b.width}`);
    }
    expect(outside).toEqual([]);
    await live.page.getByTestId('workflow-next').first().scrollIntoViewIfNeeded();
    await shot('sidebar-workflows');
  });

  it('an abandoned start form does not come back after a reload, and clicks go through', async () => {
    await actAs(live.page, 'U0ALICE');
    await write(live.page, '/agent start');
    const modal = live.page.getByTestId('modal');
    await modal.waitFor(WAIT);
    await live.page.reload();
    await live.page.getByTestId('user-switcher').waitFor(WAIT);
    await live.page.getByTestId('messages').waitFor(WAIT);
    expect(await modal.count()).toBe(0);
    // Nothing over the page: the Home tab opens at the first click.
    await live.page.getByTestId('home-tab').click({ timeout: patient(5_000) });
    await live.page.getByTestId('home').waitFor(WAIT);
    expect(await modal.count()).toBe(0);
    await shot('after-reload');
  });

  it('the report’s 👍/👎 are drawn without an emoji font, as Slack’s thumb icons', async () => {
    await live.page.locator('[data-channel-id="C0AGENTS"]').click();
    await write(live.page, '/agent start scenario:complete write the first-hour notes');
    const up = live.page.getByRole('button', { name: 'This session went well' }).last();
    const down = live.page.getByRole('button', { name: 'This session went badly' }).last();
    await up.waitFor({ timeout: patient(30_000) });
    for (const button of [up, down]) {
      const icon = await box(button.locator('svg'));
      expect(icon.width).toBeGreaterThanOrEqual(12);
      expect(icon.height).toBeGreaterThanOrEqual(12);
    }
    await up.scrollIntoViewIfNeeded();
    await up.locator('xpath=ancestor::*[contains(@class,"message")][1]').screenshot({
      path: new URL('../../test-results/browser/first-hour-feedback.png', import.meta.url).pathname,
    });
  });

  it('a status emoji is drawn in colour from the page’s own emoji font, whatever fonts the system has', async () => {
    // The session the report above came from: its card's status is a word after an emoji. The face is the
    // page's own (a system font is not in document.fonts), and the glyph it draws is in colour.
    const status = live.page.getByText('✅ Ended · Completed').last();
    await status.waitFor(WAIT);
    await status.scrollIntoViewIfNeeded();
    expect(await webFonts(live.page)).toContain('Noto Color Emoji loaded');
    const glyph = await glyphBox(status, '✅');
    expect(glyph.width).toBeGreaterThanOrEqual(10);
    const png = await live.page.screenshot({
      clip: glyph,
      path: new URL('../../test-results/browser/first-hour-status-emoji.png', import.meta.url).pathname,
    });
    // The status line around it, to look at: a clip of the page (the card is redrawn as it updates).
    await live.page.screenshot({
      clip: await box(status),
      path: new URL('../../test-results/browser/first-hour-status.png', import.meta.url).pathname,
    });
    // ✅ is a green square: most of its box is colour. A box for a missing glyph is text-grey throughout.
    expect(await colouredShare(live.page, png)).toBeGreaterThan(0.3);
  });
});
