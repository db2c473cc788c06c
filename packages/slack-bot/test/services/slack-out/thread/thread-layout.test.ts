import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { plainParts } from '../../../../src/services/slack-out/thread/thread-layout.js';

// The text a post goes as when Slack refuses its blocks: nothing of what it showed may be missing.
describe('plainParts', () => {
  it('keeps a carried question: the chatter in full and the question after it', () => {
    const chatter = 'The release is built and tested. '.repeat(3).trim();
    const blocks: KnownBlock[] = [
      { type: 'markdown', text: chatter } as KnownBlock,
      { type: 'section', text: { type: 'mrkdwn', text: '*The agent asks:* Deploy v2.3.1?' } },
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' } }],
      },
    ];
    const { text } = plainParts({ text: 'The agent asks: Deploy v2.3.1?', blocks });
    expect(text.startsWith(chatter)).toBe(true);
    expect(text).toContain('Deploy v2.3.1?');
    expect(text.indexOf('Deploy v2.3.1?')).toBeGreaterThan(text.indexOf(chatter));
  });

  it('sends markdown blocks as their whole text, not the cut glance', () => {
    const long = 'word '.repeat(2_000).trim();
    const { text } = plainParts({
      text: 'glance…',
      blocks: [{ type: 'markdown', text: long } as KnownBlock],
    });
    expect(text).toBe(long);
  });

  it('a message without markdown goes as its text', () => {
    const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: '*bold* words' } }];
    expect(plainParts({ text: 'The words', blocks }).text).toBe('The words');
  });
});
