import { describe, expect, it } from 'vitest';
import { defaultSchedulePolicy, nextIntervalMs } from '../../src/follow/schedule-policy.js';

const policy = defaultSchedulePolicy;

describe('how soon a session is polled again', () => {
  it('an active session: at once after a change, backing off to the ceiling while nothing changes', () => {
    expect(nextIntervalMs(policy, { activity: 'active', changed: true, previousIntervalMs: 9_000 })).toBe(
      1_000,
    );
    expect(nextIntervalMs(policy, { activity: 'active', changed: false, previousIntervalMs: 1_000 })).toBe(
      1_500,
    );
    expect(nextIntervalMs(policy, { activity: 'active', changed: false, previousIntervalMs: 14_000 })).toBe(
      15_000,
    );
  });

  it('a status the spec does not list is polled like an active one (the service working), up to its own ceiling', () => {
    // A real service's `thinking` between runs must not hold a question back for the whole ceiling.
    expect(
      nextIntervalMs(policy, { activity: 'unknown', changed: true, previousIntervalMs: undefined }),
    ).toBe(1_000);
    expect(nextIntervalMs(policy, { activity: 'unknown', changed: false, previousIntervalMs: 1_000 })).toBe(
      1_500,
    );
    expect(nextIntervalMs(policy, { activity: 'unknown', changed: false, previousIntervalMs: 9_000 })).toBe(
      10_000,
    );
  });

  it('a session waiting on a person waits for a poke; a finished one is not polled', () => {
    expect(
      nextIntervalMs(policy, { activity: 'needs_person', changed: true, previousIntervalMs: 1_000 }),
    ).toBe(300_000);
    expect(nextIntervalMs(policy, { activity: 'terminal', changed: true, previousIntervalMs: 1_000 })).toBe(
      0,
    );
  });
});
