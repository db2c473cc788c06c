import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import { App, LogLevel } from '@slack/bolt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { actAs as actAsIn, openPage, requireChromium, screenshot, write as writeIn } from './page.js';

// The page's conversational side — mentions in the composer, replies in threads, the DM with the bot,
// reactions, the markdown block and feedback buttons — against a small stand-in bot (a real Bolt app),
// so these page features are held whatever the project's bot does with mentions yet.

let sandbox: RunningSandbox;
let app: App;
let browser: Browser;
let page: Page;
const heard: Array<{ type: string; text?: string; thread_ts?: string; channel_type?: string }> = [];
const pressed: Array<{ value: string; user: string }> = [];

beforeAll(async () => {
  requireChromium();
  sandbox = await startSandbox({ waitTimeoutMs: patient(10_000) });
  app = new App({
    token: sandbox.botToken,
    signingSecret: sandbox.signingSecret,
    tokenVerificationEnabled: false,
    botId: 'B0AGENTS',
    botUserId: 'U0AGENTBOT',
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: sandbox.apiUrl },
  });
  // A mention: 👀 on it, then a report in its thread — markdown with HTML that must stay text, and 👍/👎.
  app.event('app_mention', async ({ event, client }) => {
    heard.push({
      type: 'app_mention',
      text: event.text,
      ...(event.thread_ts ? { thread_ts: event.thread_ts } : {}),
    });
    await client.reactions.add({ channel: event.channel, timestamp: event.ts, name: 'eyes' });
    await client.chat.postMessage({
      channel: event.channel,
      thread_ts: event.thread_ts ?? event.ts,
      text: 'Report',
      blocks: [
        { type: 'markdown', text: '## Report\n\n**All green.** <img src=x onerror=alert(1)>\n- tests pass' },
        {
          type: 'context_actions',
          elements: [
            {
              type: 'feedback_buttons',
              action_id: 'feedback',
              positive_button: { text: { type: 'plain_text', text: '👍' }, value: 'good' },
              negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'bad' },
            },
          ],
        },
      ],
    });
  });
  app.message(async ({ message, client }) => {
    const m = message as {
      text?: string;
      thread_ts?: string;
      channel_type?: string;
      channel: string;
      ts: string;
    };
    heard.push({
      type: 'message',
      ...(m.text ? { text: m.text } : {}),
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
      ...(m.channel_type ? { channel_type: m.channel_type } : {}),
    });
    if (m.channel_type === 'im')
      await client.reactions.add({ channel: m.channel, timestamp: m.ts, name: 'white_check_mark' });
  });
  app.action('feedback', async ({ ack, body, action, respond }) => {
    await ack();
    pressed.push({ value: (action as { value: string }).value, user: body.user.id });
    await respond({ response_type: 'ephemeral', replace_original: false, text: 'Thanks for the feedback' });
  });
  const server = (await app.start(0)) as Server;
  sandbox.connectBot(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
  ({ browser, page } = await openPage(sandbox.url));
}, patient(60_000));

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sandbox?.close();
});

const shot = (name: string) => screenshot(page, name);
const write = (text: string) => writeIn(page, text);
const actAs = (userId: string) => actAsIn(page, userId);

describe('the sandbox page, conversational', () => {
  it('@agents in the composer is a mention: the bot hears app_mention, reacts 👀 and answers in the thread', async () => {
    await actAs('U0ALICE');
    await write('@agents summarise the release');
    const conversation = page.getByTestId('conversation').filter({ hasText: 'summarise the release' }).last();
    await conversation.locator('.mention').filter({ hasText: '@agents' }).waitFor();
    await conversation
      .locator('[data-testid="reaction"][data-name="eyes"]')
      .waitFor({ timeout: patient(10_000) });
    expect(await conversation.getByTestId('reaction').first().textContent()).toContain('👀 1');
    expect(heard).toContainEqual({ type: 'app_mention', text: '<@U0AGENTBOT> summarise the release' });
    // The event log shows what Slack sent the bot, next to the bot's Web API calls.
    await page.locator('[data-testid="api-call"][data-method="app_mention"]').first().waitFor();
    expect(
      await page.locator('[data-testid="api-call"][data-method="app_mention"]').first().textContent(),
    ).toMatch(/⇢ bot: app_mention C0AGENTS\s+→ 200 acked/);

    // The markdown block, rendered, with the HTML in it shown as text and nothing injected.
    const report = conversation.getByTestId('markdown').first();
    await report.waitFor({ timeout: patient(10_000) });
    expect(await report.locator('h4').textContent()).toBe('Report');
    expect(await report.locator('strong').textContent()).toBe('All green.');
    expect(await report.locator('li').textContent()).toBe('tests pass');
    expect(await report.locator('img').count()).toBe(0);
    expect(await report.textContent()).toContain('<img src=x onerror=alert(1)>');
    await shot('conversation-mention');

    // 👎 pressed: the bot gets the button's value, and answers privately.
    // Drawn as Slack's thumb icons (no emoji font needed); the button's text is its title.
    await conversation.locator('[data-testid="feedback"][title="👎"]').click();
    await expect.poll(() => pressed.at(-1)).toEqual({ value: 'bad', user: 'U0ALICE' });
    await page.locator('.ephemeral').filter({ hasText: 'Thanks for the feedback' }).waitFor();
  });

  it('Reply in thread: the reply goes into that thread, with thread_ts, and can mention the bot', async () => {
    await write('we should rotate the keys');
    const conversation = page
      .getByTestId('conversation')
      .filter({ hasText: 'we should rotate the keys' })
      .last();
    await conversation.getByTestId('reply-in-thread').click();
    await page.getByTestId('reply-chip').waitFor();
    await write('agreed, this week');
    await conversation.getByTestId('thread').getByText('agreed, this week').waitFor();
    expect(heard.at(-1)).toMatchObject({
      type: 'message',
      text: 'agreed, this week',
      thread_ts: expect.any(String),
    });
    await write('@agents please do it');
    await conversation
      .getByTestId('thread')
      .getByTestId('markdown')
      .waitFor({ timeout: patient(10_000) });
    expect(heard.filter((h) => h.type === 'app_mention').at(-1)).toMatchObject({
      text: '<@U0AGENTBOT> please do it',
      thread_ts: expect.any(String),
    });
    await shot('conversation-thread');
    await page.locator('#reply-cancel').click();
    expect(await page.getByTestId('reply-chip').isHidden()).toBe(true);
  });

  it('the DM with the bot (its Messages tab): a message there is message.im, and its reaction shows', async () => {
    await actAs('U0BOB');
    await page.getByTestId('dm-tab').click();
    await write('hello agent');
    const message = page.getByTestId('message').filter({ hasText: 'hello agent' });
    await message
      .locator('[data-testid="reaction"][data-name="white_check_mark"]')
      .waitFor({ timeout: patient(10_000) });
    expect(heard.at(-1)).toMatchObject({ type: 'message', text: 'hello agent', channel_type: 'im' });
    expect(sandbox.workspace.messages.get('D0BOB')?.map((m) => m.text)).toEqual(['hello agent']);
    await shot('conversation-dm');
    // Alice's Messages tab is her own DM: Bob's message is not there.
    await actAs('U0ALICE');
    expect(await page.getByTestId('message').filter({ hasText: 'hello agent' }).count()).toBe(0);
    await page.locator('[data-channel-id="C0AGENTS"]').click();
  });
});
