import { describe, expect, it } from 'vitest';
import { agentMessageText } from '../../src/blocks/index.js';
import { streamOutputs, titleOutputs } from './agent-surface-builders.js';
import { allOutputs } from './foreign-text-builders.js';
import { isHonest, linksIn, shownStrings } from './link-check.js';

/** A link whose text names one place and whose target is another, in both syntaxes an agent may write. */
const PHISHING = [
  '<https://evil.example|https://slack.com/approve>',
  '[https://slack.com/approve](https://evil.example)',
  '[Approve in Slack](https://evil.example/approve?next=1&x=2)',
  '[https://slack.com/approve](https://slack.com@evil.example/)',
  '[https://slack.com/approve](https://evil.example/a|https://slack.com/approve)',
  '[https://slack.com/approve](<https://evil.example>)',
  '[https://slack.com/approve](https://evil.example "Slack")',
  '[https://slack.com/approve][1]\n\n[1]: https://evil.example',
  '&lt;https://evil.example|https://slack.com/approve&gt;',
  '\\<https://evil.example|https://slack.com/approve>',
  '<a href="https://evil.example">https://slack.com/approve</a>',
];

/**
 * Everything the bot renders someone else's text with. Left out: `defuseMentions` alone only defuses
 * pings (what goes into a markdown block goes through safeMarkdown, covered), and `plainSafe` is for
 * plain_text, where Slack makes no links (`plain`, covered, is how it is used).
 */
const everyRenderer = (t: string) =>
  [...allOutputs(t), ...streamOutputs(t), ...titleOutputs(t)].filter(
    (o) => !o.name.startsWith('defuseMentions') && o.name !== 'plainSafe',
  );

describe('the agent’s links show where they go', () => {
  it.each(PHISHING)(
    '%s: no link shows another target than its text, and evil.example is visible',
    (payload) => {
      let showing = 0;
      for (const text of [`Please approve: ${payload} thanks`, payload]) {
        for (const { name, output } of everyRenderer(text)) {
          const dishonest = linksIn(output).filter((link) => !isHonest(link));
          expect({ name, dishonest }).toEqual({ name, dishonest: [] });
          // Where the whole text is shown (not an excerpt, a key's mask), so is the host it links to.
          const shown = shownStrings(output);
          if (shown.includes('Please approve') && shown.includes('thanks')) {
            expect({ name, shown: shown.includes('evil.example') }).toEqual({ name, shown: true });
            showing += 1;
          }
        }
      }
      expect(showing).toBeGreaterThan(40);
    },
  );

  it('a link reads `label (host)`, the host being the link; a label that is the URL or host is the link', () => {
    const text = agentMessageText(
      {
        role: 'assistant',
        content:
          'see [the docs](https://docs.example/a?b=1&c=2), [https://x.io/](https://x.io/), [x.io](https://x.io/p)',
      },
      { showReasoning: false },
    );
    expect(text?.mrkdwn).toBe(
      'see the docs (<https://docs.example/a?b=1&amp;c=2|docs.example>), <https://x.io/>, <https://x.io/p|x.io>',
    );
    expect(text?.markdown).toBe(
      'see the docs ([docs.example](https://docs.example/a?b=1&c=2)), [https://x.io/](https://x.io/), [x.io](https://x.io/p)',
    );
    expect(JSON.stringify(titleOutputs('[Ship](https://evil.example)'))).toContain(
      'Ship ([evil.example](https://evil.example/))',
    );
  });
});
