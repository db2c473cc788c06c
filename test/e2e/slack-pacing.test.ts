import type { ApiCall, SandboxMessage } from '@agent-sessions/slack-sandbox';
import { describe, expect, it, vi } from 'vitest';
import { patient } from '../support/patience.js';
import { ALICE, CHANNEL, textOf, useHarness, WAIT_MS } from './harness.js';
import { duplicates, isPrompt, postKeys } from './helpers.js';

// The error tests go first: the chatty one leaves a backlog the channel takes a while to post.
// The bot against the sandbox with Slack's rate limits on (its default): one paced queue per channel,
// prompts before chatter, chatter batched, and a defined outcome for each Slack error on a thread post.
// Pacing is the subject here, so Slack's limits are Slack's own (the other files run them faster).
const h = useHarness({ slackSpeed: 1 });

/** Every Web API call from now on (the workspace's own log keeps only the latest 300). */
function recordCalls(): ApiCall[] {
  const calls: ApiCall[] = [];
  h.sandbox.workspace.on('change', (c) => {
    if (c.kind === 'api_call') calls.push(c.call);
  });
  return calls;
}

/**
 * Messages of the channel in the order they were posted or edited, from now on: while a channel is held
 * back, a session's chatter also goes out as an edit of its latest chatter post.
 */
function recordDeliveries(): SandboxMessage[] {
  const posts: SandboxMessage[] = [];
  h.sandbox.workspace.on('change', (c) => {
    if ((c.kind === 'message' || c.kind === 'message_changed') && c.message.channel === CHANNEL)
      posts.push(c.message);
  });
  return posts;
}

/**
 * Starts four chatty sessions at once, so their chatter is written together, and resolves with their
 * cards once each names its session. Started one after the other, each start would wait for its card
 * while the earlier sessions' chatter caught up, and little would be left when the question came.
 */
async function startFourChattyAtOnce(): Promise<Array<{ sessionId: string; cardTs: string }>> {
  const goals = [1, 2, 3, 4].map((i) => `review part ${i}`);
  for (const goal of goals) {
    const response = await h.driver.command({
      user: ALICE,
      channel: CHANNEL,
      text: `start scenario:chatty ${goal}`,
    });
    if (response.status !== 200) throw new Error(`/agent start answered ${response.status}`);
  }
  const ws = h.sandbox.workspace;
  const started = (goal: string) => {
    const card = (ws.messages.get(CHANNEL) ?? []).find((m) => !m.thread_ts && textOf(m).includes(goal));
    const sessionId = card && /session `([^`]+)`/.exec(textOf(card))?.[1];
    return card && sessionId ? { sessionId, cardTs: card.ts } : undefined;
  };
  return ws.waitFor(
    () => {
      const cards = goals.map(started);
      return cards.every(Boolean) ? (cards as Array<{ sessionId: string; cardTs: string }>) : undefined;
    },
    { what: 'the four chatty cards, each naming its session', timeoutMs: WAIT_MS },
  );
}

/** What one `scenario:chatty` session writes (24 observations: a message, a tool call and its result). */
const CHATTY_MESSAGES = 72;

/**
 * Resolves, once the service asks the question of the session with `goal`, with how many of the chatty
 * sessions' messages were still not in Slack then (the service's count against the keys posted).
 */
async function chatterWaitingWhenAsked(
  goal: string,
  chatty: Array<{ sessionId: string; cardTs: string }>,
): Promise<number> {
  const isAsked = async () =>
    (await h.emulator.admin.sessions()).some((s) => s.goal.includes(goal) && s.pendingInput !== null);
  await vi.waitFor(
    async () => {
      if (!(await isAsked())) throw new Error(`no question asked yet of "${goal}"`);
    },
    { timeout: patient(60_000), interval: 20 },
  );
  let written = 0;
  for (const { sessionId } of chatty)
    written += (await h.emulator.admin.session(sessionId))?.messageCount ?? 0;
  const posted = chatty.flatMap((c) => postKeys(h.thread(c.cardTs)).filter((k) => k.startsWith('msg:')));
  return written - new Set(posted.map((k) => k.replace(/~\d+$/, ''))).size;
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${h.bot.url}/metrics`)).text();
  const prefix = labels ? `${name}{${labels}}` : `${name} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('Slack errors on a thread post', () => {
  it(
    "not_in_channel: the session is marked can't-post and followed no further there; the starter is told by DM; the card says why",
    async () => {
      const { sessionId, cardTs } = await h.start('scenario:long index the archive');
      await h.waitInThread(cardTs, () => true, 'a first thread post');
      h.sandbox.failNext({ method: 'chat.postMessage', error: 'not_in_channel', channel: CHANNEL, times: 1 });
      const dm = await h.sandbox.workspace.waitFor(
        () =>
          (h.sandbox.workspace.messages.get(`D${ALICE.slice(1)}`) ?? []).find((m) =>
            (m.text ?? '').includes(sessionId),
          ),
        { what: 'the DM to the starter', timeoutMs: patient(30_000) },
      );
      expect(dm.text).toMatch(/can't post in .*not_in_channel.*\/agent status/);
      expect((await h.store.sessions.get(sessionId))?.status).toBe('cant_post_here');
      expect((await h.store.sessions.get(sessionId))?.finished).toBe(true);
      await h.waitForCard(cardTs, (t) => /can't post in this channel/.test(t), 'the card saying why');
      expect(await metric('slack_post_outcomes_total', 'outcome="cant_post_here"')).toBeGreaterThanOrEqual(1);
      // Followed no further: the follower lets go of it, and the thread gets nothing more.
      await expect
        .poll(() => h.bot.follower.isFollowing(sessionId), { timeout: patient(15_000) })
        .toBe(false);
      const after = h.thread(cardTs).length;
      await h.waitForCard(cardTs, (t) => /can't post/.test(t), 'the card, again');
      expect(h.thread(cardTs).length).toBe(after);
    },
    patient(60_000),
  );

  it(
    'msg_blocks_too_long: the message is posted again as plain text; nothing is lost',
    async () => {
      const calls = recordCalls();
      // As the card (which /agent start posts itself) lands: the next post in the channel is the bot's.
      // Armed then, not once the card shows its session (an edit that may come after the first chatter).
      let armed = false;
      h.sandbox.workspace.on('change', (c) => {
        if (armed || c.kind !== 'message' || c.message.channel !== CHANNEL || c.message.thread_ts) return;
        armed = true;
        h.sandbox.failNext({
          method: 'chat.postMessage',
          error: 'msg_blocks_too_long',
          channel: CHANNEL,
          times: 1,
        });
      });
      const { sessionId, cardTs } = await h.start('scenario:complete write the release notes');
      // The final report (the status, then what was done) comes after every message of the session.
      await h.waitInThread(
        cardTs,
        (m) => /Completed/.test(textOf(m)) && /Wrote docs\/notes\.md/.test(textOf(m)),
        'the final report',
        patient(60_000),
      );
      await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'completion');
      const refused = calls.filter((c) => c.error === 'msg_blocks_too_long');
      expect(refused).toHaveLength(1);
      expect(refused[0]?.injected).toBe(true);
      // The refused post came again as text (no blocks), and every agent message is there once.
      const thread = h.thread(cardTs);
      const keys = postKeys(thread);
      expect(duplicates(keys)).toEqual([]);
      const messageCount = (await h.emulator.admin.session(sessionId))?.messageCount ?? 0;
      expect(thread.filter((m) => (m.blocks ?? []).length === 0).length).toBeGreaterThanOrEqual(1);
      expect(keys.filter((k) => k.startsWith('msg:')).length).toBe(messageCount);
      expect(await metric('slack_post_outcomes_total', 'outcome="as_text"')).toBeGreaterThanOrEqual(1);
    },
    patient(90_000),
  );
});

describe('four chatty sessions in one channel', () => {
  it(
    'a question is posted before the chatter backlog drains; every message once; never msg_blocks_too_long',
    async () => {
      const calls = recordCalls();
      const posts = recordDeliveries();
      const chatty = await startFourChattyAtOnce();
      const asked = chatterWaitingWhenAsked('ship the release', chatty);
      // Awaited below; a question never asked fails the prompt's wait first.
      asked.catch(() => undefined);
      const asking = await h.start('scenario:approval ship the release');
      const prompt = await h.waitInThread(asking.cardTs, isPrompt, 'the approval prompt', patient(60_000));
      for (const { cardTs } of chatty) {
        await h.waitInThread(
          cardTs,
          (m) => /Reviewed 24 modules/.test(textOf(m)),
          'a final report',
          patient(180_000),
        );
      }
      // Event order, not time: the prompt went out while chatter of the four was still waiting its turn
      // (posted after it, or added to a chatter post by an edit after it).
      const chattyThreads = new Set(chatty.map((c) => c.cardTs));
      const promptAt = posts.findIndex((m) => m.ts === prompt.ts);
      const chatterAfter = posts.slice(promptAt + 1).filter((m) => chattyThreads.has(m.thread_ts ?? ''));
      expect(promptAt).toBeGreaterThanOrEqual(0);
      // Chatter catches up fast (batches, and edits of the latest chatter post): when only a few messages
      // are left as the question comes, they go out in the call already under way. With a whole
      // session's worth still waiting (several posts at Slack's 50 blocks each), a prompt queued behind
      // them would come last.
      if ((await asked) >= CHATTY_MESSAGES) expect(chatterAfter.length).toBeGreaterThan(0);
      // Each agent message exactly once, some of them batched (the channel was behind).
      let batched = 0;
      for (const { sessionId, cardTs } of chatty) {
        const thread = h.thread(cardTs);
        expect(duplicates(postKeys(thread))).toEqual([]);
        const messages = new Set(
          postKeys(thread)
            .filter((k) => k.startsWith('msg:'))
            .map((k) => k.replace(/~\d+$/, '')),
        );
        const uploads = thread.filter((m) => /too long for a message/.test(m.text ?? ''));
        expect(messages.size + uploads.length).toBe(
          (await h.emulator.admin.session(sessionId))?.messageCount,
        );
        batched += thread.filter((m) => /"keys"/.test(JSON.stringify(m.metadata ?? {}))).length;
      }
      expect(batched).toBeGreaterThan(0);
      expect(await metric('slack_post_batch_size_count', '')).toBeGreaterThan(0);
      // Within Slack's block limit every time, and under 1% of calls answered 429 (the queue paces).
      expect(calls.filter((c) => c.error === 'msg_blocks_too_long')).toEqual([]);
      const refused = calls.filter((c) => c.status === 429).length;
      expect(refused / calls.length).toBeLessThan(0.01);
    },
    patient(300_000),
  );
});
