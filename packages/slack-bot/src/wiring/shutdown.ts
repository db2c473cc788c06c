import type { Server } from 'node:http';
import type { App } from '@slack/bolt';
import type { Logger } from '../logger.js';
import type { LeaseKeeper } from '../services/following/lease-keeper.js';
import type { Readiness, RequestsInFlight } from '../services/ops/readiness.js';
import type { SlackOut } from './types.js';

/** How often a replica going away looks whether its work is done (its parts feed each other). */
const DRAIN_CHECK_MS = 20;
/** Kept of the grace for releasing the leases and closing: the rest is for finishing the work. */
const CLOSE_RESERVE_MS = 3_000;

export interface ShutdownParts {
  readiness: Readiness;
  requests: RequestsInFlight;
  app: App;
  /** HTTP mode: the server of /slack/events and the routes; Socket Mode: the routes' own server. */
  server: Server;
  socketMode: boolean;
  reminders: { stop(): Promise<void> };
  /** Workflow Builder steps' checks: stopped with the reminders (another replica completes them). */
  workflows: { stop(): Promise<void> };
  leases: Pick<LeaseKeeper, 'stop' | 'release'>;
  follower: { stop(): Promise<void> };
  out: Pick<SlackOut, 'outbound' | 'poster' | 'cards'>;
  streams: { waiting(): number } | undefined;
  /** Closes the store (not when the caller lent it). */
  closeStore: () => Promise<void>;
  logger: Logger;
  replicaId: string;
}

/**
 * A replica going away, in order, within `graceMs`: not ready any more (`/readyz` 503); no new Slack
 * requests (HTTP: the listener closed, so the load balancer's next connection goes to another replica;
 * Socket Mode: disconnected, so Slack sends the next envelope down another replica's connection); no new
 * work (reminders, workflow steps, lease renewals and polls stopped); the work begun finished: the
 * requests being handled and every Slack post queued (the outbound queue drained); then card edits
 * stopped and the leases released, which pokes their sessions so the other replicas take them at their
 * next poke pass instead of when the leases expire.
 * Posts still queued when the grace runs short are recorded with their content: the next owner posts them.
 * A finished session's final card edit left unsent is owed in the store: the next recovery sends it.
 */
export async function shutDown(parts: ShutdownParts, graceMs: number): Promise<void> {
  const { readiness, leases, logger, replicaId } = parts;
  const began = Date.now();
  const workDeadline = began + Math.max(graceMs - CLOSE_RESERVE_MS, graceMs / 2);
  readiness.drain();
  logger.info({ replicaId, graceMs }, 'draining: no new work; finishing what is in flight');
  const intakeClosed = stopIntake(parts);
  // Each waits for its work on its way (a Home being published, a reminder being posted), within the grace:
  // a Slack that doesn't answer holds the leases no longer than that.
  await beforeDeadline(parts.reminders.stop(), workDeadline);
  await beforeDeadline(parts.workflows.stop(), workDeadline);
  await leases.stop();
  await beforeDeadline(parts.follower.stop(), workDeadline);
  const pollsDoneMs = Date.now() - began;
  const left = await drained(parts, workDeadline);
  if (left) logger.warn({ replicaId, ...left }, 'grace ran short: the next owner posts what is left');
  const postsDoneMs = Date.now() - began;
  // No card edit starts here once the leases go (one already on its way is waited for after): a progress
  // edit drawn from this replica's last view, sent after the next owner drew the end, would show the
  // session running again. Not awaited first, so a slow edit never holds the leases back.
  const cardsStopped = parts.out.cards.stop();
  await leases.release();
  logger.info({ replicaId, pollsDoneMs, postsDoneMs, afterMs: Date.now() - began }, 'leases released');
  await cardsStopped;
  await closeIntake(parts, intakeClosed);
  await parts.closeStore();
}

/** HTTP: the listener closed (not yet the connections); Socket Mode: the connection to Slack closed. */
function stopIntake({ app, server, socketMode, logger }: ShutdownParts): Promise<void> {
  if (socketMode)
    return app.stop().then(
      () => {},
      (error: unknown) => logger.warn({ err: error }, 'could not close the Socket Mode connection'),
    );
  // Bolt's stop closes its server: it settles once every connection has ended.
  const closed = app.stop().then(
    () => {},
    () => {},
  );
  server.closeIdleConnections();
  return closed;
}

async function closeIntake(parts: ShutdownParts, intakeClosed: Promise<void>): Promise<void> {
  if (parts.socketMode) {
    await intakeClosed;
    const closed = new Promise((done) => parts.server.close(done));
    parts.server.closeAllConnections();
    await closed;
    return;
  }
  parts.server.closeAllConnections();
  await intakeClosed;
}

/** Waits until nothing is in flight, or the deadline: what was still in flight then, or undefined. */
async function drained(parts: ShutdownParts, deadline: number) {
  const inFlight = () => {
    // A progress edit of a card is left: the next owner draws the card on its first poll anyway.
    const cards = parts.out.cards.pendingByRank();
    const left = {
      requests: parts.requests.count,
      outbound: parts.out.outbound.busy(),
      chatter: parts.out.poster.waiting() + (parts.streams?.waiting() ?? 0),
      cardEdits: cards.final + cards.attention,
    };
    return left.requests > 0 || left.outbound || left.chatter > 0 || left.cardEdits > 0 ? left : undefined;
  };
  let left = inFlight();
  while (left && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_CHECK_MS));
    left = inFlight();
  }
  return left;
}

function beforeDeadline(work: Promise<void>, deadline: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
