import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { actAs, botInPage, screenshot, write } from './page.js';

// A session in a channel of its own (Slack Code), as the page shows it with the real bot: started with
// --channel, its context bar and tabs, its question answered by a message in the channel, the channel
// archived at the end and the summary back in the origin thread.
const API_KEY = 'emu_browser_code_channel_9d1e';

const live = botInPage({
  apiKey: API_KEY,
  emulatorSpeed: 2,
  sandbox: { rateLimits: false },
  needsPersonMs: 1_000,
  pageTimeoutMs: patient(20_000),
});

describe('a code channel in the page, with the real bot', () => {
  it('--channel → its own channel: bar, tabs, commands; the question answered there; archived, summary back', async () => {
    await actAs(live.page, 'U0ALICE');
    await live.page.locator('[data-channel-id="C0AGENTS"]').click();
    await write(live.page, '/agent start --channel scenario:free_text prepare the release');
    const record = await live.sandbox.workspace.waitFor(() => live.sandbox.workspace.codeChannels.all()[0], {
      what: 'the code channel',
      timeoutMs: patient(20_000),
    });
    await live.page.locator(`[data-channel-id="${record.channelId}"]`).click();
    const panel = live.page.getByTestId('code-channel');
    await panel
      .getByTestId('cc-action')
      .first()
      .waitFor({ timeout: patient(20_000) });
    await expect.poll(() => panel.getByTestId('cc-command').count()).toBe(6);
    // The bar in words: no icon glyph before any item (none is sent), Pause and Cancel as plain words.
    expect(await panel.locator('.cc-icon').count()).toBe(0);
    expect(await panel.getByTestId('cc-action').allTextContents()).toEqual(['Pause', 'Cancel']);
    // The agent's tool call as a card, as in a thread; no "Reply in thread" under the channel's messages.
    await live.page
      .getByTestId('messages')
      .locator('[data-testid="task-card"][data-status="complete"]')
      .filter({ hasText: 'search_docs' })
      .waitFor({ timeout: patient(20_000) });
    expect(await live.page.getByTestId('messages').getByTestId('reply-in-thread').count()).toBe(0);
    expect(await live.page.locator('[data-testid="task-card"][data-status="in_progress"]').count()).toBe(0);

    // The question comes in the channel itself; a plain message there answers it.
    await live.page
      .getByTestId('messages')
      .getByText('What should the release be called?')
      .first()
      .waitFor({ timeout: patient(30_000) });
    await screenshot(live.page, 'code-channel-question');
    await write(live.page, 'Aurora');

    await panel.getByTestId('cc-archived').waitFor({ timeout: patient(45_000) });
    await live.page.getByTestId('messages').getByText('Release "Aurora" prepared').first().waitFor();
    await panel.locator('[data-testid="cc-tab"][data-view-key="report"]').click();
    await panel.getByTestId('cc-canvas').getByText('Release "Aurora" prepared').waitFor();
    await panel.locator('[data-testid="cc-tab"][data-view-key="questions"]').click();
    await expect.poll(() => panel.getByTestId('cc-tab-body').textContent()).toMatch(/answered by/);
    await panel.locator('[data-testid="cc-tab"][data-view-key="plan"]').click();
    await expect.poll(() => panel.getByTestId('cc-tab-body').textContent()).toMatch(/Round 1/);
    expect(await panel.getByTestId('cc-tab-body').textContent()).not.toMatch(/waiting_human/);
    // Ended: the starter is a mention, shown as the person's name.
    expect(
      await panel.locator('[data-testid="cc-item"][data-key="started_by"] .mention').textContent(),
    ).toMatch(/^@/);
    await screenshot(live.page, 'code-channel-archived');

    // Back in the origin channel: the card's thread holds the summary Slack shared back.
    await live.page.locator('[data-channel-id="C0AGENTS"]').click();
    const shared = live.sandbox.workspace.codeChannels.get(record.channelId)?.sharedSummaryTs;
    expect(shared).toEqual(expect.any(String));
    const summaries = live.sandbox.workspace
      .replies('C0AGENTS', record.origin?.ts as string)
      .filter((m) => /Release "Aurora" prepared/.test(m.text ?? ''));
    expect(summaries).toHaveLength(1);
    await live.page.getByTestId('messages').getByText('Release "Aurora" prepared').first().waitFor();
  });
});
