import { describe, expect, it } from 'vitest';
import { PLAN_TITLE_MAX, planTitle, streamStart } from '../../src/blocks/stream-plan.js';

describe('a stream shown as a plan (AGENT_TASK_DISPLAY)', () => {
  it('plan: chat.startStream gets task_display_mode "plan" and a plan_update titled with the goal', () => {
    expect(streamStart('plan', 'Ship the release', false)).toEqual({
      task_display_mode: 'plan',
      lead: [{ type: 'plan_update', title: 'Ship the release' }],
    });
    // The next stream of a long round says it continues.
    expect(streamStart('plan', 'Ship the release', true).lead).toEqual([
      { type: 'plan_update', title: 'Ship the release (continued)' },
    ]);
  });

  it('timeline (the default): nothing added, Slack’s own default mode', () => {
    expect(streamStart('timeline', 'Ship the release', false)).toEqual({ lead: [] });
  });

  it('titles: one line, never empty, at most 200 characters', () => {
    expect(planTitle('  Fix\nthe   build ')).toBe('Fix the build');
    expect(planTitle('')).toBe('Agent session');
    const long = planTitle('x'.repeat(500), true);
    expect(long).toHaveLength(PLAN_TITLE_MAX);
    expect(long.endsWith('…')).toBe(true);
    expect(streamStart('plan', undefined, false).lead).toEqual([
      { type: 'plan_update', title: 'Agent session' },
    ]);
  });
});
