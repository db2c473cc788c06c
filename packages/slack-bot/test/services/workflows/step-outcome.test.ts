import { describe, expect, it } from 'vitest';
import { CANT_POST_STATUS, UNREACHABLE_STATUS } from '../../../src/blocks/session-card.js';
import { costText, elapsedText, roundsText, summaryOf } from '../../../src/blocks/session-summary.js';
import { endingOf, lostEnding } from '../../../src/services/workflows/step-outcome.js';

// A step whose session did not complete fails with a sentence Slack shows the person who ran the workflow:
// what happened to which session, and where its thread is.
const LINK = 'https://example.slack.com/archives/C1/p1';
const RECORDED = { goal: 'Deploy v2', status: 'running', budget: 2, createdAt: '2026-11-22T12:00:00.000Z' };
const ENDING = { recorded: RECORDED, now: Date.parse('2026-11-22T12:01:00.000Z') };

describe('a step’s ending when its session did not complete', () => {
  it('a running session has no ending yet', () => {
    expect(endingOf('s_1', { status: 'running' }, LINK, ENDING)).toBeUndefined();
    expect(endingOf('s_1', { status: 'waiting_human' }, LINK, ENDING)).toBeUndefined();
  });

  it('a failed one says so, with the service’s reason when it gave one, either spelling', () => {
    expect(endingOf('s_1', { status: 'error', error: 'the repository is gone' }, LINK, ENDING)).toEqual({
      kind: 'error',
      error: `The agent session s_1 failed: the repository is gone. Its thread: ${LINK}`,
    });
    expect(endingOf('s_1', { status: 'failed' }, undefined, ENDING)).toEqual({
      kind: 'error',
      error: 'The agent session s_1 failed.',
    });
  });

  it('the service’s reason and the agent’s report can neither ping nor disguise a link, wherever they are pasted', () => {
    const hostile = '<!channel> see <https://evil.example|https://sso.corp.example> and <#C0GENERAL> @here';
    const failed = endingOf('s_1', { status: 'failed', error: hostile }, undefined, ENDING);
    const done = endingOf(
      's_1',
      { status: 'completed', completionReport: { summary: hostile, details: [hostile] } },
      undefined,
      ENDING,
    );
    const texts = [
      failed?.kind === 'error' ? failed.error : '',
      done?.kind === 'success' ? done.outputs.result : '',
    ];
    for (const text of texts) {
      expect(text).toContain('see');
      expect(text).not.toMatch(/<!|<@|<https:|<#|(^|\s)@here/);
      // Read the same: only invisible joiners were added.
      expect(text.replaceAll('\u2060', '')).toContain(hostile);
    }
  });

  it('a lost one says why the bot stopped following it', () => {
    const unreachable = lostEnding('s_1', UNREACHABLE_STATUS, LINK);
    expect(unreachable).toEqual({
      kind: 'error',
      error: `The bot lost agent session s_1: the Agent Session Service no longer lets it see the session. Its thread: ${LINK}`,
    });
    const closed = lostEnding('s_1', CANT_POST_STATUS, LINK);
    expect(closed.kind).toBe('error');
    expect(closed.kind === 'error' && closed.error).toMatch(
      /can no longer post in the channel of agent session s_1/,
    );
  });

  it('a reason too long for Slack’s message is cut to 1,000 characters', () => {
    const ending = endingOf('s_1', { status: 'error', error: 'x'.repeat(5_000) }, LINK, ENDING);
    expect(ending?.kind).toBe('error');
    const error = ending?.kind === 'error' ? ending.error : '';
    expect(error).toHaveLength(1_000);
    expect(error.endsWith('…')).toBe(true);
  });
});

describe('a completed step’s result', () => {
  const completed = {
    status: 'completed',
    completionReport: { summary: 'Deployed *v2*', details: ['tests green'], ticket: 'OPS-1' },
    cost: { totalCost: 0.011 },
    rounds: [{}],
    createdAt: '2026-11-22T12:00:00.000Z',
    completedAt: '2026-11-22T12:00:29.000Z',
  };

  it('is plain text a person reads wherever the next step puts it: no Slack markup, money in dollars', () => {
    const ending = endingOf('s_1', completed, LINK, ENDING);
    if (ending?.kind !== 'success') throw new Error('a completed session is a success');
    expect(ending.outputs.result).toBe(
      '✅ Ended · Completed\nDeployed *v2*\n• tests green\n{\n  "ticket": "OPS-1"\n}\nCost $0.011 of $2.00 · 1 round · 29s',
    );
    // The `cost` output stays a number of dollars.
    expect(ending.outputs.cost).toBe(0.011);
  });

  it('says the summary every other view of the session reads, its elapsed time stopped at the end', () => {
    for (const now of [Date.parse('2026-11-22T12:00:30.000Z'), Date.parse('2026-11-23T12:00:00.000Z')]) {
      const ending = endingOf('s_1', completed, LINK, { recorded: RECORDED, now });
      if (ending?.kind !== 'success') throw new Error('a completed session is a success');
      const summary = summaryOf(RECORDED, completed, now);
      const lines = ending.outputs.result.split('\n');
      expect(lines[0]).toBe(summary.label);
      expect(lines.at(-1)).toBe(
        `Cost ${costText(summary)} · ${roundsText(summary)} · ${elapsedText(summary)}`,
      );
      expect(lines.at(-1)).toBe('Cost $0.011 of $2.00 · 1 round · 29s');
      expect(ending.outputs.cost).toBe(summary.cost);
    }
  });
});
