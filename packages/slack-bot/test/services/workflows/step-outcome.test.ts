import { describe, expect, it } from 'vitest';
import { CANT_POST_STATUS, UNREACHABLE_STATUS } from '../../../src/blocks/session-card.js';
import { endingOf, lostEnding } from '../../../src/services/workflows/step-outcome.js';

// A step whose session did not complete fails with a sentence Slack shows the person who ran the workflow:
// what happened to which session, and where its thread is.
const LINK = 'https://example.slack.com/archives/C1/p1';

describe('a step’s ending when its session did not complete', () => {
  it('a running session has no ending yet', () => {
    expect(endingOf('s_1', { status: 'running' }, LINK)).toBeUndefined();
    expect(endingOf('s_1', { status: 'waiting_human' }, LINK)).toBeUndefined();
  });

  it('a failed one says so, with the service’s reason when it gave one, either spelling', () => {
    expect(endingOf('s_1', { status: 'error', error: 'the repository is gone' }, LINK)).toEqual({
      kind: 'error',
      error: `The agent session s_1 failed: the repository is gone. Its thread: ${LINK}`,
    });
    expect(endingOf('s_1', { status: 'failed' }, undefined)).toEqual({
      kind: 'error',
      error: 'The agent session s_1 failed.',
    });
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
    const ending = endingOf('s_1', { status: 'error', error: 'x'.repeat(5_000) }, LINK);
    expect(ending?.kind).toBe('error');
    const error = ending?.kind === 'error' ? ending.error : '';
    expect(error).toHaveLength(1_000);
    expect(error.endsWith('…')).toBe(true);
  });
});
