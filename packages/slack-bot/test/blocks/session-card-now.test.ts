import { validateBlocks } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { currentStepOf, sessionCard, startingCard } from '../../src/blocks/session-card.js';

const state = {
  sessionId: 'sess_1',
  goal: 'Ship it <!channel>',
  status: 'running',
  startedBy: 'U0ALICE',
  totalCost: 0.1,
  budget: null,
  rounds: 1,
  createdAt: '2026-11-22T12:00:00.000Z',
  now: Date.parse('2026-11-22T12:01:00.000Z'),
};

describe('the card’s now line and origin', () => {
  it('the current step: the latest tool call, else the first line said; nothing for results and questions', () => {
    expect(
      currentStepOf({
        role: 'assistant',
        content: 'x',
        toolCalls: [{ name: 'a' }, { function: { name: 'deploy' } }],
      }),
    ).toBe('🔧 deploy');
    expect(currentStepOf({ role: 'assistant', content: 'Reading the docs.\nThen more.' })).toBe(
      'Reading the docs.',
    );
    expect(currentStepOf({ role: 'tool', name: 'search', content: 'results' })).toBeUndefined();
    expect(currentStepOf({ role: 'assistant', name: 'human_input_needed', content: '{}' })).toBeUndefined();
    expect(currentStepOf({ role: 'assistant', content: 'y'.repeat(400) })?.length).toBeLessThanOrEqual(150);
  });

  it('shows “Now:” while working (escaped, unable to ping) and the origin; not once finished', () => {
    const card = sessionCard({
      ...state,
      currentStep: 'Telling <!here> @channel',
      origin: 'Started from this thread (3 messages as context)',
    });
    const text = JSON.stringify(card.blocks);
    expect(text).toContain('*Now:* Telling @\u2060here @\u2060channel');
    expect(text).toContain('Started from this thread (3 messages as context)');
    expect(card.text).not.toMatch(/<!channel>/);
    expect(validateBlocks(card.blocks, 'message')).toEqual([]);
    // Waiting on a person (a question, its budget, a pause), the agent does nothing: no stale step.
    for (const status of ['waiting_human', 'cost_limit', 'paused']) {
      const waiting = sessionCard({ ...state, status, currentStep: '🔧 search_docs' });
      expect({ status, text: JSON.stringify(waiting.blocks) }).not.toMatchObject({
        text: expect.stringContaining('Now:'),
      });
    }
    const done = sessionCard({ ...state, status: 'completed', currentStep: 'Telling' });
    expect(JSON.stringify(done.blocks)).not.toContain('Now:');
    expect(
      JSON.stringify(startingCard('Go', 'U0ALICE', 'Started from this thread (1 message as context)').blocks),
    ).toContain('Started from this thread (1 message as context)');
  });
});
