import { describe, expect, it } from 'vitest';
import { titleOutputs } from './agent-surface-builders.js';
import { allOutputs, OWN_MENTIONS, unclassifiedExports } from './foreign-text-builders.js';
import { commonMarkDecoded, PING_PAYLOADS as PAYLOADS, pingsIn, unexpectedPings } from './ping-check.js';

describe('no builder lets someone else’s text ping', () => {
  it('covers every export of blocks/index.ts: a new builder must be added to the ping test', () => {
    expect(unclassifiedExports()).toEqual([]);
  });

  it.each(PAYLOADS)('%s pings nobody through any builder, in any text or block', (payload) => {
    const outputs = allOutputs(`before ${payload} after`);
    expect(outputs.length).toBeGreaterThan(60);
    for (const { name, output } of outputs) {
      expect({ name, pings: unexpectedPings(output, OWN_MENTIONS) }).toEqual({ name, pings: [] });
    }
    // The payload alone, as the whole text (at the start of a line, where a bare @here is read).
    for (const { name, output } of allOutputs(payload)) {
      expect({ name, pings: unexpectedPings(output, OWN_MENTIONS) }).toEqual({ name, pings: [] });
    }
  });

  it('the bot’s own mentions still ping: the starter and the approvers are notified', () => {
    const outputs = allOutputs('Ship it?');
    const prompt = outputs.find((o) => o.name === 'promptMessage approval')?.output;
    expect(pingsIn(prompt)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('user:U0STARTER'),
        expect.stringContaining('subteam:S0APPROVERS'),
      ]),
    );
  });
});

describe('no title pings: a goal or a new direction as the session’s and the plan’s title', () => {
  it.each(PAYLOADS)('%s pings nobody in agents.sessions.setStatus, rename or a plan title', (payload) => {
    for (const text of [`Deploy ${payload} now`, payload]) {
      for (const { name, output } of titleOutputs(text)) {
        expect({ name, pings: pingsIn(output) }).toEqual({ name, pings: [] });
      }
    }
  });
});

describe('the ping check itself', () => {
  it('finds each kind of ping, in mrkdwn and in a markdown block once decoded', () => {
    expect(pingsIn({ text: '<!channel> <!here|x> <!everyone> <!subteam^S1|g> <@U1> <@w2|x> @here' })).toEqual(
      [
        '$.text: channel',
        '$.text: here',
        '$.text: everyone',
        '$.text: subteam:S1',
        '$.text: user:U1',
        '$.text: user:w2',
      ],
    );
    expect(pingsIn({ text: 'so, @Here' })).toEqual(['$.text: here']);
    expect(pingsIn({ type: 'markdown', text: '\\<@U1> &lt;!here&gt;' })).toEqual([
      '$.text: user:U1',
      '$.text: here',
    ]);
    expect(pingsIn({ type: 'mrkdwn', text: '&lt;!here&gt; \\&lt;@U1' })).toEqual([]);
    expect(pingsIn({ blocks: [{ elements: [{ text: 'a\n@everyone' }] }] })).toEqual([
      '$.blocks[0].elements[0].text: everyone',
    ]);
  });

  it('lets through look-alikes that notify nobody', () => {
    expect(pingsIn({ text: '@\u2060here <\u2060!channel> &lt;@U1&gt; mail@here.io <!date^1|d>' })).toEqual(
      [],
    );
    expect(commonMarkDecoded('\\*a\\* &#64;x &amp;')).toBe('*a* @x &');
  });
});
