import { describe, expect, it } from 'vitest';
import { approval } from '../../../../test/support/questions.js';
import { homeView } from '../../src/blocks/home.js';
import { promptMessage } from '../../src/blocks/prompt.js';
import { sessionCard } from '../../src/blocks/session-card.js';
import type { SessionRecord } from '../../src/store/records.js';

const session = (i: number): SessionRecord => ({
  sessionId: `s${i}`,
  channelId: 'C1',
  cardTs: '1.1',
  startedBy: 'U1',
  goal: `goal ${i}`,
  status: 'waiting_human',
  budget: null,
  finished: false,
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('who can answer, waiting on you, the latest decision', () => {
  it('the prompt says who can answer under its controls', () => {
    const shown = promptMessage(approval, {
      sessionId: 's1',
      startedBy: 'U1',
      answerers: 'Waiting for an approver: <!subteam^S1>',
    });
    expect(JSON.stringify(shown.blocks.at(-1))).toContain('Waiting for an approver: <!subteam^S1>');
    expect(
      JSON.stringify(promptMessage(approval, { sessionId: 's1', startedBy: 'U1' }).blocks),
    ).not.toContain('Waiting for');
  });

  it('App Home lists the questions waiting on the viewer first, and stays under 100 blocks', () => {
    const waiting = Array.from({ length: 8 }, (_, i) => ({
      session: session(i),
      prompt: { request: approval },
    }));
    const view = homeView(
      Array.from({ length: 60 }, (_, i) => session(100 + i)),
      waiting,
    );
    expect(JSON.stringify(view.blocks[0])).toContain('Waiting on you (8)');
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    const text = JSON.stringify(view.blocks);
    expect(text.indexOf('Waiting on you')).toBeLessThan(text.indexOf('Your agent sessions'));
    expect(text).toContain('…and 3 more');
    expect(text).toContain('input_approve');
    expect(JSON.stringify(homeView([session(1)]).blocks[0])).toContain('Your agent sessions');
    // Slack refuses a view whose block ids repeat (two approvals both have an `answer` block).
    const ids = view.blocks.map((b) => b.block_id).filter((id) => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the card footer shows the latest decision when there is one', () => {
    const base = {
      sessionId: 's1',
      goal: 'g',
      status: 'running',
      startedBy: 'U1',
      totalCost: 0,
      budget: null,
      rounds: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      now: Date.parse('2026-01-01T00:01:00.000Z'),
    };
    expect(
      JSON.stringify(sessionCard({ ...base, latestDecision: '<@U2> answered: Approved' }).blocks),
    ).toContain('Latest decision: <@U2> answered: Approved');
    expect(JSON.stringify(sessionCard(base).blocks)).not.toContain('Latest decision');
  });
});
