import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../src/index.js';
import { botClient } from './bot-client.js';

let sandbox: RunningSandbox;
let client: WebClient;

beforeAll(async () => {
  sandbox = await startSandbox({ triggerTtlMs: 60_000 });
  client = botClient(sandbox);
});
afterAll(async () => {
  await sandbox?.close();
});

const slackError = async (call: Promise<unknown>) => {
  const error = (await call.catch((e) => e)) as { data?: { error?: string; errors?: string[] } };
  return error.data;
};

describe('the fake Web API, driven by the real @slack/web-api WebClient', () => {
  it('answers auth.test as the bot', async () => {
    const res = await client.auth.test();
    expect(res).toMatchObject({ ok: true, user_id: 'U0AGENTBOT', bot_id: 'B0AGENTS', team_id: 'T0SANDBOX' });
  });

  it('posts a card with blocks, a reply in its thread, and edits the card', async () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*Running*' } }];
    const card = await client.chat.postMessage({ channel: 'C0AGENTS', text: 'Running', blocks });
    expect(card.ok).toBe(true);
    const reply = await client.chat.postMessage({
      channel: 'C0AGENTS',
      text: 'step 1',
      thread_ts: card.ts as string,
    });
    expect(reply.ok).toBe(true);
    await client.chat.update({ channel: 'C0AGENTS', ts: card.ts as string, text: 'Done', blocks: [] });
    const parent = sandbox.workspace.findMessage('C0AGENTS', card.ts as string);
    expect(parent).toMatchObject({ text: 'Done', reply_count: 1, edited: expect.any(Object) });
    const thread = await client.conversations.replies({ channel: 'C0AGENTS', ts: card.ts as string });
    expect(thread.messages?.map((m) => m.text)).toEqual(['Done', 'step 1']);
  });

  it("an edit keeps a message's metadata unless it gives new metadata, as Slack's chat.update does", async () => {
    // Its own channel: C0AGENTS's burst of posts is the other tests'.
    const probe = (n: number) => ({ event_type: 'probe', event_payload: { n } });
    const posted = await client.chat.postMessage({ channel: 'C0RANDOM', text: 'one', metadata: probe(1) });
    const ts = posted.ts as string;
    await client.chat.update({ channel: 'C0RANDOM', ts, text: 'one, two' });
    expect(sandbox.workspace.findMessage('C0RANDOM', ts)?.metadata).toEqual(probe(1));
    await client.chat.update({ channel: 'C0RANDOM', ts, text: 'one, two, three', metadata: probe(3) });
    expect(sandbox.workspace.findMessage('C0RANDOM', ts)).toMatchObject({
      text: 'one, two, three',
      metadata: probe(3),
    });
  });

  it('refuses what Slack refuses', async () => {
    expect(await slackError(client.chat.postMessage({ channel: 'C0NOPE', text: 'x' }))).toMatchObject({
      error: 'channel_not_found',
    });
    expect(
      await slackError(client.chat.postMessage({ channel: 'C0AGENTS', text: 'x'.repeat(40_001) })),
    ).toMatchObject({ error: 'msg_too_long' });
    const tooLong = await slackError(
      client.chat.postMessage({
        channel: 'C0AGENTS',
        text: 'x',
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'y'.repeat(3001) } }],
      }),
    );
    expect(tooLong).toMatchObject({
      error: 'invalid_blocks',
      errors: ['must be less than 3001 characters [json-pointer:/blocks/0/text/text]'],
    });
    expect(
      await slackError(client.chat.update({ channel: 'C0AGENTS', ts: '1.000001', text: 'x' })),
    ).toMatchObject({ error: 'message_not_found' });
    const wrongToken = botClient({ botToken: 'xoxb-wrong', apiUrl: sandbox.apiUrl });
    expect(await slackError(wrongToken.auth.test())).toMatchObject({ error: 'invalid_auth' });
  });

  it('keeps ephemerals per user', async () => {
    const res = await client.chat.postEphemeral({
      channel: 'C0AGENTS',
      user: 'U0CAROL',
      text: 'Only Alice or an approver can do that',
    });
    expect(res.ok).toBe(true);
    expect(sandbox.workspace.ephemerals.at(-1)).toMatchObject({
      user: 'U0CAROL',
      channel: 'C0AGENTS',
      via: 'api',
    });
  });

  it('opens a modal once per trigger_id, and publishes App Home', async () => {
    const trigger = sandbox.interactions.issueTrigger('U0ALICE');
    const view = {
      type: 'modal' as const,
      callback_id: 'start',
      title: { type: 'plain_text' as const, text: 'Start an agent' },
      submit: { type: 'plain_text' as const, text: 'Start' },
      blocks: [
        {
          type: 'input',
          block_id: 'goal',
          label: { type: 'plain_text' as const, text: 'Goal' },
          element: { type: 'plain_text_input', action_id: 'value' },
        },
      ],
    };
    const opened = await client.views.open({ trigger_id: trigger, view });
    expect(opened.view).toMatchObject({ type: 'modal', user: 'U0ALICE', callback_id: 'start' });
    expect(await slackError(client.views.open({ trigger_id: trigger, view }))).toMatchObject({
      error: 'expired_trigger_id',
    });
    expect(await slackError(client.views.open({ trigger_id: 'nope', view }))).toMatchObject({
      error: 'invalid_trigger_id',
    });
    const longTitle = {
      ...view,
      title: { type: 'plain_text' as const, text: 'A title longer than twenty-four' },
    };
    const bad = await slackError(
      client.views.open({ trigger_id: sandbox.interactions.issueTrigger('U0ALICE'), view: longTitle }),
    );
    expect(bad).toMatchObject({ error: 'invalid_arguments' });

    const home = await client.views.publish({
      user_id: 'U0ALICE',
      view: {
        type: 'home',
        blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Your sessions' } }],
      },
    });
    expect(home.ok).toBe(true);
    expect(sandbox.workspace.homeViews.get('U0ALICE')).toBe(home.view?.id);
  });

  it('gives each published Home a new hash, and refuses a publish with a stale one (hash_conflict)', async () => {
    const home = (text: string) => ({
      type: 'home' as const,
      blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text } }],
    });
    const shown = () => sandbox.workspace.views.get(sandbox.workspace.homeViews.get('U0CAROL') ?? '');
    const first = await client.views.publish({ user_id: 'U0CAROL', view: home('first') });
    const firstHash = (first.view as { hash?: string }).hash;
    expect(firstHash).toMatch(/^\d+\.[0-9a-f]+$/);
    // Published with the hash of the Home shown: taken, and the Home has a new hash.
    const second = await client.views.publish({ user_id: 'U0CAROL', view: home('second'), hash: firstHash });
    const secondHash = (second.view as { hash?: string }).hash;
    expect(secondHash).not.toBe(firstHash);
    expect(shown()).toMatchObject({ hash: secondHash, blocks: home('second').blocks });
    // The first hash again: Slack answers hash_conflict and the Home stays as it is.
    expect(
      await slackError(client.views.publish({ user_id: 'U0CAROL', view: home('stale'), hash: firstHash })),
    ).toMatchObject({ ok: false, error: 'hash_conflict' });
    expect(shown()).toMatchObject({ hash: secondHash, blocks: home('second').blocks });
    // Without a hash nothing is checked.
    const third = await client.views.publish({ user_id: 'U0CAROL', view: home('third') });
    expect(shown()).toMatchObject({
      hash: (third.view as { hash?: string }).hash,
      blocks: home('third').blocks,
    });
  });

  it('uploads a long report into a thread with filesUploadV2', async () => {
    const card = await client.chat.postMessage({ channel: 'C0AGENTS', text: 'Report below' });
    const content = 'line\n'.repeat(20_000);
    const res = await client.filesUploadV2({
      channel_id: 'C0AGENTS',
      thread_ts: card.ts as string,
      filename: 'report.md',
      title: 'Completion report',
      content,
      initial_comment: 'The full report',
    });
    expect(res.ok).toBe(true);
    const file = [...sandbox.workspace.files.values()].at(-1);
    expect(file).toMatchObject({
      name: 'report.md',
      title: 'Completion report',
      size: content.length,
      thread_ts: card.ts,
    });
    const replies = sandbox.workspace.replies('C0AGENTS', card.ts as string);
    expect(replies.at(-1)).toMatchObject({
      text: 'The full report',
      files: [expect.objectContaining({ id: file?.id })],
    });
  });

  it('answers users.info, conversations.info and usergroups.users.list', async () => {
    expect((await client.users.info({ user: 'U0BOB' })).user).toMatchObject({ name: 'bob' });
    expect(await slackError(client.users.info({ user: 'U0NOBODY' }))).toMatchObject({
      error: 'user_not_found',
    });
    expect((await client.conversations.info({ channel: 'C0AGENTS' })).channel).toMatchObject({
      name: 'agents',
    });
    expect((await client.usergroups.users.list({ usergroup: 'S0APPROVERS' })).users).toEqual(['U0BOB']);
  });

  it('hides a private channel from the bot until it is invited; public ones take its posts anyway', async () => {
    expect((await client.chat.postMessage({ channel: 'C0RANDOM', text: 'hello' })).ok).toBe(true);
    for (const call of [
      client.chat.postMessage({ channel: 'G0PRIVATE', text: 'hello' }),
      client.chat.postEphemeral({ channel: 'G0PRIVATE', user: 'U0ALICE', text: 'psst' }),
      client.conversations.info({ channel: 'G0PRIVATE' }),
    ]) {
      expect(await slackError(call)).toMatchObject({ error: 'channel_not_found' });
    }
    sandbox.workspace.inviteBot('G0PRIVATE', 'U0ALICE');
    expect(sandbox.workspace.messages.get('G0PRIVATE')?.at(-1)).toMatchObject({
      subtype: 'channel_join',
      user: 'U0AGENTBOT',
      inviter: 'U0ALICE',
    });
    expect((await client.conversations.info({ channel: 'G0PRIVATE' })).channel).toMatchObject({
      is_member: true,
    });
    expect((await client.chat.postMessage({ channel: 'G0PRIVATE', text: 'hello' })).ok).toBe(true);
  });
  it('writes a DM by user id but reads it by the id conversations.open gives, and reads only where it is a member', async () => {
    const posted = await client.chat.postMessage({
      channel: 'U0CAROL',
      text: 'hello Carol',
      metadata: { event_type: 'probe', event_payload: { n: 1 } },
    });
    expect(posted.channel).toBe('D0CAROL');
    expect(await slackError(client.conversations.history({ channel: 'U0CAROL' }))).toMatchObject({
      error: 'channel_not_found',
    });
    const opened = await client.conversations.open({ users: 'U0CAROL' });
    expect(opened).toMatchObject({ ok: true, already_open: true, channel: { id: 'D0CAROL' } });
    const history = await client.conversations.history({
      channel: String(opened.channel?.id),
      include_all_metadata: true,
    });
    expect(history.messages?.map((m) => [m.text, m.metadata?.event_type])).toEqual([
      ['hello Carol', 'probe'],
    ]);
    expect(await client.conversations.open({ users: 'U0BOB' })).toMatchObject({ channel: { id: 'D0BOB' } });
    expect(await slackError(client.conversations.open({ users: 'U0NOBODY' }))).toMatchObject({
      error: 'user_not_found',
    });
    expect(await slackError(client.conversations.open({ users: 'U0BOB,U0CAROL' }))).toMatchObject({
      error: 'not_supported',
    });
    // Posting where the bot is not a member (chat:write.public) does not make the channel readable.
    const card = await client.chat.postMessage({ channel: 'C0RANDOM', text: 'a card' });
    for (const read of [
      client.conversations.history({ channel: 'C0RANDOM' }),
      client.conversations.replies({ channel: 'C0RANDOM', ts: String(card.ts) }),
    ])
      expect(await slackError(read)).toMatchObject({ error: 'not_in_channel' });
    expect(await slackError(client.apiCall('conversations.open', {}))).toMatchObject({
      error: 'users_list_not_supplied',
    });
  });
});
