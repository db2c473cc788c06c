/**
 * What a session leaves behind across replicas, each thing sent once: a finished session's posts recorded
 * and never sent (classic and streamed), its final card edit, and chatter whose lease moved while a post
 * of it was being retried. Several bot processes over one real store (PGlite, and PostgreSQL) and the
 * sandbox's Slack over real HTTP.
 */
import { type FollowEvent, ManualClock } from '@agent-sessions/core';
import { expect, it, vi } from 'vitest';
import { patient } from '../../../../test/support/patience.js';
import { useSandboxWithClient } from '../../../../test/support/world.js';
import { SessionPublisher } from '../../src/services/following/session-publisher.js';
import { StreamPoster } from '../../src/services/slack-out/agent-surface/stream-poster.js';
import { botIdentity, OutboundQueue } from '../../src/services/slack-out/outbound/index.js';
import { CardUpdater, PostOwner, ThreadPoster } from '../../src/services/slack-out/thread/index.js';
import type { SqlStore } from '../../src/store/index.js';
import { logger, metrics as newMetrics } from '../fakes.js';
import { describeWithStore, storeBackends } from './backends.js';

const CHANNEL = 'C0AGENTS';
const world = useSandboxWithClient({ rateLimits: false });

const replies = (cardTs: string) => world.sandbox.workspace.replies(CHANNEL, cardTs);
const text = (s: string) => ({ mrkdwn: s, plain: s });
const okUpdates = () =>
  world.sandbox.workspace.apiCalls.filter((c) => c.method === 'chat.update' && c.ok).length;

let count = 0;
/** A session with its card in the sandbox, recorded in the store (finished, or still followed). */
async function newSession(store: SqlStore, finished: boolean) {
  const sessionId = `sess_left_${++count}_${Math.random().toString(36).slice(2, 8)}`;
  const card = await world.slack.chat.postMessage({ channel: CHANNEL, text: `card of ${sessionId}` });
  const cardTs = String(card.ts);
  await store.sessions.create({
    sessionId,
    channelId: CHANNEL,
    cardTs,
    startedBy: 'U0ALICE',
    goal: 'deploy v2',
    budget: 5,
  });
  if (finished) await store.sessions.update(sessionId, { status: 'completed', finished: true });
  return { sessionId, channelId: CHANNEL, cardTs, startedBy: 'U0ALICE' };
}

interface ReplicaOptions {
  /** How long its claims on finished sessions hold (0: lapsed as soon as taken). */
  claimTtlMs?: number;
  /** Its outbound queue's clock (one post a second, no burst): the test gives its turns by hand. */
  queueClock?: ManualClock;
  /** Its retries' clock. */
  retryClock?: ManualClock;
  owns?: (sessionId: string) => boolean;
  /** Sessions on Slack's agent surface: the agent's work streamed. */
  streamed?: boolean;
}

/** One bot process over the shared store: its poster, card updater, streams and publisher. */
function replica(store: SqlStore, holder: string, options: ReplicaOptions = {}) {
  const metrics = newMetrics();
  const outbound = new OutboundQueue(
    logger,
    metrics,
    options.queueClock ? { postPerSecond: 1, postBurst: 1, clock: options.queueClock } : {},
  );
  const owner = new PostOwner({
    ...(options.owns ? { follows: options.owns } : {}),
    claim: (sessionId) => store.recoveryClaims.claim(sessionId, holder, options.claimTtlMs ?? 60_000),
  });
  const poster = new ThreadPoster({
    slack: world.slack,
    posts: store.posts,
    logger,
    metrics,
    outbound,
    owner,
    options: { retryBaseMs: 5, ...(options.retryClock ? { clock: options.retryClock } : {}) },
  });
  const streams = options.streamed
    ? new StreamPoster({
        slack: world.slack,
        posts: store.posts,
        streams: store.streams,
        poster,
        outbound,
        owner,
        surface: { current: () => 'agent', fallBack: () => {} },
        self: botIdentity(world.slack),
        logger,
        metrics,
        showReasoning: false,
      })
    : undefined;
  const cards = new CardUpdater(world.slack, logger, metrics);
  const publisher = new SessionPublisher({
    store: {
      sessions: store.sessions,
      prompts: store.prompts,
      posts: store.posts,
      finalCards: store.finalCards,
    },
    owner,
    poster,
    outbound,
    ...(streams ? { streams } : {}),
    cards,
    metrics,
    logger,
    slack: world.slack,
    showReasoning: false,
  });
  return { poster, publisher, cards, metrics };
}

/** Replicas starting at the same moment, each running recovery (none holds a lease yet). */
const recoverTogether = (...replicas: Array<ReturnType<typeof replica>>) =>
  Promise.all(replicas.map((r) => r.publisher.recoverUnsent(() => false)));

for (const backend of storeBackends('leftovers')) {
  describeWithStore(
    backend,
    `a finished session's leftovers, once across replicas (${backend.name})`,
    (store) => {
      it('replicas recovering the same unsent keys at the same moment: one post, by the claim holder', async () => {
        const place = await newSession(store, true);
        await store.posts.begin(place.sessionId, 'msg:r1#1', JSON.stringify({ text: 'Left unsent, 1.' }));
        await store.posts.begin(place.sessionId, 'msg:r1#2', JSON.stringify({ text: 'Left unsent, 2.' }));
        const replicas = [replica(store, 'a'), replica(store, 'b'), replica(store, 'c')];
        await recoverTogether(...replicas);
        await expect.poll(() => store.posts.unsent(place.sessionId)).toEqual([]);
        await expect.poll(() => replicas.map((r) => r.poster.waiting())).toEqual([0, 0, 0]);
        expect(replies(place.cardTs).map((m) => m.text)).toEqual(['Left unsent, 1.\n\nLeft unsent, 2.']);
      });

      it('a claim that lapsed while its holder waited for its turn: the replica holding it now posts, not both', async () => {
        const place = await newSession(store, true);
        // Each replica follows a session of its own besides.
        const slowOther = await newSession(store, false);
        const nextOther = await newSession(store, false);
        await store.posts.begin(place.sessionId, 'msg:r1#1', JSON.stringify({ text: 'Posted by one.' }));
        // Each replica's one channel token goes to another session first: recovered chatter waits its turn.
        const slowClock = new ManualClock(Date.now());
        const nextClock = new ManualClock(Date.now());
        const slow = replica(store, 'slow', { claimTtlMs: 0, queueClock: slowClock });
        const next = replica(store, 'next', { queueClock: nextClock });
        await slow.poster.enqueueText(slowOther, 'msg:o1', text('Other session, 1.'));
        await next.poster.enqueueText(nextOther, 'msg:o2', text('Other session, 2.'));
        await expect.poll(() => [slow.poster.waiting(), next.poster.waiting()]).toEqual([0, 0]);
        expect([replies(slowOther.cardTs).length, replies(nextOther.cardTs).length]).toEqual([1, 1]);
        // `slow` claims first (its claim lapses at once: a holder that stalled), then `next` takes it.
        await slow.publisher.recoverUnsent(() => false);
        expect(slow.poster.waits(place, 'msg:r1#1')).toBe(true);
        await next.publisher.recoverUnsent(() => false);
        expect(next.poster.waits(place, 'msg:r1#1')).toBe(true);
        // `slow`'s turn comes first: its claim is another's now, so it sends nothing.
        await slowClock.advance(1_000);
        await expect.poll(() => slow.poster.waiting()).toBe(0);
        expect(replies(place.cardTs)).toEqual([]);
        await nextClock.advance(1_000);
        await expect.poll(() => store.posts.unsent(place.sessionId)).toEqual([]);
        await expect.poll(() => next.poster.waiting()).toBe(0);
        expect(replies(place.cardTs).map((m) => m.text)).toEqual(['Posted by one.']);
      });

      it("a later pass leaves a live holder's leftovers and sends a dead one's once its claim lapsed", async () => {
        const held = await newSession(store, true);
        const lapsed = await newSession(store, true);
        await store.posts.begin(held.sessionId, 'msg:r1#1', JSON.stringify({ text: 'Held by a live one.' }));
        await store.posts.begin(
          lapsed.sessionId,
          'msg:r1#1',
          JSON.stringify({ text: 'Left by a dead one.' }),
        );
        expect(await store.recoveryClaims.claim(held.sessionId, 'alive', 60_000)).toBe(true);
        expect(await store.recoveryClaims.claim(lapsed.sessionId, 'dead', 0)).toBe(true);
        const next = replica(store, 'next');
        await next.publisher.recoverUnsent(() => false, { finishedOnly: true });
        expect(next.poster.waits(held, 'msg:r1#1')).toBe(false);
        await expect.poll(() => store.posts.unsent(lapsed.sessionId)).toEqual([]);
        expect(replies(lapsed.cardTs).map((m) => m.text)).toEqual(['Left by a dead one.']);
        expect(replies(held.cardTs)).toEqual([]);
        expect((await store.posts.unsent(held.sessionId)).map((r) => r.key)).toEqual(['msg:r1#1']);
      });

      it('chatter queued by the replica that finished the session (lost to the service): its claim, sent once', async () => {
        const place = await newSession(store, false);
        const other = await newSession(store, false);
        const ownerClock = new ManualClock(Date.now());
        const owner = replica(store, 'owner', { queueClock: ownerClock });
        // The owner's channel token goes to another session: the session's chatter waits its turn.
        await owner.poster.enqueueText(other, 'msg:o1', text('Other session.'));
        await expect.poll(() => replies(other.cardTs).length).toBe(1);
        await owner.poster.enqueueText(place, 'msg:r1#1', text('Queued before the end.'));
        const handled = owner.publisher.handle({
          type: 'error',
          sessionId: place.sessionId,
          key: 'error',
          error: new Error('session not found'),
          fatal: true,
          consecutiveFailures: 1,
        });
        await expect.poll(async () => (await store.sessions.get(place.sessionId))?.finished).toBe(true);
        // A replica starting now finds a finished session with an unsent key: the owner holds its claim.
        const starting = replica(store, 'starting');
        await recoverTogether(starting);
        expect(starting.poster.waits(place, 'msg:r1#1')).toBe(false);
        // The owner's channel refills a second at a time (chatter waits for a full burst) until all is out.
        let settled = false;
        void handled.finally(() => {
          settled = true;
        });
        await vi.waitFor(
          async () => {
            if (!settled || owner.poster.waiting() > 0) await ownerClock.advance(1_000);
            expect(settled).toBe(true);
            expect(await store.posts.unsent(place.sessionId)).toEqual([]);
          },
          { timeout: patient(10_000) },
        );
        await handled;
        const posted = replies(place.cardTs).map((m) => m.text);
        expect(posted.filter((t) => t === 'Queued before the end.')).toHaveLength(1);
        expect(posted.filter((t) => /can no longer follow this session/.test(t))).toHaveLength(1);
        expect(await store.finalCards.owed(place.sessionId)).toBeUndefined();
        await owner.cards.stop();
      });

      it("a streamed session's unsent pieces and lost start, recovered by replicas at once: posted once", async () => {
        const place = await newSession(store, true);
        const pieces = [{ markdown: 'Streamed and lost, 1.\n\n' }, { markdown: 'Streamed and lost, 2.\n\n' }];
        for (const [i, piece] of pieces.entries())
          await store.posts.begin(
            place.sessionId,
            `msg:r1#${i}`,
            JSON.stringify({ text: piece.markdown, stream: { roundId: 'r1', piece } }),
          );
        // A start whose answer was lost: nothing of it is in the thread.
        await store.streams.begin(place.sessionId, 1, 'r1', { keys: ['msg:r1#0', 'msg:r1#1'], pieces });
        const replicas = [
          replica(store, 'a', { streamed: true }),
          replica(store, 'b', { streamed: true }),
          replica(store, 'c', { streamed: true }),
        ];
        await recoverTogether(...replicas);
        await expect.poll(() => store.posts.unsent(place.sessionId)).toEqual([]);
        await expect.poll(() => replicas.map((r) => r.poster.waiting())).toEqual([0, 0, 0]);
        const posted = replies(place.cardTs);
        expect(posted).toHaveLength(1);
        expect(posted[0]?.text).toContain('Streamed and lost, 1.');
        expect(posted[0]?.text).toContain('Streamed and lost, 2.');
        // The finished session's stream is not started again.
        expect((await store.streams.latest(place.sessionId))?.inFlight ?? null).toBeNull();
        expect(world.sandbox.workspace.apiCalls.filter((c) => c.method === 'chat.startStream')).toEqual([]);
      });

      it('a retry after the lease moved posts nothing: the new owner posts the key, once', async () => {
        const place = await newSession(store, false);
        let owned = true;
        const retryClock = new ManualClock(Date.now());
        const old = replica(store, 'old', { retryClock, owns: () => owned });
        world.sandbox.failNext({ method: 'chat.postMessage', error: 'internal_error', channel: CHANNEL });
        await old.poster.enqueueText(place, 'msg:r1#1', text('Said once, by the owner.'));
        // The first attempt failed; the retry waits.
        await expect.poll(() => retryClock.pendingSleeps).toBe(1);
        // The lease moves to another replica meanwhile.
        owned = false;
        old.poster.withdraw(place.sessionId);
        await retryClock.advance(1_000);
        await expect.poll(() => old.poster.waiting()).toBe(0);
        expect(replies(place.cardTs)).toEqual([]);
        expect((await store.posts.unsent(place.sessionId)).map((r) => r.key)).toEqual(['msg:r1#1']);
        // The new owner recovers it.
        const owner = replica(store, 'new', { owns: () => true });
        await owner.poster.recover(place);
        await expect.poll(() => store.posts.unsent(place.sessionId)).toEqual([]);
        expect(replies(place.cardTs).map((m) => m.text)).toEqual(['Said once, by the owner.']);
        const oldPosted = (await old.metrics.postOutcomes.get()).values.filter(
          (v) => v.labels.outcome === 'posted' && v.value > 0,
        );
        expect(oldPosted).toEqual([]);
      });

      it('a final card edit Slack refused is owed, and sent once by the replicas recovering next', async () => {
        const place = await newSession(store, false);
        const finishing = replica(store, 'finishing');
        world.sandbox.failNext({ method: 'chat.update', error: 'internal_error', channel: CHANNEL });
        const finished: FollowEvent = {
          type: 'finished',
          sessionId: place.sessionId,
          key: 'finished',
          status: 'completed',
          succeeded: true,
          session: { sessionId: place.sessionId, status: 'completed', rounds: [] },
        };
        await finishing.publisher.handle(finished);
        expect((await store.sessions.get(place.sessionId))?.finished).toBe(true);
        const owed = await store.finalCards.owed(place.sessionId);
        expect(owed).toBeDefined();
        const card = JSON.parse(owed as string) as { text: string };
        expect(world.sandbox.workspace.findMessage(CHANNEL, place.cardTs)?.text).not.toBe(card.text);
        const updatesBefore = okUpdates();
        const replicas = [replica(store, 'a'), replica(store, 'b'), replica(store, 'c')];
        await recoverTogether(...replicas);
        expect(await store.finalCards.owed(place.sessionId)).toBeUndefined();
        expect(okUpdates() - updatesBefore).toBe(1);
        expect(world.sandbox.workspace.findMessage(CHANNEL, place.cardTs)?.text).toBe(card.text);
        // Recovered, it is owed no more: the next start edits nothing.
        await recoverTogether(replica(store, 'd'));
        expect(okUpdates() - updatesBefore).toBe(1);
        for (const r of [finishing, ...replicas]) await r.cards.stop();
      });

      it('a final card Slack will never take (the card deleted) is owed no more: no edit every pass', async () => {
        const place = await newSession(store, false);
        const finishing = replica(store, 'finishing');
        world.sandbox.failNext({ method: 'chat.update', error: 'message_not_found', channel: CHANNEL });
        await finishing.publisher.handle({
          type: 'finished',
          sessionId: place.sessionId,
          key: 'finished',
          status: 'completed',
          succeeded: true,
          session: { sessionId: place.sessionId, status: 'completed', rounds: [] },
        });
        expect((await store.sessions.get(place.sessionId))?.finished).toBe(true);
        expect(await store.finalCards.owed(place.sessionId)).toBeUndefined();
        await finishing.cards.stop();
      });

      it('a final card edit the shutdown cut short is owed, and sent by the next recovery', async () => {
        const place = await newSession(store, false);
        const stopping = replica(store, 'stopping');
        // The grace ran out before the edit went: the card updater stops with it unsent.
        await stopping.cards.stop();
        await stopping.publisher.handle({
          type: 'finished',
          sessionId: place.sessionId,
          key: 'finished',
          status: 'failed',
          succeeded: false,
          session: { sessionId: place.sessionId, status: 'failed', rounds: [] },
        });
        const owed = await store.finalCards.owed(place.sessionId);
        expect(owed).toBeDefined();
        const next = replica(store, 'next');
        await recoverTogether(next);
        expect(await store.finalCards.owed(place.sessionId)).toBeUndefined();
        const card = JSON.parse(owed as string) as { text: string };
        expect(world.sandbox.workspace.findMessage(CHANNEL, place.cardTs)?.text).toBe(card.text);
        await next.cards.stop();
      });
    },
  );
}
