/**
 * A replica going away, step by step: each part is a recording stand-in, so the order is what is asserted
 * (the replicas' own SIGTERM path runs end to end in test/e2e/rolling-update.test.ts).
 */
import { createServer } from 'node:http';
import type { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import type { Readiness, RequestsInFlight } from '../../src/services/ops/readiness.js';
import { type ShutdownParts, shutDown } from '../../src/wiring/shutdown.js';
import { logger } from '../fakes.js';

/** Every part of a replica, each recording its steps in `steps`. */
function replica(steps: string[]): ShutdownParts {
  const step = (name: string) => async (): Promise<void> => {
    steps.push(name);
  };
  let cardsStopped = false;
  return {
    readiness: { drain: () => steps.push('not ready') } as unknown as Readiness,
    requests: { count: 0 } as RequestsInFlight,
    app: { stop: step('intake closed') } as unknown as App,
    server: createServer(),
    socketMode: false,
    reminders: { stop: step('reminders stopped') },
    workflows: { stop: step('workflow steps stopped') },
    leases: { stop: step('leases no longer renewed'), release: step('leases released') },
    follower: { stop: step('polls stopped') },
    out: {
      outbound: { busy: () => false },
      poster: { waiting: () => 0 },
      cards: {
        // A progress edit waits until the card updater stops: a drain does not wait for it.
        pendingByRank: () => ({ final: 0, attention: 0, progress: cardsStopped ? 0 : 1 }),
        stop: () => {
          cardsStopped = true;
          steps.push('card edits stopped');
          return Promise.resolve();
        },
      },
    } as unknown as ShutdownParts['out'],
    streams: undefined,
    closeStore: step('store closed'),
    logger,
    replicaId: 'replica-a',
  };
}

describe('shutDown', () => {
  it("stops the card edits before the leases go: the next owner's card is not drawn over from here", async () => {
    const steps: string[] = [];
    await shutDown(replica(steps), 5_000);
    expect(steps.indexOf('card edits stopped')).toBeGreaterThan(steps.indexOf('polls stopped'));
    expect(steps.indexOf('card edits stopped')).toBeLessThan(steps.indexOf('leases released'));
    expect(steps.at(-1)).toBe('store closed');
  });

  it('a background stop still waiting on Slack at the grace’s end holds the leases no longer', async () => {
    const steps: string[] = [];
    const parts = replica(steps);
    const never = () => new Promise<void>(() => {});
    await shutDown({ ...parts, reminders: { stop: never }, workflows: { stop: never } }, 400);
    expect(steps).toContain('leases released');
    expect(steps.at(-1)).toBe('store closed');
  });
});
