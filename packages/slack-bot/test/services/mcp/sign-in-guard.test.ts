import { describe, expect, it } from 'vitest';
import { SignInGuard, TOKEN_PREFIX } from '../../../src/services/mcp/index.js';

// Tokens of our shape (the prefix, then 43 base64url characters), and ones that aren't.
const wellFormed = (n: number) => `${TOKEN_PREFIX}${String(n).padStart(43, 'x')}`;
const MALFORMED = 'asm_mcp_guess';

describe('SignInGuard (failed token checks per client address)', () => {
  it('admits an address until it has spent perMinute tries, then says when to come back', () => {
    let now = 1_000;
    const guard = new SignInGuard({ perMinute: 3, now: () => now });
    for (let i = 0; i < 3; i++) expect(guard.admit('10.0.0.1', MALFORMED).allowed).toBe(true);
    expect(guard.admit('10.0.0.1', MALFORMED)).toEqual({ allowed: false, retryAfterSeconds: 20 });
    expect(guard.admit('10.0.0.1', undefined).allowed).toBe(false);
    // Another address has its own budget.
    expect(guard.admit('10.0.0.2', MALFORMED)).toEqual({ allowed: true, charged: true });
    now += 20_000;
    expect(guard.admit('10.0.0.1', MALFORMED).allowed).toBe(true);
  });

  it('a burst sent at once, before any answer, is admitted only up to the budget', () => {
    const guard = new SignInGuard({ perMinute: 3, lookupsPerSecond: 1, now: () => 1_000 });
    // Nothing is said to pass or fail in between: admission alone spends the budget.
    const answers = Array.from({ length: 10 }, () => guard.admit('10.0.0.1', undefined));
    expect(answers.filter((a) => a.allowed)).toHaveLength(3);
  });

  it('a check that passed gives its try back to the address', () => {
    const guard = new SignInGuard({ perMinute: 2, lookupsPerSecond: 1, now: () => 1_000 });
    for (let i = 0; i < 5; i++) {
      const admitted = guard.admit('10.0.0.1', wellFormed(i));
      expect(admitted).toEqual({ allowed: true, charged: true });
      guard.passed('10.0.0.1', wellFormed(i), admitted);
    }
    expect(guard.admit('10.0.0.1', undefined).allowed).toBe(true);
    expect(guard.admit('10.0.0.1', undefined).allowed).toBe(true);
    expect(guard.admit('10.0.0.1', undefined).allowed).toBe(false);
  });

  it('a token that passed in the last ten minutes gets past a spent address budget', () => {
    let now = 1_000;
    const guard = new SignInGuard({ perMinute: 1, lookupsPerSecond: 1, now: () => now });
    guard.passed('10.0.0.9', 'asm_mcp_good', { allowed: true, charged: false });
    guard.admit('10.0.0.1', undefined);
    expect(guard.admit('10.0.0.1', 'asm_mcp_good')).toEqual({ allowed: true, charged: false });
    expect(guard.admit('10.0.0.1', MALFORMED).allowed).toBe(false);
    now += 10 * 60_000 + 1;
    guard.admit('10.0.0.1', undefined);
    expect(guard.admit('10.0.0.1', 'asm_mcp_good').allowed).toBe(false);
  });

  it('once an address is spent, a well-formed token is still looked up; none or a malformed one is refused', () => {
    const guard = new SignInGuard({ perMinute: 1, now: () => 1_000 });
    expect(guard.admit('10.0.0.1', undefined).allowed).toBe(true);
    expect(guard.admit('10.0.0.1', undefined).allowed).toBe(false);
    expect(guard.admit('10.0.0.1', MALFORMED).allowed).toBe(false);
    expect(guard.admit('10.0.0.1', `${wellFormed(1)}!`).allowed).toBe(false);
    expect(guard.admit('10.0.0.1', wellFormed(1))).toEqual({ allowed: true, charged: false });
  });

  it('the lookups past spent addresses share one budget per replica, refilled each second', () => {
    let now = 1_000;
    const guard = new SignInGuard({ perMinute: 1, lookupsPerSecond: 3, now: () => now });
    for (const address of ['10.0.0.1', '10.0.0.2']) guard.admit(address, undefined);
    const tries = ['10.0.0.1', '10.0.0.2', '10.0.0.1', '10.0.0.2', '10.0.0.1'].map((address, i) =>
      guard.admit(address, wellFormed(i)),
    );
    expect(tries.map((t) => t.allowed)).toEqual([true, true, true, false, false]);
    expect(tries[3]).toMatchObject({ allowed: false, retryAfterSeconds: expect.any(Number) });
    now += 1_000;
    expect(guard.admit('10.0.0.2', wellFormed(9)).allowed).toBe(true);
  });
});
