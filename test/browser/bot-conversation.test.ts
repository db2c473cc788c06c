import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { actAs as actAsIn, botInPage, screenshot, write as writeIn } from './page.js';

// The bot as someone you talk to, in the page with the real bot: mention it in a thread of a discussion, see
// the card in that thread with the discussion as context, reply to steer it, answer its question by
// replying, press 👍 on the report.
const API_KEY = 'emu_browser_conv_key_8d21';

const live = botInPage({
  apiKey: API_KEY,
  // Real time: the scenario asks its question ~5 s in, time enough to steer it by a reply first.
  emulatorSpeed: 1,
  // Slack's rate limits off: the bot does not pace itself yet (bot-outbound).
  sandbox: { rateLimits: false },
  needsPersonMs: 1_000,
});

const shot = (name: string) => screenshot(live.page, name);
const write = (text: string) => writeIn(live.page, text);
const actAs = (userId: string) => actAsIn(live.page, userId);
async function replyIn(conversation: Locator, text: string) {
  await conversation.getByTestId('reply-in-thread').first().click();
  await live.page.getByTestId('reply-chip').waitFor();
  await write(text);
  await conversation.getByTestId('thread').getByText(text).first().waitFor();
}
const reaction = (message: Locator, name: string) =>
  message.locator(`[data-testid="reaction"][data-name="${name}"]`).waitFor({ timeout: patient(15_000) });

/** What the agent says next: through the emulator, the bot's follower and the channel's pace. */
const AGENT_REPLY = { timeout: patient(30_000) };

describe('the bot in conversation, in the page', () => {
  // Six turns through the agent, each waited for on its own: more than the file's 60 s on a busy machine.
  it('mention in a discussion’s thread → card with context → steer by reply → answer by reply → 👍', {
    timeout: patient(180_000),
  }, async () => {
    await actAs('U0BOB');
    await write('The release is blocked: nobody has named it yet');
    const conversation = live.page
      .getByTestId('conversation')
      .filter({ hasText: 'The release is blocked' })
      .last();
    await actAs('U0CAROL');
    await replyIn(conversation, 'Last time we used a star name');
    await live.page.locator('#reply-cancel').click();

    await actAs('U0ALICE');
    await replyIn(conversation, '@agents scenario:free_text prepare the release');
    const thread = conversation.getByTestId('thread');
    await thread.getByText('Started from this thread, with 2 earlier messages').first().waitFor(AGENT_REPLY);
    await shot('bot-conversation-card');

    // No question yet: the reply steers the agent.
    await write('Check the changelog first');
    const steer = thread.getByTestId('message').filter({ hasText: 'Check the changelog first' }).first();
    await reaction(steer, 'white_check_mark');
    await thread
      .getByText(/redirected the agent: Check the changelog first/)
      .first()
      .waitFor();
    await thread
      .getByText(/Changing direction as asked/)
      .first()
      .waitFor(AGENT_REPLY);

    // The question: answered by a reply, through the same claim as the buttons.
    await thread.getByText('What should the release be called?').first().waitFor(AGENT_REPLY);
    await write('Vega');
    const answer = thread
      .getByTestId('message')
      .filter({ has: live.page.getByText('Vega', { exact: true }) })
      .first();
    await reaction(answer, 'white_check_mark');
    await thread.getByText('Naming the release "Vega".').first().waitFor(AGENT_REPLY);
    await shot('bot-conversation-answered');

    // The report, with Slack's feedback buttons: 👍 is recorded and acknowledged privately.
    // Drawn as Slack's thumb icons (no emoji font needed), named by the bot's accessibility label.
    const thumbsUp = thread.getByRole('button', { name: 'This session went well' }).last();
    await thumbsUp.waitFor(AGENT_REPLY);
    await thumbsUp.click();
    await live.page.locator('.ephemeral').filter({ hasText: 'Thanks — noted 👍' }).waitFor();
    await expect
      .poll(
        async () =>
          (await (await fetch(`${live.bot.url}/metrics`)).text()).match(
            /agent_report_feedback_total\{value="good"\} (\d+)/,
          )?.[1],
      )
      .toBe('1');
    await live.page.locator('#reply-cancel').click();
    await shot('bot-conversation-feedback');
  });
});
