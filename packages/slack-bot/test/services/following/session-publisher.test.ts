/**
 * The session publisher on its own: each follower event's handling, against the real sandbox over HTTP,
 * with the store faked. Who sends a session's posts (its lease, its claim) is the shared `PostOwner`.
 */
import { type FollowEvent, ManualClock } from '@agent-sessions/core';
import { describe, expect, it, vi } from 'vitest';
import { patient } from '../../../../../test/support/patience.js';
import { useSandboxWithClient } from '../../../../../test/support/world.js';
import { SessionPublisher } from '../../../src/services/following/session-publisher.js';
import { OutboundQueue } from '../../../src/services/slack-out/outbound/index.js';
import {
  CannotPostHereError,
  CardUpdater,
  PostOwner,
  PostWithdrawnError,
  ThreadPoster,
} from '../../../src/services/slack-out/thread/index.js';
import { FakePosts, fakeWorld, logger, session } from '../../fakes.js';

const CHANNEL = 'C0AGENTS';
const sandboxed = useSandboxWithClient({ rateLimits: false });

let sessions = 0;

/** A session with its card in the channel, and a publisher over it; `follows`: whether its lease is here. */
async function setup(
  options: { follows?: () => boolean; claim?: () => Promise<boolean>; clock?: ManualClock } = {},
) {
  const world = fakeWorld();
  const sessionId = `sess_p${++sessions}`;
  const card = await sandboxed.slack.chat.postMessage({ channel: CHANNEL, text: `card of ${sessionId}` });
  const cardTs = String(card.ts);
  world.sessions.add(session({ sessionId, cardTs }));
  const posts = new FakePosts();
  const owner = new PostOwner({
    ...(options.follows ? { follows: options.follows } : {}),
    ...(options.claim ? { claim: options.claim } : {}),
  });
  const outbound = new OutboundQueue(logger, world.metrics, { pacing: 'off' });
  const slack = sandboxed.slack;
  const poster = new ThreadPoster({ slack, posts, logger, metrics: world.metrics, outbound, owner });
  const cards = new CardUpdater(slack, logger, world.metrics, {
    minIntervalMs: options.clock ? 60_000 : 0,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const publisher = new SessionPublisher({
    store: { sessions: world.sessions, prompts: world.prompts, posts },
    owner,
    poster,
    outbound,
    cards,
    metrics: world.metrics,
    logger,
    slack,
    showReasoning: false,
  });
  const thread = () => sandboxed.sandbox.workspace.replies(CHANNEL, cardTs);
  return { ...world, sessionId, cardTs, posts, owner, publisher, cards, thread };
}

const message = (sessionId: string, n: number, text: string): FollowEvent => ({
  type: 'message',
  sessionId,
  key: `round_1#${n}`,
  roundId: 'round_1',
  position: n,
  message: { role: 'assistant', content: text, roundId: 'round_1' },
});

const finished = (sessionId: string): FollowEvent => ({
  type: 'finished',
  sessionId,
  key: 'finished',
  status: 'completed',
  succeeded: true,
  session: { sessionId, status: 'completed', rounds: [] },
});

const update = (sessionId: string, totalCost: number): FollowEvent => ({
  type: 'update',
  sessionId,
  key: `update:${sessionId}:${totalCost}`,
  session: { sessionId, status: 'running', rounds: [], cost: { totalCost } },
});

const cardText = (cardTs: string) => sandboxed.sandbox.workspace.findMessage(CHANNEL, cardTs)?.text ?? '';

/** The card as another replica drew it: the end of the session, which this one's edits must not undo. */
async function drawnElsewhere(w: { cardTs: string; cards: CardUpdater }): Promise<string> {
  await vi.waitFor(() => expect(w.cards.updates).toBe(1), { timeout: patient(10_000) });
  const text = 'Completed (drawn by the replica that took the session over)';
  await sandboxed.slack.chat.update({ channel: CHANNEL, ts: w.cardTs, text });
  return text;
}

describe('the session publisher', () => {
  it("posts each of the agent's messages once in the card's thread, however often it is told", async () => {
    const w = await setup();
    await w.publisher.handle(message(w.sessionId, 1, 'Cloned the repository.'));
    await w.publisher.handle(message(w.sessionId, 1, 'Cloned the repository.'));
    await w.publisher.handle(message(w.sessionId, 2, 'Ran the tests.'));
    await sandboxed.sandbox.workspace.waitFor(() => w.thread()[1], { what: 'both messages' });
    expect(w.thread().map((m) => m.text)).toEqual(['Cloned the repository.', 'Ran the tests.']);
    await w.cards.stop();
  });

  it('a finished session: its report after its chatter, the session marked finished, the card showing the end', async () => {
    const w = await setup();
    await w.publisher.handle(message(w.sessionId, 1, 'All done.'));
    await w.publisher.handle(finished(w.sessionId));
    const texts = w.thread().map((m) => m.text ?? '');
    expect(texts[0]).toBe('All done.');
    expect(texts).toHaveLength(2);
    expect(await w.posts.ts(w.sessionId, 'final-report')).toBe(w.thread()[1]?.ts);
    expect(await w.sessions.get(w.sessionId)).toMatchObject({ finished: true, status: 'completed' });
    const shown = sandboxed.sandbox.workspace.findMessage(CHANNEL, w.cardTs);
    expect(shown?.text).not.toBe(`card of ${w.sessionId}`);
    await w.cards.stop();
  });

  it('a session whose lease moved away: its report is left to the new owner, nothing posted here', async () => {
    let here = true;
    const w = await setup({ follows: () => here });
    await w.publisher.handle(message(w.sessionId, 1, 'Working.'));
    here = false;
    await expect(w.publisher.handle(finished(w.sessionId))).rejects.toBeInstanceOf(PostWithdrawnError);
    expect(w.thread().map((m) => m.text)).toEqual(['Working.']);
    expect(await w.posts.ts(w.sessionId, 'final-report')).toBeUndefined();
    expect((await w.sessions.get(w.sessionId))?.finished).toBe(false);
    await w.cards.stop();
  });

  it('an update delivered after the lease moved away (a poll in flight) is left to the new owner: no status written, no edit', async () => {
    let here = true;
    const w = await setup({ follows: () => here });
    await w.publisher.handle(update(w.sessionId, 0.1));
    const end = await drawnElsewhere(w);
    await w.sessions.update(w.sessionId, { status: 'waiting_human' });
    // The lease keeper's news: what this replica last showed may no longer be there.
    here = false;
    w.cards.forget(w.sessionId);
    // Thrown, so the follower saves no cursor for it: the new owner reads it again.
    await expect(w.publisher.handle(update(w.sessionId, 0.2))).rejects.toBeInstanceOf(PostWithdrawnError);
    expect((await w.sessions.get(w.sessionId))?.status).toBe('waiting_human');
    expect(w.cards.pendingByRank().progress).toBe(0);
    await w.cards.stop();
    expect(cardText(w.cardTs)).toBe(end);
    expect(w.cards.updates).toBe(1);
  });

  // The card's next progress edit waits out the interval since its last; meanwhile the lease moves (before
  // the lease keeper's news reaches the card updater, or while a 429 is waited out), or another replica
  // records the end. When its turn comes, it is not sent.
  const meanwhile = {
    'the lease moves away': async (_w: Awaited<ReturnType<typeof setup>>, lease: { here: boolean }) => {
      lease.here = false;
    },
    'another replica records the end': async (w: Awaited<ReturnType<typeof setup>>) => {
      await w.sessions.update(w.sessionId, { finished: true, status: 'completed' });
    },
  };
  for (const [when, happen] of Object.entries(meanwhile)) {
    it(`a progress edit waiting for its turn when ${when} is not sent`, async () => {
      const lease = { here: true };
      const clock = new ManualClock(1_000_000);
      const w = await setup({ follows: () => lease.here, clock });
      await w.publisher.handle(update(w.sessionId, 0.1));
      const end = await drawnElsewhere(w);
      await w.publisher.handle(update(w.sessionId, 0.2));
      await happen(w, lease);
      await clock.advance(60_000);
      await vi.waitFor(() => expect(w.cards.pendingByRank().progress).toBe(0), {
        timeout: patient(10_000),
      });
      await w.cards.stop();
      expect(cardText(w.cardTs)).toBe(end);
      expect(w.cards.updates).toBe(1);
    });
  }

  it("told by the posters that the session's channel is closed: the session is marked so, its starter told by DM", async () => {
    const w = await setup();
    w.publisher.attach({ on: () => () => {} } as unknown as Parameters<SessionPublisher['attach']>[0]);
    const place = { sessionId: w.sessionId, channelId: CHANNEL, cardTs: w.cardTs };
    await w.owner.cannotPost(place, new CannotPostHereError(CHANNEL, 'is_archived'));
    expect((await w.sessions.get(w.sessionId))?.status).toBe('cant_post_here');
    const dm = sandboxed.sandbox.workspace.messages.get('D0ALICE') ?? [];
    expect(dm.map((m) => m.text).join('\n')).toMatch(new RegExp(`is_archived.*${w.sessionId}`));
    await w.cards.stop();
  });

  it("a finished session's leftovers are sent only by the replica holding its claim", async () => {
    for (const held of [false, true]) {
      const w = await setup({ claim: async () => held });
      await w.posts.begin(w.sessionId, 'msg:left', JSON.stringify({ text: 'Left by a crash.' }));
      await w.sessions.update(w.sessionId, { finished: true, status: 'completed' });
      await w.publisher.recoverUnsent(() => false);
      if (held) {
        await sandboxed.sandbox.workspace.waitFor(() => w.thread()[0], { what: 'the leftover' });
        expect(w.thread().map((m) => m.text)).toEqual(['Left by a crash.']);
      } else {
        expect(w.thread()).toEqual([]);
        expect(await w.posts.ts(w.sessionId, 'msg:left')).toBeUndefined();
      }
      await w.cards.stop();
    }
  });
});
