import { copyFileSync } from 'node:fs';
import { scenarioPrompts } from '@agent-sessions/emulator';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { actAs as actAsIn, botInPage, screenshot } from './page.js';

// Slack's agent surface, the bot side in the page: a session started from the Messages tab's suggested
// prompt, its question answered while Slack shows it "suspended", "processing" again, and a second session
// stopped with Slack's Stop button (the emulator records the cancel).
const API_KEY = 'emu_browser_agent_key_51c8';
const PROMPTS = scenarioPrompts();
const DOCS = new URL('../../docs/', import.meta.url).pathname;

const live = botInPage({
  apiKey: API_KEY,
  // Real time: each state lasts a second or more, long enough to be seen on the page.
  emulatorSpeed: 1,
  env: { AGENT_SUGGESTED_PROMPTS: JSON.stringify(PROMPTS) },
  needsPersonMs: 1_000,
});

/** Saved for the run; the README's (`docs`) into docs/ too when UPDATE_DOCS_SCREENSHOT=1. */
async function shot(name: string, docs = false) {
  await screenshot(live.page, name);
  if (docs && process.env.UPDATE_DOCS_SCREENSHOT === '1')
    copyFileSync(
      new URL(`../../test-results/browser/${name}.png`, import.meta.url).pathname,
      `${DOCS}${name}.png`,
    );
}

/**
 * Into view for a screenshot. The page draws again whenever the sandbox changes, so the element may be
 * replaced mid-scroll: scrolled again until it holds still.
 */
async function scrollTo(target: Locator): Promise<void> {
  await expect
    .poll(
      () =>
        target.scrollIntoViewIfNeeded({ timeout: 2_000 }).then(
          () => true,
          () => false,
        ),
      { timeout: patient(20_000) },
    )
    .toBe(true);
}

/** The conversation a suggested prompt started: its message, the card and thread under it, its session pill. */
async function fromPrompt(index: number): Promise<{ conversation: Locator; pill: Locator }> {
  const prompt = PROMPTS[index] as { title: string; message: string };
  await live.page.locator(`[data-testid="suggested-prompt"][data-prompt-index="${index}"]`).click();
  const conversation = live.page.getByTestId('conversation').filter({ hasText: prompt.message }).last();
  await conversation
    .getByTestId('thread')
    .getByText(/Started by/)
    .first()
    .waitFor({ timeout: patient(20_000) });
  return { conversation, pill: conversation.getByTestId('session-status') };
}

const statusIs = (pill: Locator, status: string) =>
  pill.and(live.page.locator(`[data-status="${status}"]`)).waitFor({ timeout: patient(30_000) });

describe('Slack’s agent surfaces in the page, with the real bot', () => {
  it('Messages tab prompt → suspended while it asks → answered → processing → done; Stop cancels another', async () => {
    await actAsIn(live.page, 'U0ALICE');
    await live.page.getByTestId('dm-tab').click();
    const prompts = live.page.getByTestId('suggested-prompt');
    await expect.poll(() => prompts.count(), { timeout: patient(15_000) }).toBe(PROMPTS.length);
    await shot('agent-messages-tab');

    // The approval scenario: Slack shows the session working, then suspended on the question.
    const first = await fromPrompt(0);
    await statusIs(first.pill, 'processing');
    await statusIs(first.pill, 'suspended');
    const approve = first.conversation.getByRole('button', { name: 'Approve' });
    await approve.waitFor({ timeout: patient(20_000) });
    await scrollTo(first.pill);
    await shot('agent-suspended', true);
    await approve.click();
    await first.conversation.getByText('Approved by').first().waitFor();
    await statusIs(first.pill, 'processing');
    await scrollTo(first.pill);
    await shot('agent-processing-again');
    await statusIs(first.pill, 'closed');

    // The long scenario: stopped with Slack's Stop button.
    const second = await fromPrompt(3);
    await statusIs(second.pill, 'processing');
    await second.conversation.getByTestId('stop-session').click();
    await second.conversation
      .getByText(/⏹ stopped by/)
      .first()
      .waitFor({ timeout: patient(20_000) });
    await statusIs(second.pill, 'closed');
    await shot('agent-stopped', true);
    const stopped = (await live.bot.store.sessions.list({ startedBy: 'U0ALICE' })).find((s) =>
      s.goal.startsWith('scenario:long'),
    );
    await expect
      .poll(async () => (await live.emulator.admin.session(stopped?.sessionId ?? ''))?.status, {
        timeout: patient(20_000),
      })
      .toBe('cancelled');
  });
});
