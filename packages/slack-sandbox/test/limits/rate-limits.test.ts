import { describe, expect, it } from 'vitest';
import {
  RateLimiter,
  type RateLimitOptions,
  rateLimitsFromEnv,
  resolveRateLimits,
} from '../../src/limits/rate-limits.js';

/** A limiter on a clock the test moves by hand: no timers, no waiting. */
function limiter(options: RateLimitOptions = {}) {
  let now = 1_000_000;
  const rl = new RateLimiter(options, () => now);
  return {
    rl,
    advance: (ms: number) => {
      now += ms;
    },
    /** How many calls in a row are admitted right now. */
    admitted(method: string, channel?: string, max = 1000): number {
      let n = 0;
      while (n < max && rl.check(method, channel).ok) n++;
      return n;
    },
  };
}

describe('the rate limiter (Slack’s limits on an injected clock)', () => {
  it('chat.postMessage: a burst of 5 per channel, then one a second; channels are separate', () => {
    const { rl, advance, admitted } = limiter();
    expect(admitted('chat.postMessage', 'C1')).toBe(5);
    const refused = rl.check('chat.postMessage', 'C1');
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 1, limit: 'chat.postMessage in C1' });
    expect(admitted('chat.postMessage', 'C2')).toBe(5);
    advance(999);
    expect(rl.check('chat.postMessage', 'C1').ok).toBe(false);
    advance(1);
    expect(admitted('chat.postMessage', 'C1')).toBe(1);
    advance(3_000);
    expect(admitted('chat.postMessage', 'C1')).toBe(3);
  });

  it('chat.postMessage: the workspace-wide cap holds across channels', () => {
    const { rl, admitted } = limiter({ postWorkspace: { perMinute: 60, burst: 8 } });
    expect(admitted('chat.postMessage', 'C1')).toBe(5);
    expect(admitted('chat.postMessage', 'C2')).toBe(3);
    expect(rl.check('chat.postMessage', 'C3')).toEqual({
      ok: false,
      retryAfterSeconds: 1,
      limit: 'chat.postMessage workspace-wide',
    });
  });

  it('Tier 3 (chat.update) allows 50 a minute per method, Tier 4 (views.open) 100; methods are separate', () => {
    const { rl, advance, admitted } = limiter();
    expect(admitted('chat.update')).toBe(50);
    const refused = rl.check('chat.update');
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 2, limit: 'chat.update (Tier 3)' });
    expect(admitted('reactions.add')).toBe(50);
    expect(admitted('views.open')).toBe(100);
    expect(admitted('chat.postEphemeral')).toBe(100);
    expect(admitted('usergroups.users.list')).toBe(20);
    advance(1_200); // 50 a minute is one per 1.2 s
    expect(admitted('chat.update')).toBe(1);
  });

  it('a refused call does not count against the limit', () => {
    const { rl, advance, admitted } = limiter({ tiers: { 3: { perMinute: 60, burst: 1 } } });
    expect(admitted('chat.update')).toBe(1);
    for (let i = 0; i < 10; i++) expect(rl.check('chat.update').ok).toBe(false);
    advance(1_000);
    expect(rl.check('chat.update').ok).toBe(true);
  });

  it('Retry-After is the whole seconds until the next call fits', () => {
    const { rl, advance, admitted } = limiter({ tiers: { 2: { perMinute: 6, burst: 1 } } });
    expect(admitted('usergroups.users.list')).toBe(1);
    expect(rl.check('usergroups.users.list')).toMatchObject({ retryAfterSeconds: 10 });
    advance(7_500);
    expect(rl.check('usergroups.users.list')).toMatchObject({ retryAfterSeconds: 3 });
  });

  it('history: Tier 3 for internal apps; 1 a minute and 15 a page for non-Marketplace apps', () => {
    const internal = limiter();
    expect(internal.admitted('conversations.replies')).toBe(50);
    expect(internal.rl.config.historyPage).toEqual({ max: 1000, default: 100 });
    const commercial = limiter({ historyProfile: 'non-marketplace' });
    expect(commercial.admitted('conversations.history')).toBe(1);
    expect(commercial.admitted('conversations.replies')).toBe(1);
    expect(commercial.rl.check('conversations.replies')).toMatchObject({ ok: false, retryAfterSeconds: 60 });
    commercial.advance(60_000);
    expect(commercial.admitted('conversations.replies')).toBe(1);
    expect(commercial.rl.config.historyPage).toEqual({ max: 15, default: 15 });
  });
});

describe('rate limit configuration', () => {
  it('reads SANDBOX_RATE_LIMITS and the figures from the environment', () => {
    expect(rateLimitsFromEnv({ SANDBOX_RATE_LIMITS: 'off' })).toBe(false);
    expect(rateLimitsFromEnv({})).toEqual({});
    expect(
      rateLimitsFromEnv({
        SANDBOX_RATE_POST_CHANNEL: '120:2',
        SANDBOX_RATE_TIER3: '10:1',
        SANDBOX_HISTORY_PROFILE: 'non-marketplace',
        SANDBOX_HISTORY_PAGE_MAX: '5',
      }),
    ).toEqual({
      postPerChannel: { perMinute: 120, burst: 2 },
      tiers: { 3: { perMinute: 10, burst: 1 } },
      historyProfile: 'non-marketplace',
      historyPage: { max: 5, default: 5 },
    });
  });

  it('refuses bad figures, naming the variable and the rule', () => {
    expect(() => rateLimitsFromEnv({ SANDBOX_RATE_LIMITS: 'maybe' })).toThrow(
      'SANDBOX_RATE_LIMITS must be "on" or "off", got "maybe"',
    );
    expect(() => rateLimitsFromEnv({ SANDBOX_RATE_TIER4: '100' })).toThrow(
      'SANDBOX_RATE_TIER4 must be "<per minute>:<burst>", e.g. "60:5", got "100"',
    );
    expect(() => rateLimitsFromEnv({ SANDBOX_RATE_HISTORY: '0:1' })).toThrow(
      'SANDBOX_RATE_HISTORY.perMinute must be a positive number, got 0',
    );
    expect(() => rateLimitsFromEnv({ SANDBOX_HISTORY_PROFILE: 'marketplace' })).toThrow(
      'SANDBOX_HISTORY_PROFILE must be "internal" or "non-marketplace", got "marketplace"',
    );
    expect(() => resolveRateLimits({ postPerChannel: { perMinute: 60, burst: 1.5 } })).toThrow(
      'postPerChannel.burst must be a whole number, got 1.5',
    );
  });
});
