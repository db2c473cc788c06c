import { describe, expect, it } from 'vitest';
import { summaryOf } from '../../../src/blocks/session-summary.js';
import { sessionNumbers, sessionSummary } from '../../../src/services/mcp/session-view.js';
import { session } from '../../fakes.js';

// get_session and list_sessions say a session's numbers as its card and `/agent status` do: one summary.
const recorded = session({ budget: 2 });
const running = {
  status: 'running',
  cost: { totalCost: 0.032 },
  rounds: [{}, {}],
  createdAt: '2026-11-22T12:00:00.000Z',
};
const ended = { ...running, status: 'cancelled', completedAt: '2026-11-22T12:00:29.000Z' };
const atMinute = Date.parse('2026-11-22T12:01:00.000Z');
const dayOn = Date.parse('2026-11-23T12:00:00.000Z');

describe('an MCP tool’s view of a session', () => {
  it.each([
    ['running', running],
    ['ended', ended],
  ] as const)('%s: status words, cost, budget, rounds and elapsed time are summaryOf’s', (_, live) => {
    for (const now of [atMinute, dayOn]) {
      const summary = summaryOf(recorded, live, now);
      expect(sessionNumbers(recorded, live, now)).toEqual({
        live_status: live.status,
        status_label: summary.label,
        ended: summary.ended,
        cost_usd: summary.cost,
        budget_usd: summary.budget,
        rounds: summary.rounds,
        elapsed_seconds: Math.floor((summary.elapsedMs ?? Number.NaN) / 1000),
      });
    }
  });

  it('an ended session’s elapsed time stops at its end; a running one’s runs to now', () => {
    expect(sessionNumbers(recorded, ended, atMinute).elapsed_seconds).toBe(29);
    expect(sessionNumbers(recorded, ended, dayOn).elapsed_seconds).toBe(29);
    expect(sessionNumbers(recorded, running, atMinute).elapsed_seconds).toBe(60);
    expect(sessionNumbers(recorded, running, dayOn).elapsed_seconds).toBe(86_400);
    expect(sessionNumbers(recorded, ended, dayOn)).toMatchObject({
      status_label: '🛑 Ended · Cancelled',
      cost_usd: 0.032,
      budget_usd: 2,
      rounds: 2,
    });
  });

  it('without the service, the store’s record: an ended session’s numbers are unknown, not made up', () => {
    const gone = session({ status: 'cancelled', finished: true });
    expect(sessionNumbers(gone, undefined, dayOn)).toMatchObject({
      live_status: null,
      status_label: summaryOf(gone, undefined, dayOn).label,
      cost_usd: null,
      rounds: null,
      elapsed_seconds: null,
    });
  });

  it('list_sessions says each status in the card’s words', () => {
    const listed = sessionSummary(session({ status: 'waiting_human' }), atMinute);
    expect(listed.status).toBe('waiting_human');
    expect(listed.status_label).toBe(
      summaryOf(session({ status: 'waiting_human' }), undefined, atMinute).label,
    );
  });
});
