import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../../src/services/mcp/index.js';

describe("each MCP token's request budget", () => {
  it('spends its burst, then refuses with when to come back, then refills at its rate', () => {
    let now = 0;
    const budget = new RequestBudget({ perMinute: 3, now: () => now });
    expect([budget.take('a'), budget.take('a'), budget.take('a')].every((t) => t.allowed)).toBe(true);
    expect(budget.take('a')).toEqual({ allowed: false, retryAfterSeconds: 20 });
    // Another token has its own budget.
    expect(budget.take('b').allowed).toBe(true);
    now += 20_000;
    expect(budget.take('a').allowed).toBe(true);
    expect(budget.take('a').allowed).toBe(false);
  });

  it('a refused request spends nothing', () => {
    let now = 0;
    const budget = new RequestBudget({ perMinute: 60, now: () => now });
    for (let i = 0; i < 60; i++) budget.take('a');
    for (let i = 0; i < 100; i++) expect(budget.take('a').allowed).toBe(false);
    now += 1_000;
    expect(budget.take('a').allowed).toBe(true);
  });

  it('remembers at most maxTracked keys: the least recently used is forgotten, its budget full again', () => {
    const budget = new RequestBudget({ perMinute: 1, now: () => 0, maxTracked: 2 });
    budget.take('a');
    budget.take('b');
    expect(budget.take('a').allowed).toBe(false); // a is now the most recently used
    budget.take('c'); // forgets b, not a
    expect(budget.take('a').allowed).toBe(false);
    expect(budget.take('b').allowed).toBe(true);
  });

  it('refund gives back one request spent, never past the burst', () => {
    const budget = new RequestBudget({ perMinute: 2, now: () => 0 });
    budget.take('a');
    budget.take('a');
    expect(budget.take('a').allowed).toBe(false);
    budget.refund('a');
    expect(budget.take('a').allowed).toBe(true);
    expect(budget.take('a').allowed).toBe(false);
    for (let i = 0; i < 5; i++) budget.refund('a');
    expect([budget.take('a'), budget.take('a'), budget.take('a')].map((a) => a.allowed)).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('a bad rate is refused at once, naming it', () => {
    expect(() => new RequestBudget({ perMinute: 0 })).toThrow(/perMinute/);
  });
});
