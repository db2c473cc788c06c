import { readFileSync } from 'node:fs';
import { STATUS_LIST } from '@agent-sessions/core';
import { describe, expect, it } from 'vitest';
import { homeView } from '../../src/blocks/home.js';
import { cardStateOf, sessionCard, startingCard } from '../../src/blocks/session-card.js';
import { shownGoal, summaryLine, summaryOf } from '../../src/blocks/session-summary.js';
import {
  CANT_POST_STATUS,
  statusLabel,
  statusStage,
  UNREACHABLE_STATUS,
} from '../../src/blocks/status-words.js';
import { agentStatusOf, sessionTitle } from '../../src/services/slack-out/agent-surface/agent-status.js';
import { session } from '../fakes.js';

const created = '2026-11-22T12:00:00.000Z';
const at = (seconds: number) => Date.parse(created) + seconds * 1000;

describe('one summary of a session', () => {
  it('while it runs, its elapsed time runs; once it ended, it stops at the end, however late it is read', () => {
    const record = session({ budget: 2, createdAt: created });
    const running = { status: 'running', cost: { totalCost: 0.01 }, rounds: [{}] };
    expect(summaryLine(summaryOf(record, running, at(20)))).toBe(
      '⚙️ Running · $0.010 of $2.00 · 1 round · 20s',
    );
    const ended = {
      status: 'cancelled',
      cost: { totalCost: 0.032 },
      rounds: [{}, {}],
      completedAt: new Date(at(29)).toISOString(),
    };
    for (const now of [at(52), at(3600)])
      expect(summaryLine(summaryOf(record, ended, now))).toBe(
        '🛑 Ended · Cancelled · $0.032 of $2.00 · 2 rounds · 29s',
      );
    // No completedAt from the service: its last update is when it ended.
    const updated = { ...ended, completedAt: null, updatedAt: new Date(at(31)).toISOString() };
    expect(summaryOf(record, updated, at(600)).elapsedMs).toBe(31_000);
  });

  it('makes no numbers up: an ended session the service was not asked about shows them unknown', () => {
    const ended = summaryOf(session({ status: 'completed', finished: true }), undefined, at(99));
    expect(summaryLine(ended)).toBe('✅ Ended · Completed · — · — rounds · —');
    // A session just created has spent nothing yet.
    expect(summaryLine(summaryOf(session({ status: 'queued', createdAt: created }), undefined, at(3)))).toBe(
      '⏳ Running · Queued · $0.000 · 0 rounds · 3s',
    );
  });

  it('the card shows the same summary as the line', () => {
    const record = session({ budget: 2, createdAt: created, status: 'cancelled' });
    const snapshot = {
      status: 'cancelled',
      cost: { totalCost: 0.032 },
      rounds: [{}, {}],
      completedAt: new Date(at(29)).toISOString(),
    };
    const card = JSON.stringify(sessionCard(cardStateOf(record, snapshot, at(52))).blocks);
    for (const part of ['🛑 Ended · Cancelled', '$0.032 of $2.00', '*Rounds*\\n2', '*Elapsed*\\n29s'])
      expect(card).toContain(part);
  });
});

describe('the goal as people read it', () => {
  it('without the emulator’s scenario word, on the card, App Home and the thread’s title', () => {
    expect(shownGoal('scenario:approval deploy v2')).toBe('deploy v2');
    expect(shownGoal('deploy v2 scenario:long_run now')).toBe('deploy v2 now');
    expect(shownGoal('scenario:complete')).toBe('scenario:complete');
    expect(shownGoal('a scenario:word-like thing')).toBe('a scenario:word-like thing');
    const record = session({ goal: 'scenario:approval deploy v2' });
    const shownOn = [
      JSON.stringify(sessionCard(cardStateOf(record, undefined, at(1))).blocks[0]),
      JSON.stringify(startingCard(record.goal, 'U0ALICE').blocks[0]),
      JSON.stringify(homeView([record]).blocks),
      sessionTitle(record.goal),
    ];
    for (const shown of shownOn) {
      expect(shown).toContain('deploy v2');
      expect(shown).not.toContain('scenario:');
    }
  });
});

describe('one status word per stage', () => {
  // The sandbox's page shows Slack's badge on a session's thread in these words.
  const page = readFileSync(new URL('../../../slack-sandbox/web/agent.js', import.meta.url), 'utf8');
  const badge = Object.fromEntries(
    [...(/const STATUS_WORDS = \{([^}]*)\}/.exec(page)?.[1] ?? '').matchAll(/(\w+): '([^']+)'/g)].map((m) => [
      m[1],
      m[2],
    ]),
  );

  it.each([
    ...STATUS_LIST,
    'complete',
    'failed',
    'canceled',
    UNREACHABLE_STATUS,
    CANT_POST_STATUS,
    'thinking',
  ])('%s: the card, App Home and the thread’s badge say the same word', (status) => {
    const stage = statusStage(status);
    // The label's first word, after its emoji.
    expect(statusLabel(status).split(' ')[1]).toBe(stage);
    expect(badge[agentStatusOf(status)]).toBe(stage);
    expect(JSON.stringify(homeView([session({ status })]).blocks)).toContain(statusLabel(status));
  });
});
